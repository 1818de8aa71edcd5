import { rowsOf } from "../../lib/db/client";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { POST as cancelRoute } from "../../app/api/runs/[id]/cancel/route";
import { GET as getAgentRoute, PATCH as patchAgentRoute } from "../../app/api/agents/[id]/route";
import { statusChange } from "../../components/agents/agent-edits";
import { GET as getPolicyRoute, PUT as putPolicyRoute } from "../../app/api/policy/route";
import { GET as matrixRoute } from "../../app/api/feed/matrix/route";
import { GET as feedRoute } from "../../app/api/feed/route";
import { GET as usageRoute } from "../../app/api/usage/route";
import { GET as usageSummaryRoute } from "../../app/api/usage/summary/route";
import { GET as usageCsvRoute } from "../../app/api/usage/export.csv/route";
import { GET as getSessionRoute } from "../../app/api/sessions/[id]/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { POST as createSessionRoute } from "../../app/api/sessions/route";
import { POST as postRoomRoute } from "../../app/api/rooms/[id]/messages/route";
import { POST as createRoomRoute } from "../../app/api/rooms/route";
import { agentRuns, messages, steps } from "../../lib/db/schema";
import { route } from "../../lib/http/route";
import { consumeRunStart, createRunStartLimiter } from "../../lib/runtime/run-limit";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { getRunRow, makeAgent, textOf, useScriptedModel, waitForRun } from "../support/runtime";
import { APP_ORIGIN, jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { useLocalWebPage } from "../support/web-page";

describe("errors and bad input", () => {
  const server = useTestServer();

  async function owner() {
    const s = server();
    const user = await demoOwner(s.db);
    return { s, user, cookie: await sessionCookie(s, user) };
  }

  async function newChat(cookie: string, agentHandle: string) {
    const res = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentHandle } }));
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  }

  async function post(cookie: string, sessionId: string, text: string) {
    return postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text } }), params({ id: sessionId }));
  }

  async function cancel(cookie: string, runId: string) {
    return cancelRoute(jsonRequest(`/api/runs/${runId}/cancel`, { method: "POST", cookie }), params({ id: runId }));
  }

  describe("expected runtime errors answer their own status through the routes", () => {
    it("cancelling a finished run answers 409 conflict:run, not 500", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId);
      useScriptedModel(s, [textTurn(["done"])]);
      const sessionId = await newChat(cookie, agent.handle);
      const { runId } = await (await post(cookie, sessionId, "hello")).json();
      await waitForRun(s.db, runId);
      const res = await cancel(cookie, runId);
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe("conflict:run");
      expect((await getRunRow(s.db, runId)).state).toBe("succeeded");
    });

    it("cancelling someone else's chat run answers 403 forbidden:run to a reviewer (who may read it) and 404 to a member (who may not), and leaves it running", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId);
      useScriptedModel(s, [textTurn(["slow", " reply", " here"], undefined, 300)]);
      const sessionId = await newChat(cookie, agent.handle);
      const { runId } = await (await post(cookie, sessionId, "take your time")).json();
      const reviewer = await makeUser(s.db, user.workspaceId, "reviewer");
      const byReviewer = await cancel(await sessionCookie(s, reviewer), runId);
      expect(byReviewer.status).toBe(403);
      expect((await byReviewer.json()).code).toBe("forbidden:run");
      const member = await makeUser(s.db, user.workspaceId, "member");
      const byMember = await cancel(await sessionCookie(s, member), runId);
      expect(byMember.status).toBe(404);
      expect((await byMember.json()).code).toBe("not_found:run");
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
    });

    it("a message while the chat's run is still active answers 409 conflict:run and starts nothing", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId);
      useScriptedModel(s, [textTurn(["one", " two", " three"], undefined, 300)]);
      const sessionId = await newChat(cookie, agent.handle);
      const { runId } = await (await post(cookie, sessionId, "first")).json();
      const second = await post(cookie, sessionId, "second");
      expect(second.status).toBe(409);
      expect(await second.json()).toMatchObject({ code: "conflict:run", details: { runId } });
      await waitForRun(s.db, runId);
      const runs = await s.db.select({ id: agentRuns.id }).from(agentRuns).where(eq(agentRuns.sessionId, sessionId));
      expect(runs).toHaveLength(1);
    });
  });

  describe("emoji cut between two streamed pieces", () => {
    it("PostgreSQL refuses a lone surrogate in jsonb, which is what failed such runs with internal:run", async () => {
      const { s } = await owner();
      await expect(s.db.execute(sql`select ${JSON.stringify({ delta: "\ud83d" })}::jsonb as v`)).rejects.toThrow();
      const whole = await s.db.execute(sql`select (${JSON.stringify({ delta: "\ud83d\ude00" })}::jsonb)->>'delta' as v`);
      expect(rowsOf<{ v: string }>(whole)[0]!.v).toBe("😀");
    });

    it("a scripted reply full of emoji split inside surrogate pairs succeeds, and the stored reply equals the model text", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId);
      const reply = "Ready 🚀🎉 ok 👍🏽 and 👨‍👩‍👧 family, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 done ✅";
      // Cut every second code unit, so most pieces end with the first half of a pair; the pause makes each piece its own journal write.
      const pieces: string[] = [];
      for (let i = 0; i < reply.length; i += 2) pieces.push(reply.slice(i, i + 2));
      expect(pieces.some((p) => /[\ud800-\udbff]$/.test(p))).toBe(true);
      useScriptedModel(s, [textTurn(pieces, undefined, 45)]);
      const sessionId = await newChat(cookie, agent.handle);
      const { runId } = await (await post(cookie, sessionId, "celebrate")).json();
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
      expect(textOf(events)).toBe(reply);
      for (const e of events) if (e.type === "text") expect(e.payload.delta).toBe(e.payload.delta.toWellFormed());
      const history = await (await getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie }), params({ id: sessionId }))).json();
      expect(history.messages.at(-1)).toMatchObject({ role: "assistant", content: reply });
    });

    it("the offline model's streamed pieces of an emoji reply join back into the reply", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId, { model: "offline" });
      const sessionId = await newChat(cookie, agent.handle);
      const text = "remember 🎉🎉🎉 launch 🚀🚀 on Friday 👍🏽👍🏽👍🏽";
      const { runId } = await (await post(cookie, sessionId, text)).json();
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
      const history = await (await getSessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie }), params({ id: sessionId }))).json();
      expect(history.messages.at(-1).content).toBe(textOf(events));
      expect(textOf(events)).toBe(textOf(events).toWellFormed());
    });
  });

  describe("NUL characters", () => {
    it("a message with a NUL character answers 400 bad_request:nul and writes nothing", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId);
      const sessionId = await newChat(cookie, agent.handle);
      const res = await post(cookie, sessionId, "hello\u0000world");
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "bad_request:nul", details: [{ path: "text" }] });
      expect(await s.db.select().from(messages).where(eq(messages.sessionId, sessionId))).toEqual([]);
      expect(await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessionId))).toEqual([]);
    });

    it("a NUL character nested in a JSON body, or in an object key, is refused too", async () => {
      const { cookie } = await owner();
      const nested = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentHandle: "scout", extra: [{ deep: "a\u0000" }] } }));
      expect(nested.status).toBe(400);
      expect((await nested.json()).code).toBe("bad_request:nul");
      const key = await createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentHandle: "scout", ["k\u0000"]: 1 } }));
      expect((await key.json()).code).toBe("bad_request:nul");
    });

    it("a NUL character in a query filter answers 400 bad_request:nul, not 500", async () => {
      const { cookie } = await owner();
      const res = await feedRoute(jsonRequest(`/api/feed?kind=${encodeURIComponent("room_post\u0000")}`, { cookie }));
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("bad_request:nul");
    });

    describe("with a local web page holding NUL characters", () => {
      const pageOrigin = useLocalWebPage(server, "<html><head><title>Nul\u0000 page</title></head><body>before\u0000after &#0; end</body></html>");

      it("fetching a page with NUL characters succeeds with them stripped, and the run finishes", async () => {
        const { s, user, cookie } = await owner();
        const agent = await makeAgent(s.db, user.workspaceId);
        useScriptedModel(s, [toolTurn([{ id: "f1", name: "http.fetch", input: { url: `${pageOrigin()}/` } }]), textTurn(["read it"])]);
        const sessionId = await newChat(cookie, agent.handle);
        const { runId } = await (await post(cookie, sessionId, "fetch it")).json();
        const events = await waitForRun(s.db, runId);
        expect(events.at(-1)?.type).toBe("run_completed");
        const [step] = await s.db.select().from(steps).where(and(eq(steps.runId, runId), eq(steps.tool, "http.fetch")));
        expect(step?.status).toBe("succeeded");
        const output = step!.output as { title?: string; text: string };
        expect(output.text).toContain("beforeafter");
        expect(output.title).toBe("Nul page");
        expect(JSON.stringify(output)).not.toContain("\\u0000");
      });
    });
  });

  describe("request bodies", () => {
    const limit = 1024 * 1024;
    let ran = 0;
    const echo = route({ body: z.object({ text: z.string() }).passthrough() }, async ({ body }) => {
      ran += 1;
      return { length: body.text.length };
    });

    function bodyRequest(cookie: string, body: BodyInit, headers: Record<string, string>) {
      return new Request("http://localhost:3000/api/echo", { method: "POST", headers: { cookie, host: "localhost:3000", origin: APP_ORIGIN, ...headers }, body, duplex: "half" } as RequestInit);
    }

    it("a body over the limit with a Content-Length answers 413 payload_too_large before the handler runs", async () => {
      const { s, cookie } = await owner();
      expect(s.env.CLAWDECK_MAX_BODY_BYTES).toBe(limit);
      const big = JSON.stringify({ text: "x".repeat(limit) });
      ran = 0;
      const res = await echo(bodyRequest(cookie, big, { "content-type": "application/json", "content-length": String(Buffer.byteLength(big)) }));
      expect(res.status).toBe(413);
      expect((await res.json()).code).toBe("payload_too_large:body");
      expect(ran).toBe(0);
    });

    it("a chunked body without Content-Length is counted while it streams and cut off at the limit", async () => {
      const { cookie } = await owner();
      const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
      let pulled = 0;
      const total = 64; // 4 MB offered
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled === 0) controller.enqueue(new TextEncoder().encode('{"text":"'));
          pulled += 1;
          if (pulled > total) controller.close();
          else controller.enqueue(chunk);
        },
      });
      ran = 0;
      const res = await echo(bodyRequest(cookie, stream, { "content-type": "application/json" }));
      expect(res.status).toBe(413);
      expect(ran).toBe(0);
      expect(pulled).toBeLessThan(total);
    });

    it("the same chat message route refuses an oversized message body with 413 and writes nothing", async () => {
      const { s, user, cookie } = await owner();
      const agent = await makeAgent(s.db, user.workspaceId);
      const sessionId = await newChat(cookie, agent.handle);
      const body = JSON.stringify({ text: "y".repeat(limit + 10) });
      const res = await postMessageRoute(
        new Request(`http://localhost:3000/api/sessions/${sessionId}/messages`, { method: "POST", headers: { cookie, host: "localhost:3000", origin: APP_ORIGIN, "content-type": "application/json" }, body }),
        params({ id: sessionId }),
      );
      expect(res.status).toBe(413);
      expect(await s.db.select().from(messages).where(eq(messages.sessionId, sessionId))).toEqual([]);
    });

    it("a body under the limit, sent as application/json with a charset, is read", async () => {
      const { cookie } = await owner();
      ran = 0;
      const res = await echo(bodyRequest(cookie, JSON.stringify({ text: "héllo 👋" }), { "content-type": "Application/JSON; charset=utf-8" }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ length: "héllo 👋".length });
      expect(ran).toBe(1);
    });

    it.each(["text/plain", "text/plain; note=application/json", "application/json-patch+json", "application/jsonx", ""])(
      "a body sent as %j answers 400 bad_request:content_type",
      async (type) => {
        const { cookie } = await owner();
        ran = 0;
        const res = await echo(bodyRequest(cookie, JSON.stringify({ text: "hi" }), type ? { "content-type": type } : {}));
        expect(res.status).toBe(400);
        expect((await res.json()).code).toBe("bad_request:content_type");
        expect(ran).toBe(0);
      },
    );

    it("a body that is not UTF-8 answers 400, not 500", async () => {
      const { cookie } = await owner();
      const res = await echo(bodyRequest(cookie, new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), { "content-type": "application/json" }));
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("bad_request:encoding");
    });
  });

  describe("run starts per person", () => {
    it("after N rapid messages the next answers 429 rate_limited:runs with Retry-After, also for a fresh limiter on the same database", async () => {
      const s = server();
      const { user: boss } = await owner();
      const person = await makeUser(s.db, boss.workspaceId, "member");
      const cookie = await sessionCookie(s, person);
      const agent = await makeAgent(s.db, boss.workspaceId, { model: "offline" });
      const before = { ...s.env };
      s.env.CLAWDECK_RUN_START_LIMIT = 3;
      s.env.CLAWDECK_RUN_START_WINDOW_SECONDS = 600;
      try {
        const sessions = await Promise.all([1, 2, 3, 4].map(() => newChat(cookie, agent.handle)));
        const started: string[] = [];
        for (const id of sessions.slice(0, 3)) {
          const res = await post(cookie, id, "hello");
          expect(res.status).toBe(202);
          started.push((await res.json()).runId);
        }
        const refused = await post(cookie, sessions[3]!, "one more");
        expect(refused.status).toBe(429);
        expect((await refused.json()).code).toBe("rate_limited:runs");
        const retryAfter = Number(refused.headers.get("retry-after"));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(600);
        expect(await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessions[3]!))).toEqual([]);

        // The count lives in the database: another instance's limiter sees it too.
        const fresh = createRunStartLimiter(s.db, { points: 3, windowSeconds: 600 });
        await expect(consumeRunStart(fresh, person.id, { points: 3, windowSeconds: 600 })).rejects.toMatchObject({ code: "rate_limited:runs" });

        // Room posts start runs too, and count against the same limit.
        const { cookie: ownerCookie } = await owner();
        const room = await createRoomRoute(
          jsonRequest("/api/rooms", { method: "POST", cookie: ownerCookie, body: { name: `limit-${Date.now().toString(36)}`, agentIds: [agent.id] } }),
        );
        expect(room.status).toBe(201);
        const roomId = (await room.json()).room.id as string;
        const posted = await postRoomRoute(jsonRequest(`/api/rooms/${roomId}/messages`, { method: "POST", cookie, body: { text: "hi all" } }), params({ id: roomId }));
        expect(posted.status).toBe(429);
        expect(posted.headers.get("retry-after")).not.toBeNull();

        // Someone else is not limited by this person's count.
        const otherCookie = await sessionCookie(s, await makeUser(s.db, boss.workspaceId, "member"));
        const other = await post(otherCookie, await newChat(otherCookie, agent.handle), "hello");
        expect(other.status).toBe(202);
        for (const runId of [...started, (await other.json()).runId]) await waitForRun(s.db, runId);
      } finally {
        Object.assign(s.env, before);
      }
    });
  });

  describe("date ranges", () => {
    const routes = [
      ["/api/feed/matrix", matrixRoute],
      ["/api/usage", usageRoute],
      ["/api/usage/summary", usageSummaryRoute],
      ["/api/usage/export.csv", usageCsvRoute],
    ] as const;

    it.each(routes)("%s answers 400 bad_request:range for an impossible date, not 500", async (path, handler) => {
      const { cookie } = await owner();
      for (const from of ["-271821-04-20", "+275760-09-13T00:00:00Z", "2026-02-30T00:00:00Z", "yesterday"]) {
        const res = await handler(jsonRequest(`${path}?from=${encodeURIComponent(from)}`, { cookie }));
        expect(res.status, from).toBe(400);
        const body = await res.json();
        expect(body.code, from).toBe("bad_request:range");
        expect(body.message).toContain("`from` must be a date and time");
      }
    });

    it.each(routes)("%s answers 400 bad_request:range when from is after to", async (path, handler) => {
      const { cookie } = await owner();
      const to = new Date(Date.now() - 86_400_000).toISOString();
      const from = new Date().toISOString();
      const res = await handler(jsonRequest(`${path}?from=${from}&to=${to}`, { cookie }));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "bad_request:range", message: "`from` must be before `to`." });
    });

    it("the feed matrix still answers a valid range", async () => {
      const { cookie } = await owner();
      const to = new Date().toISOString();
      const from = new Date(Date.now() - 86_400_000).toISOString();
      const res = await matrixRoute(jsonRequest(`/api/feed/matrix?from=${from}&to=${to}`, { cookie }));
      expect(res.status).toBe(200);
    });
  });

  describe("stale agent edits", () => {
    async function patch(cookie: string, id: string, body: unknown) {
      return patchAgentRoute(jsonRequest(`/api/agents/${id}`, { method: "PATCH", cookie, body }), params({ id }));
    }
    async function load(cookie: string, id: string) {
      return (await (await getAgentRoute(jsonRequest(`/api/agents/${id}`, { cookie }), params({ id }))).json()).agent as {
        version: number;
        systemPrompt: string;
        status: string;
        tools: string[];
      };
    }

    it("pausing from an old page after another manager's edit answers 409 conflict:stale, and their edit survives", async () => {
      const s = server();
      const { user: boss, cookie: first } = await owner();
      const other = await sessionCookie(s, await makeUser(s.db, boss.workspaceId, "manager"));
      const agent = await makeAgent(s.db, boss.workspaceId, { model: "offline" });

      const oldPage = await load(first, agent.id);
      const edited = await patch(other, agent.id, { systemPrompt: "Answer in French.", version: oldPage.version });
      expect(edited.status).toBe(200);
      expect((await edited.json()).agent.version).toBe(oldPage.version + 1);

      const stale = await patch(first, agent.id, statusChange(oldPage, "paused"));
      expect(stale.status).toBe(409);
      expect(await stale.json()).toMatchObject({ code: "conflict:stale", details: { version: oldPage.version + 1 } });
      const now = await load(first, agent.id);
      expect(now).toMatchObject({ systemPrompt: "Answer in French.", status: "active", version: oldPage.version + 1 });
    });

    it("a pause sends only the status and the version, and changes nothing else", async () => {
      const s = server();
      const { user: boss, cookie } = await owner();
      const agent = await makeAgent(s.db, boss.workspaceId, { model: "offline", tools: ["memory.recall"] });
      await patch(cookie, agent.id, { systemPrompt: "Be brief.", version: 1 });
      const page = await load(cookie, agent.id);
      const body = statusChange(page, "paused");
      expect(Object.keys(body).sort()).toEqual(["status", "version"]);
      const res = await patch(cookie, agent.id, body);
      expect(res.status).toBe(200);
      expect(await load(cookie, agent.id)).toMatchObject({ status: "paused", systemPrompt: "Be brief.", tools: ["memory.recall"], version: page.version + 1 });
    });

    it("an edit of an agent of another workspace stays 404, whatever version it names", async () => {
      const s = server();
      const { cookie } = await owner();
      const stranger = await makeUser(s.db);
      const elsewhere = await makeWorkspace(s.db, `Elsewhere ${Date.now()}`, stranger);
      const foreign = await makeAgent(s.db, elsewhere.id, { model: "offline" });
      const res = await patch(cookie, foreign.id, { status: "paused", version: 1 });
      expect(res.status).toBe(404);
    });
  });

  describe("stale policy edits", () => {
    it("saving the policy from an old page after another manager's save answers 409 conflict:stale, and their save survives", async () => {
      const s = server();
      const { user: boss, cookie: first } = await owner();
      const other = await sessionCookie(s, await makeUser(s.db, boss.workspaceId, "manager"));
      const read = async (cookie: string) => (await (await getPolicyRoute(jsonRequest("/api/policy", { cookie }))).json()).policy;
      const put = (cookie: string, body: unknown) => putPolicyRoute(jsonRequest("/api/policy", { method: "PUT", cookie, body }));

      const oldPage = await read(first);
      const base = { overrides: oldPage.overrides, fourEyesCategories: oldPage.fourEyesCategories };
      const saved = await put(other, { ...base, approvalTtlSeconds: 7200, version: oldPage.version });
      expect(saved.status).toBe(200);
      expect((await saved.json()).policy.version).toBe(oldPage.version + 1);

      const stale = await put(first, { ...base, approvalTtlSeconds: 3600, version: oldPage.version });
      expect(stale.status).toBe(409);
      expect((await stale.json()).code).toBe("conflict:stale");
      expect(await read(first)).toMatchObject({ approvalTtlSeconds: 7200, version: oldPage.version + 1 });
    });
  });
});
