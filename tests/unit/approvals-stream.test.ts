import { describe, expect, it } from "vitest";
import { pendingMessageSchema } from "../../lib/client/approvals-stream";

describe("the approvals stream's message", () => {
  it("takes a whole count from 0 and refuses anything else", () => {
    expect(pendingMessageSchema.safeParse({ pending: 3 })).toEqual({ success: true, data: { pending: 3 } });
    expect(pendingMessageSchema.safeParse({ pending: 0 })).toEqual({ success: true, data: { pending: 0 } });
    for (const bad of [{ pending: -1 }, { pending: 1.5 }, { pending: "2" }, {}, null, 4, { pending: Number.POSITIVE_INFINITY }]) {
      expect(pendingMessageSchema.safeParse(bad)).toEqual({ success: false });
    }
  });
});
