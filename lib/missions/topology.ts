/**
 * The shape of a crew, checked without the database: node ids, edges,
 * cycles (only a bounded review loop of two nodes may have one) and size.
 * Shared by the server (validation on save) and the editor (templates).
 */

export const MAX_CREW_NODES = 24;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_MAX_ROUNDS = 3;

export interface ShapeNode {
  id: string;
  role: string;
}
export interface ShapeEdge {
  from: string;
  to: string;
}

export interface Shape {
  nodes: ShapeNode[];
  edges: ShapeEdge[];
  maxRounds?: number;
}

/** Where a crew is wrong: the node or edge to point at, and why. */
export interface ShapeProblem {
  node?: string;
  edge?: ShapeEdge;
  message: string;
}

/** The review loop of a crew: the maker hands to the checker, the checker back to the maker. */
export interface ReviewLoop {
  maker: string;
  checker: string;
}

/** The loop's two nodes, when the crew has one (its only cycle). */
export function reviewLoopOf(shape: Shape): ReviewLoop | null {
  for (const e of shape.edges) {
    if (shape.edges.some((b) => b.from === e.to && b.to === e.from)) {
      const [a, b] = [e.from, e.to];
      // The maker is the one work enters from outside the loop; otherwise the first listed.
      const fromOutside = (n: string) => shape.edges.some((x) => x.to === n && x.from !== a && x.from !== b);
      const order = (n: string) => shape.nodes.findIndex((x) => x.id === n);
      const maker = fromOutside(a) !== fromOutside(b) ? (fromOutside(a) ? a : b) : order(a) <= order(b) ? a : b;
      return { maker, checker: maker === a ? b : a };
    }
  }
  return null;
}

/** The most runs a mission of this crew starts: one per node, and the loop's two nodes again in each later round. */
export function mostRunsOf(shape: Shape): number {
  const loop = reviewLoopOf(shape);
  return shape.nodes.length + (loop ? 2 * Math.max(0, (shape.maxRounds ?? 1) - 1) : 0);
}

/** Whether an edge is the loop's way back (checker → maker), which waits for the next round. */
export const isBackEdge = (loop: ReviewLoop | null, e: ShapeEdge) => !!loop && e.from === loop.checker && e.to === loop.maker;

/** The first problem of a crew's shape, or null when it can run. */
export function shapeProblem(shape: Shape): ShapeProblem | null {
  if (shape.nodes.length === 0) return { message: "A crew needs at least one node." };
  if (shape.nodes.length > MAX_CREW_NODES) {
    return { node: shape.nodes[MAX_CREW_NODES]!.id, message: `A crew has at most ${MAX_CREW_NODES} nodes; this one has ${shape.nodes.length}.` };
  }
  const ids = new Set<string>();
  for (const n of shape.nodes) {
    if (ids.has(n.id)) return { node: n.id, message: `Two nodes are called "${n.id}"; node ids must be unique.` };
    ids.add(n.id);
  }
  const seen = new Set<string>();
  for (const e of shape.edges) {
    if (!ids.has(e.from)) return { edge: e, message: `The edge ${e.from} → ${e.to} starts at "${e.from}", which is not a node of this crew.` };
    if (!ids.has(e.to)) return { edge: e, message: `The edge ${e.from} → ${e.to} ends at "${e.to}", which is not a node of this crew.` };
    if (e.from === e.to) return { edge: e, message: `The edge ${e.from} → ${e.to} goes from a node to itself.` };
    const key = `${e.from}\u0000${e.to}`;
    if (seen.has(key)) return { edge: e, message: `The edge ${e.from} → ${e.to} is there twice.` };
    seen.add(key);
  }
  const loop = reviewLoopOf(shape);
  if (loop) {
    const pairs = shape.edges.filter((e) => shape.edges.some((b) => b.from === e.to && b.to === e.from));
    const other = pairs.find((e) => ![loop.maker, loop.checker].includes(e.from) || ![loop.maker, loop.checker].includes(e.to));
    if (other) return { edge: other, message: `The edge ${other.from} → ${other.to} makes a second loop; a crew has at most one review loop.` };
    if (!shape.maxRounds) {
      return { edge: { from: loop.checker, to: loop.maker }, message: `The edge ${loop.checker} → ${loop.maker} makes a review loop: give the crew a number of rounds (maxRounds).` };
    }
  }
  // With the loop's way back left out, what remains must have no cycle.
  const forward = shape.edges.filter((e) => !isBackEdge(loop, e));
  const cycle = findCycleEdge(shape.nodes.map((n) => n.id), forward);
  if (cycle) {
    return { edge: cycle, message: `The edge ${cycle.from} → ${cycle.to} closes a cycle; only a review loop of two nodes (maker ↔ checker) may loop.` };
  }
  return null;
}

/** An edge that closes a cycle, found by depth-first search, or null. */
function findCycleEdge(ids: string[], edges: ShapeEdge[]): ShapeEdge | null {
  const out = new Map<string, ShapeEdge[]>(ids.map((id) => [id, []]));
  for (const e of edges) out.get(e.from)!.push(e);
  const state = new Map<string, 1 | 2>();
  const visit = (id: string): ShapeEdge | null => {
    state.set(id, 1);
    for (const e of out.get(id)!) {
      const s = state.get(e.to);
      if (s === 1) return e;
      if (!s) {
        const found = visit(e.to);
        if (found) return found;
      }
    }
    state.set(id, 2);
    return null;
  };
  for (const id of ids) {
    if (!state.has(id)) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return null;
}

/** Nodes no forward edge leaves: their outputs are the mission's result. */
export function sinksOf(shape: Shape): string[] {
  const loop = reviewLoopOf(shape);
  const leaving = new Set(shape.edges.filter((e) => !isBackEdge(loop, e) && !(loop && e.from === loop.maker && e.to === loop.checker)).map((e) => e.from));
  // Inside a loop the checker hands on; the maker's way to the checker does not count as leaving.
  return shape.nodes.map((n) => n.id).filter((id) => !leaving.has(id) && !(loop && id === loop.maker));
}

export type TemplateName = "pipeline" | "lead-and-workers" | "review-loop" | "graph";

export interface TemplateNode {
  id: string;
  role: string;
  instructions: string;
  position: { x: number; y: number };
}

/** The four starting shapes, with `workers` workers where that applies; agents are bound afterwards. */
export function crewTemplate(name: TemplateName, workers = 2): { nodes: TemplateNode[]; edges: ShapeEdge[]; maxRounds?: number } {
  const at = (x: number, y: number) => ({ x: x * 220, y: y * 120 });
  switch (name) {
    case "pipeline":
      return {
        nodes: [
          { id: "research", role: "Researcher", instructions: "Gather what the goal needs.", position: at(0, 0) },
          { id: "draft", role: "Writer", instructions: "Write a draft from what you were handed.", position: at(1, 0) },
          { id: "edit", role: "Editor", instructions: "Tighten the draft into the final answer.", position: at(2, 0) },
        ],
        edges: [
          { from: "research", to: "draft" },
          { from: "draft", to: "edit" },
        ],
      };
    case "lead-and-workers": {
      const ws = Array.from({ length: workers }, (_, i) => ({
        id: `worker${i + 1}`,
        role: `Worker ${i + 1}`,
        instructions: `Do part ${i + 1} of the lead's plan.`,
        position: at(1, i - (workers - 1) / 2),
      }));
      return {
        nodes: [
          { id: "lead", role: "Lead", instructions: "Split the goal into parts for the workers.", position: at(0, 0) },
          ...ws,
          { id: "merge", role: "Lead (merge)", instructions: "Merge the workers' results into one answer.", position: at(2, 0) },
        ],
        edges: [...ws.map((w) => ({ from: "lead", to: w.id })), ...ws.map((w) => ({ from: w.id, to: "merge" }))],
      };
    }
    case "review-loop":
      return {
        nodes: [
          { id: "maker", role: "Maker", instructions: "Produce the work; improve it on the checker's notes.", position: at(0, 0) },
          { id: "checker", role: "Checker", instructions: "Review the work. Answer APPROVED on its own line when it is good.", position: at(1, 0) },
        ],
        edges: [
          { from: "maker", to: "checker" },
          { from: "checker", to: "maker" },
        ],
        maxRounds: DEFAULT_MAX_ROUNDS,
      };
    case "graph":
      return {
        nodes: [
          { id: "plan", role: "Planner", instructions: "Plan the work.", position: at(0, 0) },
          { id: "a", role: "Branch A", instructions: "Do the first branch.", position: at(1, -0.6) },
          { id: "b", role: "Branch B", instructions: "Do the second branch.", position: at(1, 0.6) },
          { id: "join", role: "Join", instructions: "Join both branches into the answer.", position: at(2, 0) },
        ],
        edges: [
          { from: "plan", to: "a" },
          { from: "plan", to: "b" },
          { from: "a", to: "join" },
          { from: "b", to: "join" },
        ],
      };
  }
}
