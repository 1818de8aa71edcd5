import { describe, expect, it } from "vitest";
import { MissionWatch } from "@/lib/missions/watch";

const workers = Array.from({ length: 10 }, (_, i) => `w${i}`);
const fan = {
  nodes: [{ id: "lead", role: "Lead" }, ...workers.map((id) => ({ id, role: "Worker" })), { id: "merge", role: "Merge" }],
  edges: [...workers.map((w) => ({ from: "lead", to: w })), ...workers.map((w) => ({ from: w, to: "merge" }))],
};

function fanWatch() {
  const watch = new MissionWatch(fan, false);
  watch.addRun("run-lead", "lead", true);
  workers.forEach((w) => watch.addRun(`run-${w}`, w));
  return watch;
}

describe("MissionWatch", () => {
  it("lets the first nine workers' ends wait and steps at once for the tenth, which readies the merge", () => {
    const watch = fanWatch();
    const needs = workers.map((w) => watch.endNeedsStep(`run-${w}`));
    expect(needs).toEqual([false, false, false, false, false, false, false, false, false, true]);
  });

  it("steps at once for the lead, whose end readies the workers", () => {
    const watch = new MissionWatch(fan, false);
    watch.addRun("run-lead", "lead");
    expect(watch.endNeedsStep("run-lead")).toBe(true);
  });

  it("steps at once for a sink, an unknown run, a review loop, and a crew waiting for room", () => {
    const sink = fanWatch();
    sink.addRun("run-merge", "merge");
    expect(sink.endNeedsStep("run-merge")).toBe(true);
    expect(fanWatch().endNeedsStep("run-started-elsewhere")).toBe(true);
    const loop = new MissionWatch({ nodes: [{ id: "maker", role: "Maker" }, { id: "checker", role: "Checker" }, { id: "w", role: "W" }], edges: [{ from: "maker", to: "checker" }, { from: "checker", to: "maker" }, { from: "w", to: "maker" }] }, true);
    loop.addRun("run-w", "w");
    expect(loop.endNeedsStep("run-w")).toBe(true);
    const bound = fanWatch();
    bound.capacityBound = true;
    expect(bound.endNeedsStep("run-w0")).toBe(true);
  });

  it("counts nodes carried over from the last step as done", () => {
    const watch = fanWatch();
    workers.slice(0, 9).forEach((w) => watch.addDone(w));
    expect(watch.endNeedsStep("run-w9")).toBe(true);
  });
});
