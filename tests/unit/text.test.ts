import { describe, expect, it } from "vitest";
import { cleanModelStream } from "../../lib/models/clean";
import { pieces } from "../../lib/models/offline";
import type { ModelEvent } from "../../lib/models/types";
import { cleanDeep, cleanText, findNul, safeSlice, truncate } from "../../lib/text";

const isWellFormed = (s: string) => s === s.toWellFormed();

describe("safeSlice and truncate", () => {
  it("never cut an emoji in half, at any index", () => {
    const text = "a😀b👍🏽c🚀";
    for (let end = 0; end <= text.length; end++) {
      const head = safeSlice(text, 0, end);
      expect(isWellFormed(head)).toBe(true);
      expect(text.startsWith(head)).toBe(true);
      expect(end - head.length).toBeLessThanOrEqual(1);
    }
  });

  it("pieces cut at the same indexes join back into the whole text", () => {
    const text = "🎉".repeat(7) + "x";
    const parts = [safeSlice(text, 0, 3), safeSlice(text, 3, 8), safeSlice(text, 8)];
    expect(parts.join("")).toBe(text);
    expect(parts.every(isWellFormed)).toBe(true);
  });

  it("truncate keeps short text, and cuts long text on a boundary within the limit, suffix included", () => {
    expect(truncate("short", 10)).toBe("short");
    const cut = truncate("ab😀cd", 3, "");
    expect(cut).toBe("ab");
    expect(truncate("abcdef", 4, "…")).toBe("abc…");
    expect(truncate("ab😀cdef", 4, "…").length).toBeLessThanOrEqual(4);
  });

  it("the offline model streams pieces that are each valid text and join into the reply", () => {
    const reply = "Sure 🚀🚀🚀 here 👨‍👩‍👧 is 𝔘𝔫𝔦 it 🎉".repeat(3);
    const out = pieces(reply);
    expect(out.join("")).toBe(reply);
    expect(out.every((p) => p.length > 0 && isWellFormed(p))).toBe(true);
  });
});

describe("cleaning text for storage", () => {
  it("removes NUL characters and replaces lone surrogates, keeping pairs", () => {
    expect(cleanText("a\u0000b")).toBe("ab");
    expect(cleanText("x\ud83d")).toBe("x\ufffd");
    expect(cleanText("\ude00y")).toBe("\ufffdy");
    expect(cleanText("ok 😀")).toBe("ok 😀");
  });

  it("cleans every string and key of a JSON value, leaving other values alone", () => {
    expect(cleanDeep({ "k\u0000": ["a\u0000", { b: "\ud83d" }], n: 1, t: true, z: null })).toEqual({ k: ["a", { b: "\ufffd" }], n: 1, t: true, z: null });
  });

  it("finds the path of the first NUL in a value", () => {
    expect(findNul({ a: "ok", b: [{ c: "x\u0000" }] })).toBe("b[0].c");
    expect(findNul({ a: "ok" })).toBeNull();
    expect(findNul("\u0000")).toBe("value");
  });
});

describe("a model stream as the runtime stores it", () => {
  async function collect(events: ModelEvent[]) {
    async function* source() {
      yield* events;
    }
    const out: ModelEvent[] = [];
    for await (const e of cleanModelStream(source())) out.push(e);
    return out;
  }

  it("rejoins an emoji split across two text deltas, so no delta holds half of it", async () => {
    const out = await collect([
      { type: "text", delta: "hi \ud83d" },
      { type: "text", delta: "\ude00 there" },
      { type: "stop", reason: "end_turn" },
    ]);
    const texts = out.flatMap((e) => (e.type === "text" ? [e.delta] : []));
    expect(texts.join("")).toBe("hi 😀 there");
    expect(texts.every(isWellFormed)).toBe(true);
    expect(out.at(-1)).toEqual({ type: "stop", reason: "end_turn" });
  });

  it("strips NUL from text and tool input", async () => {
    const out = await collect([
      { type: "text", delta: "a\u0000b" },
      { type: "tool_call", id: "t", name: "memory.remember", input: { text: "x\u0000y" } },
    ]);
    expect(out).toEqual([
      { type: "text", delta: "ab" },
      { type: "tool_call", id: "t", name: "memory.remember", input: { text: "xy" } },
    ]);
  });
});
