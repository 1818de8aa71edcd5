import { describe, expect, it } from "vitest";
import { withEditNote } from "../../lib/runtime/tool-call";

describe("what the model reads after a reviewer edited its call", () => {
  it("says the input changed, with the input used and the result as JSON", () => {
    const note = JSON.parse(withEditNote(JSON.stringify({ delivered: "outbox", outboxId: "o1" }), { channel: "#ops", text: "edited" }));
    expect(note).toEqual({ note: "A reviewer changed the input before approving.", inputUsed: { channel: "#ops", text: "edited" }, result: { delivered: "outbox", outboxId: "o1" } });
  });

  it("keeps a result cut at the size limit as the text it is, instead of failing the run on its broken JSON", () => {
    const cut = `${JSON.stringify({ body: "x".repeat(30_000) }).slice(0, 20_000)}…(truncated)`;
    const note = JSON.parse(withEditNote(cut, { url: "https://example.test" }));
    expect(note.result).toBe(cut);
    expect(note.inputUsed).toEqual({ url: "https://example.test" });
  });
});
