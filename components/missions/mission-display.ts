/** How a crew or a mission is drawn: state names and colours, and where nodes go when none was saved. */
import type { MissionItem, NodeState } from "@/lib/missions/mission-schemas";

/** One event of a mission's journal, as the live timeline keeps it. */
export interface MissionEventItem {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export const nodeStateLabels: Record<NodeState, string> = {
  waiting: "Waiting",
  paused: "Agent paused",
  running: "Running",
  awaiting_approval: "Awaiting approval",
  done: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
  skipped: "Skipped",
};

/** Border and background of a node in each state (light theme, text stays readable). */
export const nodeStateClasses: Record<NodeState, string> = {
  waiting: "border-slate-300 bg-surface",
  paused: "border-amber-400 bg-amber-50",
  running: "border-indigo-500 bg-indigo-50 ring-2 ring-indigo-200",
  awaiting_approval: "border-amber-500 bg-amber-50 ring-2 ring-amber-200",
  done: "border-emerald-500 bg-emerald-50",
  failed: "border-rose-500 bg-rose-50",
  cancelled: "border-slate-400 bg-slate-100",
  skipped: "border-slate-300 bg-slate-50",
};

export const missionStateLabels: Record<MissionItem["state"], string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** Positions for nodes saved without one: columns by depth along the edges. */
export function layoutPositions(nodes: { id: string; position?: { x: number; y: number } | null }[], edges: { from: string; to: string }[]) {
  const depth = new Map<string, number>(nodes.map((n) => [n.id, 0]));
  for (let pass = 0; pass < nodes.length; pass++) {
    for (const e of edges) {
      const d = (depth.get(e.from) ?? 0) + 1;
      if (d > (depth.get(e.to) ?? 0) && d < nodes.length) depth.set(e.to, d);
    }
  }
  const rows = new Map<number, number>();
  return new Map(
    nodes.map((n) => {
      if (n.position) return [n.id, n.position];
      const d = depth.get(n.id) ?? 0;
      const row = rows.get(d) ?? 0;
      rows.set(d, row + 1);
      return [n.id, { x: d * 220, y: row * 120 }];
    }),
  );
}

/** What the judge's totals say, in a sentence: which crew scored higher, or a tie; null until both have a total. */
export function comparisonVerdict(sides: { crewName: string; total: number | null }[]): string | null {
  const [a, b] = sides;
  if (!a || !b || a.total === null || b.total === null) return null;
  if (a.total === b.total) return `A tie: both crews scored ${a.total}/30.`;
  const [high, low] = a.total > b.total ? [a, b] : [b, a];
  return `${high.crewName} scored higher: ${high.total}/30 against ${low.total}/30 for ${low.crewName}.`;
}
