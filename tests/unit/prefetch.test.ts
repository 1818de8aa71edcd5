import { describe, expect, it, vi } from "vitest";
import { z } from "zod/mini";
import { prefetch, prefetchState } from "../../lib/http/prefetch";
import { isoDate } from "../../lib/shared-schemas";

const sessionsSchema = z.object({ sessions: z.array(z.object({ id: z.string(), createdAt: isoDate })) });

describe("server prefetch", () => {
  it("holds what the browser would have parsed from the reply: dates as ISO strings, unknown fields left out", async () => {
    const at = new Date("2026-12-01T10:00:00Z");
    const state = await prefetchState([prefetch(["chat-sessions", "acme"], sessionsSchema, async () => ({ sessions: [{ id: "s1", createdAt: at, secret: "x" }] }))]);
    expect(state.queries).toHaveLength(1);
    expect(state.queries[0]!.queryKey).toEqual(["chat-sessions", "acme"]);
    expect(state.queries[0]!.state.data).toEqual({ sessions: [{ id: "s1", createdAt: "2026-12-01T10:00:00.000Z" }] });
  });

  it("leaves out a read that fails or does not match its schema, so the browser asks the API itself", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const state = await prefetchState([
      prefetch(["a"], sessionsSchema, async () => {
        throw new Error("not found");
      }),
      prefetch(["b"], sessionsSchema, async () => ({ sessions: [{ id: 1 as unknown as string, createdAt: "now" }] })),
      false,
      prefetch(["c"], sessionsSchema, async () => ({ sessions: [] })),
    ]);
    quiet.mockRestore();
    expect(state.queries.map((q) => q.queryKey)).toEqual([["c"]]);
  });
});
