import { describe, expect, it } from "vitest";
import { GET as filesRoute } from "../../app/api/agents/[id]/files/route";
import { GET as contentRoute } from "../../app/api/agents/[id]/files/content/route";
import { GET as historyRoute } from "../../app/api/agents/[id]/files/history/route";
import { POST as restoreRoute } from "../../app/api/agents/[id]/files/restore/route";
import { GET as computerRoute } from "../../app/api/agents/[id]/computer/route";
import { PATCH as agentRoute } from "../../app/api/agents/[id]/route";
import { POST as stopRoute } from "../../app/api/agents/[id]/computer/stop/route";
import { createChat } from "../../lib/chats/chats";
import { writeFiles } from "../../lib/computers/files";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, settle, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const TOOLS = ["shell.exec", "files.read", "files.write", "files.list", "files.delete"];

describe("an agent's files through the API: who reads what, and how it is served", () => {
  const server = useTestServer();

  async function setup() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: TOOLS });
    const [alice, bob, manager] = await Promise.all([makeUser(s.db, owner.workspaceId, "member"), makeUser(s.db, owner.workspaceId, "member"), makeUser(s.db, owner.workspaceId, "manager")]);
    const cookies = { alice: await sessionCookie(s, alice), bob: await sessionCookie(s, bob), manager: await sessionCookie(s, manager), owner: await sessionCookie(s, owner) };
    return { s, owner, agent, alice, bob, manager, cookies };
  }

  /** `user` tells the agent `text` in a private chat of their own; waits for the run's end. */
  async function chat(ctx: Awaited<ReturnType<typeof setup>>, user: { id: string }, text: string) {
    const { s, owner, agent } = ctx;
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: user.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: user.id, text });
    await waitForRun(s.db, runId, 60_000);
    return runId;
  }

  const get = (route: typeof filesRoute, url: string, cookie: string, id: string) => route(jsonRequest(url, { cookie }), params({ id }));

  it("shows a file a private chat wrote only to its person and to those who read every chat, on every route", async () => {
    const ctx = await setup();
    const { agent, cookies } = ctx;
    await chat(ctx, ctx.alice, "write plans/private.md\nAlice's plan");
    const list = async (cookie: string, path = "") => (await (await get(filesRoute, `/api/agents/${agent.id}/files?path=${path}`, cookie, agent.id)).json()) as { entries: { path: string }[] };
    expect((await list(cookies.alice)).entries.map((e) => e.path)).toEqual(["plans"]);
    expect((await list(cookies.alice, "plans")).entries.map((e) => e.path)).toEqual(["plans/private.md"]);
    expect((await list(cookies.manager, "plans")).entries.map((e) => e.path)).toEqual(["plans/private.md"]);
    // Another member: not in the list, not in the folder, and 404 (not 403) for its contents and its history.
    expect((await list(cookies.bob)).entries).toEqual([]);
    const content = await get(contentRoute, `/api/agents/${agent.id}/files/content?path=plans/private.md`, cookies.bob, agent.id);
    expect([content.status, ((await content.json()) as { code: string }).code]).toEqual([404, "not_found:file"]);
    const history = await get(historyRoute, `/api/agents/${agent.id}/files/history?path=plans/private.md`, cookies.bob, agent.id);
    expect(history.status).toBe(404);
    const own = await get(contentRoute, `/api/agents/${agent.id}/files/content?path=plans/private.md`, cookies.alice, agent.id);
    expect([own.status, await own.text()]).toEqual([200, "Alice's plan\n"]);
  });

  it("serves what an agent wrote so that it cannot run in the app: HTML and SVG as plain text, images as images, with nothing sniffed and nothing run", async () => {
    const ctx = await setup();
    const { s, owner, agent, cookies } = ctx;
    await writeFiles(
      s.db,
      { workspaceId: owner.workspaceId, agentId: agent.id },
      { userId: owner.id, taint: [], privateTo: null },
      [
        { path: "page.html", content: Buffer.from("<script>fetch('/api/members')</script>") },
        { path: "logo.svg", content: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>') },
        { path: "shot.png", content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]) },
      ],
    );
    const fetchFile = (path: string) => get(contentRoute, `/api/agents/${agent.id}/files/content?path=${path}`, cookies.bob, agent.id);
    const html = await fetchFile("page.html");
    expect(html.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(html.headers.get("content-security-policy")).toContain("sandbox");
    const svg = await fetchFile("logo.svg");
    expect(svg.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const png = await fetchFile("shot.png");
    expect([png.headers.get("content-type"), png.headers.get("content-disposition")]).toEqual(["image/png", "inline; filename*=UTF-8''shot.png"]);
    const bad = await get(contentRoute, `/api/agents/${agent.id}/files/content?path=../../etc/passwd`, cookies.bob, agent.id);
    expect([bad.status, ((await bad.json()) as { code: string; message: string }).message]).toEqual([400, 'The path "../../etc/passwd" leads outside the workspace.']);
  });

  it("keeps every version: the history lists them, and a manager (not a member) restores an earlier one as a new version", async () => {
    const ctx = await setup();
    const { agent, cookies } = ctx;
    await chat(ctx, ctx.owner, "write todo.txt\nfirst");
    await chat(ctx, ctx.owner, "run echo second > todo.txt");
    // Written in the owner's own chats: private to them (and to those who read every chat), restored copies too.
    const history = (await (await get(historyRoute, `/api/agents/${agent.id}/files/history?path=todo.txt`, cookies.owner, agent.id)).json()) as { versions: { version: number; runId: string | null }[] };
    expect(history.versions.map((v) => v.version)).toEqual([2, 1]);
    const restore = (cookie: string) =>
      restoreRoute(jsonRequest(`/api/agents/${agent.id}/files/restore`, { method: "POST", cookie, body: { path: "todo.txt", version: 1 } }), params({ id: agent.id }));
    expect((await restore(cookies.alice)).status).toBe(403);
    const restored = await restore(cookies.manager);
    expect(await restored.json()).toEqual({ path: "todo.txt", version: 3, restoredFrom: 1 });
    const now = await get(contentRoute, `/api/agents/${agent.id}/files/content?path=todo.txt`, cookies.owner, agent.id);
    expect(await now.text()).toBe("first\n");
    const older = await get(contentRoute, `/api/agents/${agent.id}/files/content?path=todo.txt&version=2`, cookies.owner, agent.id);
    expect((await get(contentRoute, `/api/agents/${agent.id}/files/content?path=todo.txt`, cookies.alice, agent.id)).status).toBe(404);
    expect(await older.text()).toBe("second\n");
  });

  it("holds each agent to its limits: a file too large and a workspace too full are refused with a sentence, and nothing is written", async () => {
    const ctx = await setup();
    const { s, owner, agent } = ctx;
    const target = { workspaceId: owner.workspaceId, agentId: agent.id };
    const author = { userId: owner.id, taint: [], privateTo: null };
    const limits = { maxFileBytes: 1000, maxAgentBytes: 1500, maxAgentFiles: 2 };
    await expect(writeFiles(s.db, target, author, [{ path: "big.bin", content: Buffer.alloc(1001) }], limits)).rejects.toMatchObject({ code: "unprocessable:file_too_large" });
    await writeFiles(s.db, target, author, [{ path: "a.bin", content: Buffer.alloc(900) }], limits);
    await expect(writeFiles(s.db, target, author, [{ path: "b.bin", content: Buffer.alloc(700) }], limits)).rejects.toMatchObject({ code: "unprocessable:workspace_full" });
    await writeFiles(s.db, target, author, [{ path: "b.bin", content: Buffer.alloc(10) }], limits);
    await expect(writeFiles(s.db, target, author, [{ path: "c.bin", content: Buffer.alloc(1) }], limits)).rejects.toMatchObject({ code: "unprocessable:workspace_full" });
    // Replacing a file within the limits works; deleting makes room.
    await writeFiles(s.db, target, author, [{ path: "a.bin", content: null }, { path: "c.bin", content: Buffer.alloc(1) }], limits);
  });

  it("says whether commands can run, lists a running one, and stops it within a second when the agent is paused", async () => {
    const ctx = await setup();
    const { s, owner, agent, cookies } = ctx;
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "run echo working; sleep 600" });
    await settle(async () => (await readRunEvents(s.db, runId, 0)).some((e) => e.type === "tool_output"));
    const status = (await (await get(computerRoute, `/api/agents/${agent.id}/computer`, cookies.bob, agent.id)).json()) as { engine: string; running: { command: string }[] };
    expect(status).toMatchObject({ engine: "bubblewrap", running: [{ command: "echo working; sleep 600" }] });
    const asked = Date.now();
    const paused = await agentRoute(jsonRequest(`/api/agents/${agent.id}`, { method: "PATCH", cookie: cookies.manager, body: { status: "paused" } }), params({ id: agent.id }));
    expect(paused.status).toBe(200);
    await settle(async () => s.runtime.deps.computers!.running(agent.id).length === 0, 5_000);
    expect(Date.now() - asked).toBeLessThan(1_500);
    const events = await waitForRun(s.db, runId, 30_000);
    const finished = events.find((e) => e.type === "step_finished")?.payload as { output?: { stoppedBy?: string } };
    expect(finished.output?.stoppedBy).toBe("cancelled");
  });

  it("a manager stops a running command from the agent's page within a second (a member may not); the run goes on", async () => {
    const ctx = await setup();
    const { s, owner, agent, cookies } = ctx;
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "run echo going; sleep 600" });
    await settle(async () => (await readRunEvents(s.db, runId, 0)).some((e) => e.type === "tool_output"));
    const stop = (cookie: string) => stopRoute(jsonRequest(`/api/agents/${agent.id}/computer/stop`, { method: "POST", cookie }), params({ id: agent.id }));
    expect((await stop(cookies.alice)).status).toBe(403);
    expect(s.runtime.deps.computers!.running(agent.id)).toHaveLength(1);
    const asked = Date.now();
    expect((await stop(cookies.manager)).status).toBe(204);
    await settle(async () => s.runtime.deps.computers!.running(agent.id).length === 0, 5_000);
    expect(Date.now() - asked).toBeLessThan(1_500);
    const events = await waitForRun(s.db, runId, 30_000);
    expect(events.at(-1)?.type).toBe("run_completed");
  });
});
