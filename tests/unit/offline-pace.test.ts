import { afterEach, describe, expect, it, vi } from "vitest";
import { createOfflineProvider, pieces } from "@/lib/models/offline";
import type { ModelEvent } from "@/lib/models/types";

afterEach(() => {
  vi.useRealTimers();
});

/** Whether `promise` settles once the timers due now have run (the clock does not move). */
async function settlesNow<T>(promise: Promise<T>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

describe("the offline model's pace", () => {
  it("sends piece k k pauses after the first: a consumer that was held up gets the pieces due meanwhile at once, then the pace again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const delayMs = 10;
    const stream = createOfflineProvider({ delayMs }).stream({
      model: "offline",
      system: "",
      messages: [{ role: "user", content: [{ type: "text", text: "How do you work?" }] }],
      tools: [],
      maxTokens: 1000,
    });
    const it = stream[Symbol.asyncIterator]();
    const text = (step: IteratorResult<ModelEvent>) => (!step.done && step.value.type === "text" ? step.value.delta : null);
    expect((await it.next()).value).toMatchObject({ type: "usage" });

    // The first piece, one pause after the start.
    const first = it.next();
    expect(await settlesNow(first)).toBe(false);
    await vi.advanceTimersByTimeAsync(delayMs);
    let received = text(await first)!;
    expect(received.length).toBeGreaterThan(0);

    // The consumer is busy for eight pauses (the clock moves, no timer runs): the eight pieces due meanwhile come at
    // once. (Pausing after each piece taken, each would wait a whole pause again.)
    vi.setSystemTime(Date.now() + 8 * delayMs);
    for (let k = 0; k < 8; k++) {
      const next = it.next();
      expect(await settlesNow(next)).toBe(true);
      received += text(await next)!;
    }
    // Then the pace again: the next piece is one pause away.
    const paced = it.next();
    expect(await settlesNow(paced)).toBe(false);
    await vi.advanceTimersByTimeAsync(delayMs);
    received += text(await paced)!;

    for (;;) {
      const next = it.next();
      await vi.advanceTimersByTimeAsync(delayMs);
      const step = await next;
      if (step.done || step.value.type === "stop") break;
      received += text(step) ?? "";
    }
    expect(received.length).toBeGreaterThan(100);
    expect(pieces(received).join("")).toBe(received);
  });
});
