import { describe, expect, it } from "vitest";
import { comparisonVerdict } from "@/components/missions/mission-display";
import type { MissionNode, MissionTopology } from "../../lib/db/schema";
import { missionAnswer } from "../../lib/models/offline";
import { approves, MissionPlan } from "../../lib/missions/plan";
import { crewTemplate, reviewLoopOf, shapeProblem, sinksOf } from "../../lib/missions/topology";

const shape = (edges: [string, string][], extra: { maxRounds?: number } = {}) => ({
  nodes: [...new Set(edges.flat())].map((id) => ({ id, role: id })),
  edges: edges.map(([from, to]) => ({ from, to })),
  ...extra,
});

describe("crew shapes", () => {
  it("accepts the four templates", () => {
    for (const name of ["pipeline", "lead-and-workers", "review-loop", "graph"] as const) expect(shapeProblem(crewTemplate(name))).toBeNull();
  });

  it("names the edge that closes a cycle, the edge to a missing node, and a duplicate node", () => {
    expect(shapeProblem(shape([["a", "b"], ["b", "c"], ["c", "a"]]))?.edge).toEqual({ from: "c", to: "a" });
    expect(shapeProblem({ nodes: [{ id: "a", role: "a" }], edges: [{ from: "a", to: "ghost" }] })?.edge).toEqual({ from: "a", to: "ghost" });
    expect(shapeProblem({ nodes: [{ id: "a", role: "a" }, { id: "a", role: "b" }], edges: [] })?.node).toBe("a");
    expect(shapeProblem({ nodes: [{ id: "a", role: "a" }], edges: [{ from: "a", to: "a" }] })?.edge).toEqual({ from: "a", to: "a" });
  });

  it("allows one two-node loop only with a bound, and no second loop", () => {
    expect(shapeProblem(shape([["m", "c"], ["c", "m"]]))?.edge).toEqual({ from: "c", to: "m" });
    expect(shapeProblem(shape([["m", "c"], ["c", "m"]], { maxRounds: 2 }))).toBeNull();
    expect(shapeProblem(shape([["m", "c"], ["c", "m"], ["x", "y"], ["y", "x"]], { maxRounds: 2 }))?.message).toMatch(/second loop/);
  });

  it("finds the maker as the node work enters from outside, and the sinks", () => {
    const s = shape([["in", "c"], ["c", "m"], ["m", "c"], ["c", "out"]], { maxRounds: 2 });
    expect(reviewLoopOf(s)).toEqual({ maker: "c", checker: "m" });
    expect(sinksOf(crewTemplate("lead-and-workers", 3))).toEqual(["merge"]);
  });
});

let n = 0;
const row = (nodeId: string, state: MissionNode["state"], output: string | null = null, round = 0): MissionNode => ({
  id: `r${++n}`,
  workspaceId: "w",
  missionRunId: "m",
  nodeId,
  round,
  agentId: nodeId,
  state,
  held: false,
  runId: null,
  output,
  error: null,
  startedAt: null,
  finishedAt: null,
  createdAt: new Date(),
});

describe("mission plan", () => {
  const graph: MissionTopology = { ...crewTemplate("graph"), nodes: crewTemplate("graph").nodes.map((x) => ({ ...x, agentId: x.id })) };

  it("a join waits for every input; its input quotes each upstream output and carries their taint", () => {
    const waiting = new MissionPlan(graph, [row("plan", "succeeded", "P"), row("a", "succeeded", "A"), row("b", "running"), row("join", "waiting")]);
    expect(waiting.ready()).toEqual([]);
    const ready = new MissionPlan(graph, [row("plan", "succeeded", "P"), row("a", "succeeded", "A"), row("b", "succeeded", "B"), row("join", "waiting")]);
    const [join] = ready.ready();
    expect(join?.nodeId).toBe("join");
    const input = ready.inputFor("the goal", join!, new Map([["a", "ann"], ["b", "bob"]]));
    expect(input.text).toContain("--- from @ann (Branch A) ---\nA");
    expect(input.text).toContain("--- from @bob (Branch B) ---\nB");
    expect(input.taint.map((t) => t.source)).toEqual(["agent:ann", "agent:bob"]);
  });

  it("a join's taint is, per upstream turn in the crew's order, what reached its run and then its agent, each source once", () => {
    const a = { ...row("a", "succeeded", "A"), runId: "run-a" };
    const b = { ...row("b", "succeeded", "B"), runId: "run-b" };
    const taintOf = new Map([
      ["run-a", [{ source: "web:news.example", stepId: "step-1" }, { source: "agent:planner", stepId: null }]],
      ["run-b", [{ source: "agent:planner", stepId: null }, { source: "email:ops@example.com", stepId: "step-2" }]],
    ]);
    const plan = new MissionPlan(graph, [row("plan", "succeeded", "P"), a, b, row("join", "waiting")], taintOf);
    const input = plan.inputFor("the goal", plan.ready()[0]!, new Map([["a", "ann"], ["b", "bob"]]));
    expect(input.taint).toEqual([
      { source: "web:news.example", stepId: null },
      { source: "agent:planner", stepId: null },
      { source: "agent:ann", stepId: null },
      { source: "email:ops@example.com", stepId: null },
      { source: "agent:bob", stepId: null },
    ]);
  });

  it("a maker's next round carries what reached its previous round and the checker", () => {
    const loop = { ...crewTemplate("review-loop"), nodes: crewTemplate("review-loop").nodes.map((x) => ({ ...x, agentId: x.id })) };
    const { maker, checker } = reviewLoopOf(loop)!;
    const rows = [
      { ...row(maker, "succeeded", "draft"), runId: "m0" },
      { ...row(checker, "succeeded", "fix the intro"), runId: "c0" },
      row(maker, "waiting", null, 1),
    ];
    const plan = new MissionPlan(loop, rows, new Map([["m0", [{ source: "web:docs.example", stepId: "s" }]]]));
    const next = plan.ready().find((r) => r.nodeId === maker && r.round === 1)!;
    const input = plan.inputFor("the goal", next, new Map([[checker, "cara"]]));
    expect(input.taint.map((t) => t.source)).toEqual(["web:docs.example", "agent:cara"]);
  });

  it("a checker approves with a line that begins with APPROVED", () => {
    expect(approves("APPROVED\nfine")).toBe(true);
    expect(approves("Not APPROVED yet")).toBe(false);
  });

  it("the offline model says what a mission node did and what each teammate handed it, in one sentence each", () => {
    const answer = missionAnswer("Mission goal: Ship it\nYour role: Editor\n\nHanded over to you:\n--- from @scout (Researcher) ---\nThe notes say hello");
    expect(answer?.text).toBe("**Editor** on “Ship it”: built on the work of @scout (Researcher).\n\n- @scout (Researcher): The notes say hello");
    expect(answer?.command).toBeNull();
    // An answer handed on is cited by its sentence, never quoted whole inside the next one.
    const merged = missionAnswer(
      "Mission goal: Ship it\nYour role: Lead\n\nHanded over to you:\n--- from @a (One) ---\n**One** on “Ship it”: started from the goal itself.\n--- from @b (Two) ---\n**Two** on “Ship it”: built on the work of @a (One).\n\n- @a (One): started from the goal itself.",
    );
    expect(merged?.text).toBe(
      "**Lead** on “Ship it”: brought together the work of @a (One) and @b (Two).\n\n- @a (One): started from the goal itself.\n- @b (Two): built on the work of @a (One).",
    );
  });

  it("a node that can post to Slack posts when the goal asks for it, to the channel it names; others do not", () => {
    const raw = "Mission goal: Draft the notes and post them to #launch on Slack.\nYour role: Writer";
    expect(missionAnswer(raw, new Set(["slack.post"]))?.command).toEqual({
      name: "slack.post",
      input: { channel: "#launch", text: "Update from the crew on “Draft the notes”: the work is done." },
    });
    expect(missionAnswer(raw, new Set(["http.fetch"]))?.command).toBeNull();
    expect(missionAnswer("Mission goal: Draft the notes\nYour role: Writer", new Set(["slack.post"]))?.command).toBeNull();
  });
});

describe("the comparison's verdict", () => {
  it("names the crew that scored higher, says a tie is a tie, and says nothing before both totals", () => {
    expect(comparisonVerdict([{ crewName: "Pipeline", total: 24 }, { crewName: "Lead and workers", total: 27 }])).toBe(
      "Lead and workers scored higher: 27/30 against 24/30 for Pipeline.",
    );
    expect(comparisonVerdict([{ crewName: "A", total: 26 }, { crewName: "B", total: 26 }])).toBe("A tie: both crews scored 26/30.");
    expect(comparisonVerdict([{ crewName: "A", total: 26 }, { crewName: "B", total: null }])).toBeNull();
  });
});
