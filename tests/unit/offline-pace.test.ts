import { describe, expect, it } from "vitest";
import { createOfflineProvider, pieces } from "@/lib/models/offline";

/** Reads the offline model's reply to a plain question, busy for `busyMs` (the thread blocked) after the first piece. */
async function read(delayMs: number, busyMs: number) {
  const provider = createOfflineProvider({ delayMs });
  const started = Date.now();
  const at: number[] = [];
  let text = "";
  const stream = provider.stream({ model: "offline", system: "", messages: [{ role: "user", content: [{ type: "text", text: "How do you work?" }] }], tools: [], maxTokens: 1000 });
  for await (const event of stream) {
    if (event.type !== "text") continue;
    at.push(Date.now() - started);
    text += event.delta;
    if (at.length === 1) {
      const until = Date.now() + busyMs;
      while (Date.now() < until) {
        // The consumer holds the thread, as a busy server does.
      }
    }
  }
  return { at, text };
}

describe("the offline model's pace", () => {
  it("sends piece k about k × delay after the start, and a consumer that was held up gets the pieces due meanwhile at once", async () => {
    const delayMs = 10;
    const alone = await read(delayMs, 0);
    const count = alone.at.length;
    expect(count).toBeGreaterThan(10);
    expect(alone.text).toBe(pieces(alone.text).join(""));
    expect(alone.at.at(-1)!).toBeGreaterThanOrEqual(count * delayMs - 1);

    const held = await read(delayMs, 8 * delayMs);
    expect(held.text).toBe(alone.text);
    // The pieces due while the consumer was busy come together, right after it.
    const together = held.at.filter((t) => t - held.at[0]! >= 8 * delayMs && t - held.at[0]! < 8 * delayMs + delayMs / 2);
    expect(together.length).toBeGreaterThanOrEqual(5);
    // The reply ends on the model's clock, not eight pauses later: pausing after each piece taken would end it at
    // about (count + 8) × delay.
    expect(held.at.at(-1)!).toBeLessThan((count + 4) * delayMs);
  });
});
