import type { MissionNode, MissionTopology, TaintSource } from "../db/schema";
import { agentTaint, mergeTaint } from "../safety/taint";
import { truncate } from "../text";
import { isBackEdge, reviewLoopOf, sinksOf, type ReviewLoop } from "./topology";

/**
 * What a mission can do next, read from its nodes' rows alone (no database):
 * which turns are final, which waiting turns may start, what each is handed,
 * and the result once every node is final.
 */

/** A checker approves with a line that begins with APPROVED. */
export const approves = (output: string | null) => /^\s*APPROVED\b/m.test(output ?? "");

export class MissionPlan {
  readonly loop: ReviewLoop | null;
  private readonly latest = new Map<string, MissionNode>();

  /**
   * `taintOf`: the taint of the turns' runs by run id (read with the turns);
   * what reached an upstream run reaches the turns it hands on to.
   */
  constructor(
    readonly topology: MissionTopology,
    readonly rows: MissionNode[],
    private readonly taintOf: ReadonlyMap<string, readonly TaintSource[]> = new Map(),
  ) {
    this.loop = reviewLoopOf(topology);
    for (const r of rows) {
      const seen = this.latest.get(r.nodeId);
      if (!seen || seen.round < r.round) this.latest.set(r.nodeId, r);
    }
  }

  latestOf(nodeId: string): MissionNode | undefined {
    return this.latest.get(nodeId);
  }

  private inLoop(nodeId: string) {
    return !!this.loop && (this.loop.maker === nodeId || this.loop.checker === nodeId);
  }

  /** A node is final when its last turn ended and no further round of its loop will run. */
  isFinal(nodeId: string): boolean {
    const row = this.latest.get(nodeId);
    if (!row) return false;
    if (row.state === "failed") return !!this.topology.continueOnFailure;
    if (row.state === "skipped") return true;
    if (row.state !== "succeeded") return false;
    if (!this.inLoop(nodeId)) return true;
    const maker = this.latest.get(this.loop!.maker);
    const checker = this.latest.get(this.loop!.checker);
    return !!maker && !!checker && checker.state === "succeeded" && maker.round === checker.round;
  }

  /** Waiting turns whose inputs are all there, in the crew's order. */
  ready(): MissionNode[] {
    const order = new Map(this.topology.nodes.map((n, i) => [n.id, i]));
    return this.rows
      .filter((r) => r.state === "waiting" && this.inputsReady(r))
      .sort((a, b) => a.round - b.round || order.get(a.nodeId)! - order.get(b.nodeId)!);
  }

  private inputsReady(row: MissionNode): boolean {
    const loop = this.loop;
    if (loop && row.nodeId === loop.checker) {
      const maker = this.rows.find((r) => r.nodeId === loop.maker && r.round === row.round);
      if (maker?.state !== "succeeded") return false;
    }
    if (loop && row.nodeId === loop.maker && row.round > 0) return true;
    return this.topology.edges
      .filter((e) => e.to === row.nodeId && !isBackEdge(loop, e) && !(loop && e.from === loop.maker && e.to === loop.checker))
      .every((e) => this.isFinal(e.from));
  }

  /** What a node hands on along an edge: a loop's checker hands on the maker's last work. */
  handedOver(from: string, to: string): string | null {
    const loop = this.loop;
    const source = loop && from === loop.checker && to !== loop.maker ? loop.maker : from;
    const row = this.latest.get(source);
    return row?.state === "succeeded" ? (row.output ?? "") : null;
  }

  /** Everything a turn is handed: the goal, its role and instructions, its upstream outputs, and the taint they carry. */
  inputFor(goal: string, row: MissionNode, handles: Map<string, string>): { text: string; taint: TaintSource[]; via: string[] } {
    const node = this.topology.nodes.find((n) => n.id === row.nodeId)!;
    const loop = this.loop;
    const lines = [`Mission goal: ${goal}`, `Your role: ${node.role}`];
    if (node.instructions) lines.push(`Instructions: ${node.instructions}`);
    if (loop && row.nodeId === loop.maker && row.round > 0) lines.push(`Round ${row.round + 1} of ${this.topology.maxRounds}: improve your work on the checker's notes.`);
    const handed: { from: string; text: string }[] = [];
    // Per upstream turn, in the edges' order: what had reached its run, then its agent.
    const taint: TaintSource[][] = [];
    const incoming = this.topology.edges.filter((e) => e.to === row.nodeId && (row.round > 0 || !isBackEdge(loop, e)));
    for (const e of incoming) {
      const upstream = this.topology.nodes.find((n) => n.id === e.from)!;
      const handle = handles.get(upstream.agentId) ?? "unknown";
      const fromMaker = loop && row.nodeId === loop.checker && e.from === loop.maker;
      const text = fromMaker ? this.outputOf(loop.maker, row.round) : this.handedOver(e.from, row.nodeId);
      handed.push({ from: `@${handle} (${upstream.role})`, text: text ?? "(this node failed: no output)" });
      // A checker that ends its loop hands on the maker's work: what reached either run comes along.
      const sources = fromMaker ? [this.rowOf(loop.maker, row.round)] : [this.latest.get(e.from), this.handingRow(e.from, row.nodeId)];
      taint.push(...sources.map((r) => this.runTaint(r)), [{ source: agentTaint(handle), stepId: null }]);
    }
    if (loop && row.nodeId === loop.maker && row.round > 0) {
      handed.unshift({ from: "your previous work", text: this.outputOf(loop.maker, row.round - 1) ?? "" });
      taint.unshift(this.runTaint(this.rowOf(loop.maker, row.round - 1)));
    }
    if (handed.length > 0) {
      lines.push("", "Handed over to you:");
      for (const h of handed) lines.push(`--- from ${h.from} ---`, truncate(h.text, 6000, "…"));
    }
    const upstreamAgents = [...new Set(incoming.map((e) => this.topology.nodes.find((n) => n.id === e.from)!.agentId))];
    const via = upstreamAgents.map((id) => handles.get(id) ?? "unknown");
    return { text: lines.join("\n"), taint: mergeTaint(...taint), via };
  }

  private rowOf(nodeId: string, round: number): MissionNode | undefined {
    return this.rows.find((r) => r.nodeId === nodeId && r.round === round);
  }

  /** The turn whose output a node hands on along an edge (see `handedOver`). */
  private handingRow(from: string, to: string): MissionNode | undefined {
    const loop = this.loop;
    return this.latest.get(loop && from === loop.checker && to !== loop.maker ? loop.maker : from);
  }

  /** What had reached a turn's run, its steps left behind (they belong to that run). */
  private runTaint(row: MissionNode | undefined): TaintSource[] {
    const taint = row?.runId ? this.taintOf.get(row.runId) : undefined;
    return (taint ?? []).map((t) => ({ source: t.source, stepId: null }));
  }

  private outputOf(nodeId: string, round: number): string | null {
    const row = this.rowOf(nodeId, round);
    return row?.state === "succeeded" ? (row.output ?? "") : null;
  }

  allFinal(): boolean {
    return this.topology.nodes.every((n) => this.isFinal(n.id));
  }

  /** The sink nodes' outputs: the mission's result. */
  result(): string {
    const sinks = sinksOf(this.topology);
    const parts = sinks.map((id) => {
      const node = this.topology.nodes.find((n) => n.id === id)!;
      return { role: node.role, text: this.handedOver(id, "") ?? "" };
    });
    if (parts.length === 1) return parts[0]!.text;
    return parts.map((p) => `## ${p.role}\n\n${p.text}`).join("\n\n");
  }

  /** A checker's turn that ends its loop (approved, or the last round). */
  loopEndsWith(row: MissionNode, output: string): boolean {
    return approves(output) || row.round + 1 >= (this.topology.maxRounds ?? 1);
  }
}
