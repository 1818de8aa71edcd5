import { describe, expect, it } from "vitest";
import { contrast, DARK_INK, inkOn, LIGHT_INK, relativeLuminance } from "@/lib/client/text-on-color";

const hex = (c: string): [number, number, number] => [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
const ratio = (a: string, b: string) => contrast(relativeLuminance(hex(a)), relativeLuminance(hex(b)));

describe("the ink for an agent's colour", () => {
  it("writes dark on the demo agents' light colours and white on dark ones", () => {
    expect(inkOn("#f59e0b")).toBe(DARK_INK); // amber
    expect(inkOn("#10b981")).toBe(DARK_INK); // green
    expect(inkOn("#0ea5e9")).toBe(DARK_INK); // sky blue
    expect(inkOn("#6366f1")).toBe(LIGHT_INK); // indigo
    expect(inkOn("#475569")).toBe(LIGHT_INK); // slate
    expect(inkOn("#000000")).toBe(LIGHT_INK);
    expect(inkOn("#FFFFFF")).toBe(DARK_INK);
  });

  it("picks the ink with the higher contrast", () => {
    for (const color of ["#f59e0b", "#10b981", "#0ea5e9", "#6366f1", "#475569", "#ef4444", "#8b5cf6", "#ec4899"]) {
      const ink = inkOn(color);
      const other = ink === DARK_INK ? LIGHT_INK : DARK_INK;
      expect(ratio(color, ink)).toBeGreaterThanOrEqual(ratio(color, other));
    }
  });

  it("reaches 4.5:1 on the demo agents' colours, where white gave 2.2–2.8:1", () => {
    for (const color of ["#f59e0b", "#10b981", "#0ea5e9"]) {
      expect(ratio(color, LIGHT_INK)).toBeLessThan(3);
      expect(ratio(color, inkOn(color))).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("falls back to white for what is not a #rrggbb colour", () => {
    expect(inkOn("indigo")).toBe(LIGHT_INK);
  });
});
