import { describe, expect, it } from "vitest";
import { FlushLoop, KeyedListeners } from "@/lib/db/group-commit";

describe("the group-commit flush loop", () => {
  it("flushes work queued in one turn together, and work queued during a flush right after it", async () => {
    const queued: number[] = [];
    const flushes: number[][] = [];
    let release: () => void = () => undefined;
    const loop = new FlushLoop(
      () => queued.length > 0,
      async () => {
        flushes.push(queued.splice(0));
        if (flushes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
    );
    queued.push(1, 2);
    loop.schedule();
    loop.schedule();
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushes).toEqual([[1, 2]]);
    queued.push(3);
    loop.schedule();
    queued.push(4);
    loop.schedule();
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(flushes).toEqual([[1, 2], [3, 4]]);
  });
});

describe("keyed listeners", () => {
  it("hands each key's followers only what is theirs, and forgets a key once its last follower leaves", () => {
    const listeners = new KeyedListeners<(n: number) => void>();
    const a: number[] = [];
    const b: number[] = [];
    const leaveA = listeners.add("run-1", (n) => a.push(n));
    const leaveB = listeners.add("run-1", (n) => b.push(n * 10));
    for (const l of listeners.of("run-1")) l(1);
    for (const l of listeners.of("run-2")) l(2);
    expect([a, b]).toEqual([[1], [10]]);
    leaveA();
    expect(listeners.has("run-1")).toBe(true);
    leaveB();
    leaveB();
    expect(listeners.has("run-1")).toBe(false);
    expect([...listeners.of("run-1")]).toEqual([]);
  });
});
