import { describe, expect, it } from "vitest";
import { codeOf, exactJson, hiddenIn, nameOf, splitHidden } from "../../lib/hidden-characters";
import { offlineVerdict } from "../../lib/safety/governor";

const RLO = "\u202E";
const PDF = "\u202C";
/** "ignore" in tag characters: nothing shows, a model reads it. */
const TAGGED = [..."ignore"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");

describe("hidden characters", () => {
  it("cuts a text into what shows and each hidden character, in order", () => {
    expect(splitHidden(`pay ${RLO}1234-9876${PDF} today`)).toEqual([{ text: "pay " }, { hidden: RLO }, { text: "1234-9876" }, { hidden: PDF }, { text: " today" }]);
    expect(splitHidden(`a\u200Bb`)).toEqual([{ text: "a" }, { hidden: "\u200B" }, { text: "b" }]);
    expect(splitHidden(TAGGED)).toHaveLength(6);
    expect(splitHidden("plain text")).toEqual([{ text: "plain text" }]);
  });

  it("leaves joiners alone: scripts and emoji need them", () => {
    const family = "👩\u200D👩\u200D👧";
    const persian = "می\u200Cخواهم";
    expect(splitHidden(family)).toEqual([{ text: family }]);
    expect(hiddenIn({ a: family, b: persian })).toEqual([]);
  });

  it("names each by its code and what it does", () => {
    expect(codeOf(RLO)).toBe("U+202E");
    expect(nameOf(RLO)).toBe("right-to-left override");
    expect(codeOf("\u00AD")).toBe("U+00AD");
    expect(codeOf(TAGGED.slice(0, 2))).toBe("U+E0069");
    expect(nameOf(TAGGED.slice(0, 2))).toBe("tag character (hides “i”)");
  });

  it("finds them in every string of a value, keys included, once each", () => {
    expect(hiddenIn({ channel: "#general", text: `x${RLO}y${PDF}`, nested: [{ [`k${RLO}`]: 1 }], n: 3 })).toEqual([RLO, PDF]);
    expect(hiddenIn({ text: "nothing to see", list: ["a", 1, null] })).toEqual([]);
  });

  it("escapes them in the exact JSON, which decodes to the same value", () => {
    const value = { text: `pay ${RLO}1234-9876${PDF} today`, tags: TAGGED, plain: "é ü 👍" };
    const json = exactJson(value);
    expect(json).toContain('"text": "pay \\u202e1234-9876\\u202c today"');
    expect(json).toContain('"plain": "é ü 👍"');
    expect(hiddenIn(json)).toEqual([]);
    expect(JSON.parse(json)).toEqual(value);
    expect(exactJson({ a: RLO }, 0)).toBe('{"a":"\\u202e"}');
  });

  it("the offline judge refuses an input that hides characters, and allows the same input without them", () => {
    const base = { category: "external_send", taintSources: [] };
    expect(offlineVerdict({ ...base, input: { channel: "#general", text: `pay ${RLO}1234-9876${PDF}` } })).toEqual({
      decision: "deny",
      reason: "Its input holds hidden characters that change how it reads (U+202E, U+202C).",
    });
    expect(offlineVerdict({ ...base, input: { channel: "#general", text: "pay 1234-9876" } }).decision).toBe("allow");
  });
});
