import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as cancelRoute } from "../../app/api/runs/[id]/cancel/route";
import { GET as eventsRoute } from "../../app/api/runs/[id]/events/route";
import { GET as getSessionRoute, PATCH as patchSessionRoute } from "../../app/api/sessions/[id]/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { GET as listSessionsRoute, POST as createSessionRoute } from "../../app/api/sessions/route";
import { agentRuns, messages, sessions } from "../../lib/db/schema";
import { RUN_ID_HEADER } from "../../lib/chats/chat-schemas";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { readFrames } from "../support/sse";

describe("chat routes", () => {
  const server = useTestServer();

  async function ownerCookie() {
    const s = server();
    const owner = await demoOwner(s.db);
    return { s, owner, cookie: await sessionCookie(s, owner) };
  }

  async function newChat(cookie: string, agentHandle = "scout") {
    const res = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentHandle } }));
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  }

  it("starts a chat, streams the offline model's reply as SSE, and keeps the history", async () => {
    const { s, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie);
    const posted = await postMessageRoute(
      jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "remember the demo is on Tuesday" } }),
      params({ id: sessionId }),
    );
    expect(posted.status).toBe(202);
    const { runId } = await posted.json();

    const res = await eventsRoute(jsonRequest(`/api/runs/${runId}/events`, { cookie }), params({ id: runId }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = await readFrames(res);
    expect(frames.map((f) => Number(f.id))).toEqual(frames.map((_, i) => i + 1));
    expect(frames[0]).toMatchObject({ event: "run_started", data: { offline: true, agentHandle: "scout" } });
    expect(frames.at(-1)?.event).toBe("run_completed");
    const step = frames.find((f) => f.event === "step_finished");
    expect(step?.data).toMatchObject({ tool: "memory.remember", status: "succeeded" });
    const streamed = frames.filter((f) => f.event === "text").map((f) => f.data!.delta).join("");

    const history = await (await getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie }), params({ id: sessionId }))).json();
    expect(history.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect(history.messages[1].content).toBe(streamed);
    expect(history.messages[1].steps[0]).toMatchObject({ tool: "memory.remember", status: "succeeded", input: { text: "the demo is on Tuesday" } });
    expect(history.messages[1].run).toMatchObject({ id: runId, state: "succeeded" });
    expect(history.messages[1].run.credits).toBeGreaterThan(0);

    const replay = await readFrames(
      await eventsRoute(jsonRequest(`/api/runs/${runId}/events`, { cookie, headers: { "last-event-id": "3" } }), params({ id: runId })),
    );
    expect(replay).toEqual(frames.slice(3));
    const after = await readFrames(await eventsRoute(jsonRequest(`/api/runs/${runId}/events?after=5`, { cookie }), params({ id: runId })));
    expect(after).toEqual(frames.slice(5));

    const list = await (await listSessionsRoute(jsonRequest("/api/sessions", { cookie }))).json();
    expect(list.sessions.map((x: { id: string }) => x.id)).toContain(sessionId);
    await s.runtime.drain();
  });

  it("a message asked for as an event stream is answered with its reply's events, exactly those of the run's events route", async () => {
    const { s, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie);
    const sse = { accept: "text/event-stream" };
    const res = await postMessageRoute(
      jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "remember the demo is on Tuesday" }, headers: sse }),
      params({ id: sessionId }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const runId = res.headers.get(RUN_ID_HEADER)!;
    const frames = await readFrames(res);
    expect(frames.map((f) => Number(f.id))).toEqual(frames.map((_, i) => i + 1));
    expect(frames[0]).toMatchObject({ event: "run_started", data: { runId, agentHandle: "scout" } });
    expect(frames.at(-1)?.event).toBe("run_completed");
    await s.runtime.drain();
    // The same events as the run's own stream, and one run with the stored reply they spell.
    const replay = await readFrames(await eventsRoute(jsonRequest(`/api/runs/${runId}/events`, { cookie }), params({ id: runId })));
    expect(replay).toEqual(frames);
    const runs = await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessionId));
    expect(runs.map((r) => [r.id, r.state])).toEqual([[runId, "succeeded"]]);
    const stored = await s.db.select().from(messages).where(eq(messages.sessionId, sessionId));
    expect(stored.find((m) => m.role === "assistant")?.content).toBe(frames.filter((f) => f.event === "text").map((f) => f.data!.delta).join(""));
  });

  it("a message asked for as a stream and refused is answered as JSON, and starts nothing", async () => {
    const { s, owner, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie, "atlas");
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const post = (text: string, as = cookie) =>
      postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie: as, body: { text }, headers: { accept: "text/event-stream" } }), params({ id: sessionId }));
    const codeOf = async (res: Response) => [res.status, res.headers.get("content-type"), (await res.json()).code];
    expect(await codeOf(await post("   "))).toEqual([400, "application/json", "bad_request:body"]);
    expect(await codeOf(await post("hello", await sessionCookie(s, member)))).toEqual([404, "application/json", "not_found:session"]);
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessionId))).toHaveLength(0);
    const first = await post("tell me everything you can do");
    expect(first.status).toBe(200);
    expect(await codeOf(await post("again"))).toEqual([409, "application/json", "conflict:run"]);
    await readFrames(first);
    await s.runtime.drain();
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessionId))).toHaveLength(1);
    expect((await s.db.select().from(messages).where(eq(messages.sessionId, sessionId))).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a chat is fresh until a message is sent in it or it is renamed, in the list, in its history and in a search", async () => {
    const { s, cookie } = await ownerCookie();
    const [untouched, written, renamed] = [await newChat(cookie), await newChat(cookie), await newChat(cookie)];
    const sent = await postMessageRoute(jsonRequest(`/api/sessions/${written}/messages`, { method: "POST", cookie, body: { text: "hello fresh" } }), params({ id: written }));
    expect(sent.status).toBe(202);
    await waitForRun(s.db, ((await sent.json()) as { runId: string }).runId);
    const rename = await patchSessionRoute(jsonRequest(`/api/sessions/${renamed}`, { method: "PATCH", cookie, body: { title: "hello named" } }), params({ id: renamed }));
    expect(rename.status).toBe(200);

    const listed = (await (await listSessionsRoute(jsonRequest("/api/sessions", { cookie }))).json()) as { sessions: { id: string; fresh: boolean }[] };
    const freshOf = new Map(listed.sessions.map((x) => [x.id, x.fresh]));
    expect([freshOf.get(untouched), freshOf.get(written), freshOf.get(renamed)]).toEqual([true, false, false]);
    const history = async (id: string) => ((await (await getSessionRoute(jsonRequest(`/api/sessions/${id}`, { cookie }), params({ id }))).json()) as { session: { fresh: boolean } }).session.fresh;
    expect([await history(untouched), await history(written)]).toEqual([true, false]);
    const found = (await (await listSessionsRoute(jsonRequest("/api/sessions?q=hello", { cookie }))).json()) as { sessions: { id: string; fresh: boolean }[] };
    expect(found.sessions.filter((x) => x.id === written || x.id === renamed).map((x) => x.fresh)).toEqual([false, false]);
  });

  it("refuses a second message while the agent is still answering (409 conflict:run)", async () => {
    const { s, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie, "atlas");
    const first = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "hello there" } }), params({ id: sessionId }));
    const second = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "again" } }), params({ id: sessionId }));
    expect(second.status).toBe(409);
    expect((await second.json()).code).toBe("conflict:run");
    await waitForRun(s.db, (await first.json()).runId);
  });

  it("five messages sent to one chat at the same moment start one run: the other four get 409 conflict:run and store nothing", async () => {
    const { s, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie, "atlas");
    const sent = await Promise.all(
      ["one", "two", "three", "four", "five"].map((text) =>
        postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text } }), params({ id: sessionId })),
      ),
    );
    const started = sent.filter((r) => r.status === 202);
    const refused = sent.filter((r) => r.status === 409);
    expect(started).toHaveLength(1);
    expect(refused).toHaveLength(4);
    const { runId } = await started[0]!.json();
    for (const res of refused) {
      const body = await res.json();
      expect(body.code).toBe("conflict:run");
      expect(body.details).toEqual({ runId });
    }
    await waitForRun(s.db, runId);
    // One question and its reply: the refused messages left nothing behind.
    const history = await getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie }), params({ id: sessionId }));
    const { messages } = await history.json();
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
  });

  it("validates input: unknown agent 404, empty text 400, bad ids 400", async () => {
    const { cookie } = await ownerCookie();
    const unknown = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentHandle: "nobody" } }));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe("not_found:agent");
    const bad = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentId: "nope" } }));
    expect(bad.status).toBe(400);
    const sessionId = await newChat(cookie);
    const empty = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "   " } }), params({ id: sessionId }));
    expect(empty.status).toBe(400);
    expect((await empty.json()).code).toBe("bad_request:body");
    const badRun = await eventsRoute(jsonRequest("/api/runs/not-a-uuid/events", { cookie }), params({ id: "not-a-uuid" }));
    expect(badRun.status).toBe(400);
    expect((await badRun.json()).code).toBe("bad_request:params");
  });

  it("another workspace's sessions and runs do not exist for you (404)", async () => {
    const { s, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie);
    const posted = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "hi" } }), params({ id: sessionId }));
    const { runId } = await posted.json();
    await waitForRun(s.db, runId);

    const stranger = await makeUser(s.db);
    await makeWorkspace(s.db, "Outsiders", stranger);
    const theirCookie = await sessionCookie(s, stranger);
    const checks: [Promise<Response>, string][] = [
      [getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie: theirCookie }), params({ id: sessionId })), "not_found:session"],
      [postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie: theirCookie, body: { text: "x" } }), params({ id: sessionId })), "not_found:session"],
      [eventsRoute(jsonRequest(`/api/runs/${runId}/events`, { cookie: theirCookie }), params({ id: runId })), "not_found:run"],
      [cancelRoute(jsonRequest(`/api/runs/${runId}/cancel`, { method: "POST", cookie: theirCookie }), params({ id: runId })), "not_found:run"],
    ];
    for (const [pending, code] of checks) {
      const res = await pending;
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe(code);
    }
  });

  it("a member cannot read another member's chat; a reviewer can, but cannot write in it", async () => {
    const { s, owner, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie);
    const [before] = await s.db.select().from(sessions).where(eq(sessions.id, sessionId));
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const asMember = await getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie: await sessionCookie(s, member) }), params({ id: sessionId }));
    expect(asMember.status).toBe(404);
    const reviewerCookie = await sessionCookie(s, reviewer);
    const asReviewer = await getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie: reviewerCookie }), params({ id: sessionId }));
    expect(asReviewer.status).toBe(200);
    const write = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie: reviewerCookie, body: { text: "x" } }), params({ id: sessionId }));
    expect(write.status).toBe(403);
    expect((await write.json()).code).toBe("forbidden:session");
    const memberWrite = await postMessageRoute(
      jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie: await sessionCookie(s, member), body: { text: "x" } }),
      params({ id: sessionId }),
    );
    expect(memberWrite.status).toBe(404);
    expect((await memberWrite.json()).code).toBe("not_found:session");
    // Neither refusal wrote anything: no message, no run, the chat's title and time as they were.
    expect(await s.db.select().from(messages).where(eq(messages.sessionId, sessionId))).toHaveLength(0);
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessionId))).toHaveLength(0);
    const [chat] = await s.db.select().from(sessions).where(eq(sessions.id, sessionId));
    expect(chat!.titleChosen).toBe(false);
    expect(chat!.title).toBe(before!.title);
    expect(chat!.updatedAt.getTime()).toBe(before!.updatedAt.getTime());
  });

  it("cancel through the API ends the run as cancelled", async () => {
    const { s, cookie } = await ownerCookie();
    const sessionId = await newChat(cookie, "atlas");
    const posted = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "tell me everything you can do" } }), params({ id: sessionId }));
    const { runId } = await posted.json();
    const res = await cancelRoute(jsonRequest(`/api/runs/${runId}/cancel`, { method: "POST", cookie }), params({ id: runId }));
    expect(res.status).toBe(202);
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_cancelled");
  });
});
