import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as approvalsStreamRoute } from "../../app/api/approvals/stream/route";
import { GET as runEventsRoute } from "../../app/api/runs/[id]/events/route";
import { POST as cancelRoute } from "../../app/api/runs/[id]/cancel/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { POST as createSessionRoute } from "../../app/api/sessions/route";
import { revokeSession, revokeUserSessions } from "../../lib/auth/sessions";
import { authSessions, memberships } from "../../lib/db/schema";
import { STREAM_ERROR_EVENT } from "../../lib/errors";
import { route } from "../../lib/http/route";
import { eventStreamResponse, type SseItem } from "../../lib/http/sse";
import { approvalsTopic } from "../../lib/safety/approvals";
import { textTurn } from "../../lib/models/scripted";
import { RUN_ID_HEADER } from "../../lib/chats/chat-schemas";
import { makeAgent, useScriptedModel, waitForRun } from "../support/runtime";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

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
  const GET = route({}, async ({ stillAllowed }) => eventStreamResponse(items(), { stillAllowed: Object.assign(() => stillAllowed(), { everyMs: 0 }) }));
  return { GET, push };
}

const sessionIdOf = async (s: ReturnType<ReturnType<typeof useTestServer>>, userId: string) =>
  (await s.db.select({ id: authSessions.id }).from(authSessions).where(eq(authSessions.userId, userId)))[0]!.id;

/** How often this file's streams recheck their viewer's access: a second, so a test can wait it out. */
const RECHECK_SECONDS = 1;

describe("open event streams follow the session and the membership", () => {
  const server = useTestServer({ env: { CLAWDECK_STREAM_RECHECK_SECONDS: String(RECHECK_SECONDS) } });

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
    // The recheck interval has not passed yet: prove the check is what ends it by waiting it out.
    await new Promise((resolve) => setTimeout(resolve, RECHECK_SECONDS * 1000 + 100));
    await s.bus.publish(approvalsTopic(ws.id), { approvalId: "x", status: "pending" });
    const ended = await next();
    expect(ended).toContain('"code":"unauthorized:session"');
    expect(await next()).toBeNull();
  }, 30_000);

  it("a chat's reply, followed on its message's answer and on its run's events route, stops on both once the person signs out; the run goes on", async () => {
    const { s, ws, member, cookie } = await person();
    const agent = await makeAgent(s.db, ws.id, { model: "scripted" });
    // Pieces a quarter of a second apart for fifteen seconds: the reply outlasts the streams' recheck many times over.
    useScriptedModel(s, [textTurn(Array.from({ length: 60 }, (_, i) => `piece ${i}. `), undefined, 250)]);
    const created = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, workspace: ws.slug, body: { agentHandle: agent.handle } }));
    const { id: sessionId } = (await created.json()) as { id: string };
    const answer = await postMessageRoute(
      jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, workspace: ws.slug, body: { text: "go slowly" }, headers: { accept: "text/event-stream" } }),
      params({ id: sessionId }),
    );
    expect(answer.status).toBe(200);
    const runId = answer.headers.get(RUN_ID_HEADER)!;
    const events = await runEventsRoute(jsonRequest(`/api/runs/${runId}/events`, { cookie, workspace: ws.slug }), params({ id: runId }));
    expect(events.status).toBe(200);
    const streams = [frameReader(answer), frameReader(events)];
    for (const next of streams) {
      let frame = await next();
      while (frame !== null && !frame.includes("event: text")) frame = await next();
      expect(frame).toContain("piece 0.");
    }

    await revokeSession(s.db, await sessionIdOf(s, member.id));
    for (const next of streams) {
      let frame = await next();
      while (frame !== null && !frame.includes(STREAM_ERROR_EVENT)) {
        expect(frame).not.toContain("run_completed");
        frame = await next();
      }
      expect(frame).toContain('"code":"unauthorized:session"');
      expect(await next()).toBeNull();
    }
    // Signing out ends what the person watches, not the work: the run is still answering, and is stopped here.
    const again = await sessionCookie(s, member);
    expect((await cancelRoute(jsonRequest(`/api/runs/${runId}/cancel`, { method: "POST", cookie: again, workspace: ws.slug }), params({ id: runId }))).status).toBe(202);
    expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_cancelled");
  }, 40_000);
});
