import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE as deleteRoute, GET as getRoute, PATCH as renameRoute } from "../../app/api/sessions/[id]/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { GET as listRoute } from "../../app/api/sessions/route";
import { agentRuns, messages, sessions } from "../../lib/db/schema";
import { createChat } from "../../lib/chats/chats";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

describe("a member's chats: titles, rename, delete, search", () => {
  const server = useTestServer();

  async function people() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const other = await makeUser(s.db, owner.workspaceId, "member");
    const outsider = await makeUser(s.db);
    await makeWorkspace(s.db, "Elsewhere Inc", outsider);
    return { s, owner, agent, member, other, outsider };
  }

  async function say(cookie: string, sessionId: string, text: string) {
    const res = await postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text } }), params({ id: sessionId }));
    expect(res.status).toBe(202);
    return ((await res.json()) as { runId: string }).runId;
  }

  const search = async (cookie: string, q: string) =>
    ((await (await listRoute(jsonRequest(`/api/sessions?q=${encodeURIComponent(q)}`, { cookie }))).json()) as { sessions: { id: string; title: string }[] }).sessions;

  it("a chat is named after its first message, and later messages do not rename it", async () => {
    const { s, owner, agent, member } = await people();
    const cookie = await sessionCookie(s, member);
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: agent.id } });
    await waitForRun(s.db, await say(cookie, chat.id, "  Plan the launch\n of the   spring catalogue for the northern stores and the web shop please "));
    await waitForRun(s.db, await say(cookie, chat.id, "Another question"));
    const [row] = await s.db.select().from(sessions).where(eq(sessions.id, chat.id));
    expect(row?.title).toBe("Plan the launch of the spring catalogue for the northern st…");
    expect(row?.title.length).toBe(60);
  });

  it("its person renames it, and then messages never replace the chosen title; nobody else may rename it", async () => {
    const { s, owner, agent, member, other, outsider } = await people();
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: agent.id } });
    const rename = async (cookie: string, body: unknown) =>
      renameRoute(jsonRequest(`/api/sessions/${chat.id}`, { method: "PATCH", cookie, body }), params({ id: chat.id }));
    const mine = await sessionCookie(s, member);
    const renamed = await rename(mine, { title: "  Spring launch  " });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ id: chat.id, title: "Spring launch" });
    await waitForRun(s.db, await say(mine, chat.id, "first words"));
    expect((await s.db.select().from(sessions).where(eq(sessions.id, chat.id)))[0]?.title).toBe("Spring launch");

    const empty = await rename(mine, { title: "   " });
    expect(empty.status).toBe(400);
    // Another member, the workspace's owner (who may read it, not write it) and another workspace.
    expect((await rename(await sessionCookie(s, other), { title: "Mine now" })).status).toBe(404);
    const asOwner = await rename(await sessionCookie(s, owner), { title: "Owner's" });
    expect(asOwner.status).toBe(403);
    expect((await asOwner.json()).code).toBe("forbidden:session");
    expect((await rename(await sessionCookie(s, outsider), { title: "Theirs" })).status).toBe(404);
    expect((await s.db.select().from(sessions).where(eq(sessions.id, chat.id)))[0]?.title).toBe("Spring launch");
  });

  it("search finds one's own chats by title or by any message, never another member's private chat", async () => {
    const { s, owner, agent, member, other, outsider } = await people();
    const mine = await sessionCookie(s, member);
    const theirs = await sessionCookie(s, other);
    const a = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: agent.id } });
    const b = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: agent.id } });
    const c = await createChat(s.db, { workspaceId: owner.workspaceId, userId: other.id, agent: { id: agent.id } });
    await waitForRun(s.db, await say(mine, a.id, "Budget for the ZEPHYR project"));
    await waitForRun(s.db, await say(mine, b.id, "Holiday rota"));
    await waitForRun(s.db, await say(mine, b.id, "and who covers zephyr on Friday? 100%_sure"));
    await waitForRun(s.db, await say(theirs, c.id, "zephyr salaries, private"));

    expect((await search(mine, "zephyr")).map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect((await search(mine, "rota")).map((x) => x.id)).toEqual([b.id]);
    expect((await search(theirs, "zephyr")).map((x) => x.id)).toEqual([c.id]);
    // The owner reads every chat by its link, but search lists only their own.
    expect(await search(await sessionCookie(s, owner), "zephyr")).toEqual([]);
    expect(await search(await sessionCookie(s, outsider), "zephyr")).toEqual([]);
    // Wildcards are taken literally.
    expect((await search(mine, "100%_")).map((x) => x.id)).toEqual([b.id]);
    expect(await search(mine, "h%z")).toEqual([]);
    expect(await search(mine, "B_dget")).toEqual([]);
  });

  it("deleting removes the chat and its messages; only its person may, and a chat waiting on a run is refused", async () => {
    const { s, owner, agent, member, other, outsider } = await people();
    const mine = await sessionCookie(s, member);
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: agent.id } });
    await waitForRun(s.db, await say(mine, chat.id, "something to forget"));
    const del = async (cookie: string) => deleteRoute(jsonRequest(`/api/sessions/${chat.id}`, { method: "DELETE", cookie }), params({ id: chat.id }));
    expect((await del(await sessionCookie(s, other))).status).toBe(404);
    expect((await del(await sessionCookie(s, outsider))).status).toBe(404);
    expect((await del(await sessionCookie(s, owner))).status).toBe(403);
    expect(await s.db.select().from(messages).where(eq(messages.sessionId, chat.id))).toHaveLength(2);

    const [run] = await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, chat.id));
    await s.db.update(agentRuns).set({ state: "suspended" }).where(eq(agentRuns.id, run!.id));
    const busy = await del(mine);
    expect(busy.status).toBe(409);
    expect((await busy.json()).code).toBe("conflict:session_active");
    await s.db.update(agentRuns).set({ state: "succeeded" }).where(eq(agentRuns.id, run!.id));

    expect((await del(mine)).status).toBe(204);
    expect(await s.db.select().from(messages).where(eq(messages.sessionId, chat.id))).toEqual([]);
    expect((await getRoute(jsonRequest(`/api/sessions/${chat.id}`, { cookie: mine }), params({ id: chat.id }))).status).toBe(404);
    expect((await del(mine)).status).toBe(404);
  });
});
