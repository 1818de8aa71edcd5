import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/mini";
import { apiFetch, WORKSPACE_HEADER } from "../../lib/client/api";
import { isAppError } from "../../lib/errors";
import { sentenceFor } from "../../lib/error-sentences";

const agentsSchema = z.object({ agents: z.array(z.object({ id: z.string(), handle: z.string() })) });

function reply(status: number, body?: unknown) {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
    body === undefined ? new Response(null, { status }) : Response.json(body, { status }),
  );
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("apiFetch with a schema", () => {
  it("returns the reply parsed with the schema, sent to the named workspace", async () => {
    const fetch = reply(200, { agents: [{ id: "a1", handle: "scout", extra: true }] });
    const data = await apiFetch("/api/agents", { schema: agentsSchema, workspace: "acme" });
    expect(data).toEqual({ agents: [{ id: "a1", handle: "scout" }] });
    const headers = fetch.mock.calls[0]![1]!.headers as Record<string, string>;
    expect(headers[WORKSPACE_HEADER]).toBe("acme");
  });

  it("throws internal:contract, naming the path and the field, when the reply has another shape", async () => {
    reply(200, { agents: [{ id: "a1", handle: 7 }] });
    const error = await thrown(apiFetch("/api/agents?q=x", { schema: agentsSchema }));
    expect(isAppError(error) && error.code).toBe("internal:contract");
    expect((error as Error).message).toContain("/api/agents ");
    expect((error as Error).message).toContain("agents.0.handle");
    expect((error as Error).message).not.toContain("q=x");
    expect(sentenceFor("internal:contract")).toMatch(/Reload the page/);
  });

  it("throws internal:contract for an empty reply where a body was expected", async () => {
    reply(204);
    const error = await thrown(apiFetch("/api/agents", { schema: agentsSchema }));
    expect(isAppError(error) && error.code).toBe("internal:contract");
  });

  it("passes a 4xx code through unchanged, without checking the body against the schema", async () => {
    reply(404, { code: "not_found:agent", message: "No such agent." });
    const error = await thrown(apiFetch("/api/agents/x", { schema: agentsSchema }));
    expect(isAppError(error) && error.code).toBe("not_found:agent");
    expect(isAppError(error) && error.status).toBe(404);
    expect((error as Error).message).toBe("No such agent.");
  });

  it("rebuilds a code-less 403 as forbidden:response", async () => {
    reply(403, "nope");
    const error = await thrown(apiFetch("/api/agents", { schema: agentsSchema }));
    expect(isAppError(error) && error.code).toBe("forbidden:response");
  });

  it("without a schema, returns a 204 as undefined", async () => {
    reply(204);
    await expect(apiFetch("/api/connections/1", { method: "DELETE" })).resolves.toBeUndefined();
  });
});
