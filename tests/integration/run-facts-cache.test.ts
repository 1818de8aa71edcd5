import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { GET as eventsRoute } from "../../app/api/runs/[id]/events/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { DELETE as deleteSessionRoute } from "../../app/api/sessions/[id]/route";
import { RunFactsCache, runFactsCache } from "../../lib/access/run-facts-cache";
import { recordQueries } from "../../lib/db/query-count";
import { createChatRun } from "../../lib/runs";
import { createChat } from "../../lib/chats/chats";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { readFrames } from "../support/sse";

describe("a run's access facts, kept once per process", () => {
  const server = useTestServer();

  it("a chat run this process started is known without a read, and only in its own workspace", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { handle: "scout" } });
    const cookie = await sessionCookie(s, owner);
    const posted = await postMessageRoute(
      jsonRequest(`/api/sessions/${chat.id}/messages`, { method: "POST", cookie, workspace: "demo", body: { text: "hello" } }),
      params({ id: chat.id }),
    );
    expect(posted.status).toBe(202);
    const { runId } = (await posted.json()) as { runId: string };
    await waitForRun(s.db, runId);

    const known = await recordQueries(() => runFactsCache(s.db).get(owner.workspaceId, runId));
    expect(known.queries).toHaveLength(0);
    expect(known.result).toEqual({ userId: owner.id, trigger: "chat", sessionId: chat.id });
    // The same facts as the table's.
    expect(await new RunFactsCache(s.db).get(owner.workspaceId, runId)).toEqual(known.result);

    const stranger = await makeUser(s.db);
    const elsewhere = await makeWorkspace(s.db, "Elsewhere", stranger);
    const asked = await recordQueries(() => runFactsCache(s.db).get(elsewhere.id, runId));
    expect(asked.queries).toHaveLength(1);
    expect(asked.result).toBeUndefined();
  });

  it("a run started by another process is read once for streams that open together, and the rule is applied to what was read", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { handle: "scout" } });
    // Written as another process would: this process's cache is not told.
    const { runId } = await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: chat.id, userId: owner.id, text: "private", owner: "another-process" });

    const fresh = new RunFactsCache(s.db);
    const together = await recordQueries(() => Promise.all([fresh.get(owner.workspaceId, runId), fresh.get(owner.workspaceId, runId), fresh.get(owner.workspaceId, runId)]));
    expect(together.queries).toHaveLength(1);
    expect(new Set(together.result.map((f) => JSON.stringify(f))).size).toBe(1);
    expect(together.result[0]).toEqual({ userId: owner.id, trigger: "chat", sessionId: chat.id });

    // Another member of the workspace may not know this private run exists, whether the facts were read or kept.
    const asMember = await sessionCookie(s, member);
    for (let i = 0; i < 2; i++) {
      const refused = await eventsRoute(jsonRequest(`/api/runs/${runId}/events`, { cookie: asMember, workspace: "demo" }), params({ id: runId }));
      expect(refused.status).toBe(404);
      expect(((await refused.json()) as { code: string }).code).toBe("not_found:run");
    }
  });

  it("the runs of a batch are read in one query, shared by each run's later ask; a run not found is read again", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const started: string[] = [];
    for (let i = 0; i < 3; i++) {
      const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { handle: "scout" } });
      started.push((await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: chat.id, userId: owner.id, text: `batch ${i}`, owner: "another-process" })).runId);
    }
    const missing = crypto.randomUUID();
    const cache = new RunFactsCache(s.db);
    const batch = await recordQueries(async () => {
      cache.prefetch(owner.workspaceId, [...started, started[0], null, missing]);
      return Promise.all([...started, missing].map((id) => cache.get(owner.workspaceId, id)));
    });
    expect(batch.queries).toHaveLength(1);
    expect(batch.result.slice(0, 3)).toEqual(await Promise.all(started.map((id) => new RunFactsCache(s.db).get(owner.workspaceId, id))));
    expect(batch.result[0]).toMatchObject({ userId: owner.id, trigger: "chat" });
    expect(batch.result[3]).toBeUndefined();

    const again = await recordQueries(async () => {
      cache.prefetch(owner.workspaceId, started);
      return Promise.all([...started, missing].map((id) => cache.get(owner.workspaceId, id)));
    });
    expect(again.queries).toHaveLength(1); // only the run that was not found
    expect(again.result).toEqual(batch.result);
  });

  it("a run whose chat was deleted here is gone from its stream (404), and a run id written in capitals is the same run", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { handle: "scout" } });
    const posted = await postMessageRoute(
      jsonRequest(`/api/sessions/${chat.id}/messages`, { method: "POST", cookie, workspace: "demo", body: { text: "hello" } }),
      params({ id: chat.id }),
    );
    const { runId } = (await posted.json()) as { runId: string };
    await waitForRun(s.db, runId);

    const upper = runId.toUpperCase();
    const shouted = await eventsRoute(jsonRequest(`/api/runs/${upper}/events`, { cookie, workspace: "demo" }), params({ id: upper }));
    expect(shouted.status).toBe(200);
    expect((await readFrames(shouted)).at(-1)?.event).toBe("run_completed");

    const deleted = await deleteSessionRoute(jsonRequest(`/api/sessions/${chat.id}`, { method: "DELETE", cookie, workspace: "demo" }), params({ id: chat.id }));
    expect(deleted.status).toBe(204);
    for (const id of [runId, upper]) {
      const gone = await eventsRoute(jsonRequest(`/api/runs/${id}/events`, { cookie, workspace: "demo" }), params({ id }));
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { code: string }).code).toBe("not_found:run");
    }
  });
});
