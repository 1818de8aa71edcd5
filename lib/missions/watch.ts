import type { Shape } from "./topology";

/**
 * What the scheduler remembers of a running mission between its steps, to
 * tell whether a run that just ended well can start anything. Ten workers
 * feeding one merge end within a few milliseconds of each other: the first
 * nine can start nothing, and a step for each would hold up the one for the
 * tenth, which starts the merge. Those ends are settled a little later, or
 * with the end that matters, whichever comes first.
 *
 * Only a hint: it never decides anything. Every step reads the mission's
 * state from the database, and anything unknown here (a run started by
 * another process, a review loop, a crew bound by its concurrency) counts
 * as able to start something.
 */
export class MissionWatch {
  private readonly nodeOfRun = new Map<string, string>();
  private readonly done = new Set<string>();
  /** Ready turns were left waiting for room: any end frees some. */
  capacityBound = false;

  constructor(
    private readonly topology: Shape,
    private readonly loop: boolean,
  ) {}

  /** A turn's run; `ended` when it is known to have ended well. */
  addRun(runId: string, nodeId: string, ended = false) {
    this.nodeOfRun.set(runId, nodeId);
    if (ended) this.done.add(nodeId);
  }

  addDone(nodeId: string) {
    this.done.add(nodeId);
  }

  /** The nodes known to have ended well, to carry into the next step's watch. */
  doneNodes(): Iterable<string> {
    return this.done;
  }

  /** Records that a run ended well; whether the mission should step now rather than a little later. */
  endNeedsStep(runId: string): boolean {
    const nodeId = this.nodeOfRun.get(runId);
    if (nodeId === undefined || this.loop || this.capacityBound) return true;
    this.done.add(nodeId);
    const targets = this.topology.edges.filter((e) => e.from === nodeId).map((e) => e.to);
    // A sink's end may finish the mission.
    if (targets.length === 0) return true;
    return targets.some((to) => this.topology.edges.filter((e) => e.to === to).every((e) => this.done.has(e.from)));
  }
}
