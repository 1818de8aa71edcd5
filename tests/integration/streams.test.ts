import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as approvalsStreamRoute } from "../../app/api/approvals/stream/route";
import { revokeSession, revokeUserSessions } from "../../lib/auth/sessions";
import { authSessions, memberships } from "../../lib/db/schema";
import { STREAM_ERROR_EVENT } from "../../lib/errors";
import { route } from "../../lib/http/route";
import { eventStreamResponse, type SseItem } from "../../lib/http/sse";
import { approvalsTopic } from "../../lib/safety/approvals";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

/** Reads a streamed body frame by frame (frames end with a blank line). */
function frameReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async function next(): Promise<string | null> {
    for (;;) {
      const end = buffered.indexOf("\n\n");
      if (end >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        return frame;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

/**
 * A stream route as every real one is built (route → eventStreamResponse with
 * the route's own `stillAllowed`), whose items the test hands out one by one.
 */
function probeStream() {
  const queue: ((item: SseItem) => void)[] = [];
  const waiting: SseItem[] = [];
  const push = (item: SseItem) => {
    const taker = queue.shift();
    if (taker) taker(item);
    else waiting.push(item);
  };
  async function* items(): AsyncGenerator<SseItem> {
    for (let i = 0; i < 50; i++) yield waiting.shift() ?? (await new Promise<SseItem>((resolve) => queue.push(resolve)));
  }
  const GET = route({ role: "member" }, async ({ stillAllowed }) => eventStreamResponse(items(), { stillAllowed, recheckMs: 0 }));
  return { GET, push };
}

const sessionIdOf = async (s: ReturnType<ReturnType<typeof useTestServer>>, userId: string) =>
  (await s.db.select({ id: authSessions.id }).from(authSessions).where(eq(authSessions.userId, userId)))[0]!.id;

describe("open event streams follow the session and the membership", () => {
  const server = useTestServer();

  async function person() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Streams", owner);
    const member = await makeUser(s.db, ws.id, "member");
    return { s, ws, owner, member, cookie: await sessionCookie(s, member) };
  }

  it("an open stream ends with stream_error unauthorized:session once its session is signed out", async () => {
    const { s, ws, member, cookie } = await person();
    const probe = probeStream();
    const next = frameReader(await probe.GET(jsonRequest("/api/probe", { cookie, workspace: ws.slug })));
    expect(await next()).toBe("retry: 2000");
    probe.push({ kind: "event", event: "tick", data: { n: 1 } });
    expect(await next()).toBe('event: tick\ndata: {"n":1}');
    await revokeSession(s.db, await sessionIdOf(s, member.id));
    probe.push({ kind: "heartbeat" });
    const ended = await next();
    expect(ended).toContain(`event: ${STREAM_ERROR_EVENT}`);
    expect(ended).toContain('"code":"unauthorized:session"');
    expect(await next()).toBeNull();
  });

  it("an open stream ends once its person is removed from the workspace, while an unaffected one goes on", async () => {
    const { s, ws, owner, member, cookie } = await person();
    const kept = probeStream();
    const keptNext = frameReader(await kept.GET(jsonRequest("/api/probe", { cookie: await sessionCookie(s, owner), workspace: ws.slug })));
    const removed = probeStream();
    const removedNext = frameReader(await removed.GET(jsonRequest("/api/probe", { cookie, workspace: ws.slug })));
    await keptNext();
    await removedNext();
    await s.db.delete(memberships).where(eq(memberships.userId, member.id));
    removed.push({ kind: "heartbeat" });
    kept.push({ kind: "heartbeat" });
    expect(await removedNext()).toContain('"code":"unauthorized:session"');
    expect(await keptNext()).toBe(": heartbeat");
  });

  it("the approvals stream of a signed-out person stops: its next count is not sent", async () => {
    const { s, ws, member, cookie } = await person();
    const next = frameReader(await approvalsStreamRoute(jsonRequest("/api/approvals/stream", { cookie, workspace: ws.slug })));
    expect(await next()).toBe("retry: 3000");
    expect(await next()).toBe('event: approvals\ndata: {"pending":0}');
    await revokeUserSessions(s.db, member.id, "password_reset");
    // The default recheck interval has not passed yet: prove the check is what ends it by waiting it out.
    await new Promise((resolve) => setTimeout(resolve, 10_050));
    await s.bus.publish(approvalsTopic(ws.id), { approvalId: "x", status: "pending" });
    const ended = await next();
    expect(ended).toContain('"code":"unauthorized:session"');
    expect(await next()).toBeNull();
  }, 30_000);
});
