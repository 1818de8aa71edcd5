import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as mcpPost } from "../../app/api/mcp/route";
import { agentRuns, approvals, doorSessions, outboxMessages, steps } from "../../lib/db/schema";
import { DOOR_SESSION_IDLE_SECONDS } from "../../lib/door/door-sessions";
import { getRunSummary } from "../../lib/runs/run-summary";
import { connectDoor as connect, doorTokenFor, endSession, resultText, sessionIdOf } from "../support/door";
import { demoOwner } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { APP_ORIGIN, useTestServer } from "../support/server";


describe("door sessions", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: "1" } });

  async function setup() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["memory.recall", "memory.remember", "slack.post"] });
    return { s, owner, agent, token: await doorTokenFor(s.db, agent, owner.id) };
  }

  const runsOf = (agentId: string) => server().db.select().from(agentRuns).where(eq(agentRuns.agentId, agentId)).orderBy(asc(agentRuns.createdAt));
  const stepsOf = (runId: string) => server().db.select().from(steps).where(eq(steps.runId, runId)).orderBy(asc(steps.position));
  const runById = async (runId: string) => (await server().db.select().from(agentRuns).where(eq(agentRuns.id, runId)))[0]!;

  /** One raw JSON-RPC request to the endpoint, as a client without a session sends it. */
  async function rawCall(token: string, body: unknown, sessionId?: string) {
    return mcpPost(
      new Request(`${APP_ORIGIN}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(sessionId ? { "mcp-session-id": sessionId } : {}),
        },
        body: JSON.stringify(body),
      }),
    );
  }

  it("makes one run of a session with a step per call; a new session is a new run; the session's end finishes it", async () => {
    const { owner, agent, token } = await setup();
    const first = await connect(token);
    expect(sessionIdOf(first)).toMatch(/^[0-9a-f-]{36}$/);
    expect((await first.callTool({ name: "memory.remember", arguments: { text: "one" } })).isError).toBeFalsy();
    expect((await first.callTool({ name: "memory.recall", arguments: { query: "one" } })).isError).toBeFalsy();
    const runs = await runsOf(agent.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: "door", state: "suspended" });
    // Between calls the run waits for no reviewer, and its page says so.
    expect((await getRunSummary(server().db, agent.workspaceId, runs[0]!.id, { userId: owner.id, role: "owner" })).run.awaitingApproval).toBe(false);
    expect((await stepsOf(runs[0]!.id)).map((st) => [st.position, st.tool, st.status])).toEqual([
      [1, "memory.remember", "succeeded"],
      [2, "memory.recall", "succeeded"],
    ]);
    const second = await connect(token);
    expect(sessionIdOf(second)).not.toBe(sessionIdOf(first));
    expect((await second.callTool({ name: "memory.recall", arguments: { query: "two" } })).isError).toBeFalsy();
    const after = await runsOf(agent.id);
    expect(after).toHaveLength(2);
    expect((await stepsOf(after[1]!.id)).map((st) => st.tool)).toEqual(["memory.recall"]);
    await endSession(first);
    expect(await runById(runs[0]!.id)).toMatchObject({ state: "succeeded", stepCount: 2 });
    expect((await runById(after[1]!.id)).state).toBe("suspended");
    await Promise.all([first.close(), second.close()]);
  });

  it("answers an unknown, ended or other token's session with 404 and runs nothing; a client with no session still works", async () => {
    const { s, owner, agent, token } = await setup();
    const client = await connect(token);
    const sessionId = sessionIdOf(client)!;
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory.recall", arguments: { query: "x" } } };
    const other = await doorTokenFor(s.db, agent, owner.id, "desktop");
    for (const [t, id] of [
      [token, "00000000-0000-4000-8000-000000000000"],
      [token, "not-a-session"],
      [other, sessionId],
    ] as const) {
      const res = await rawCall(t, call, id);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32001);
    }
    const [run] = await runsOf(agent.id);
    expect(await stepsOf(run!.id)).toHaveLength(0);
    await endSession(client);
    expect((await rawCall(token, call, sessionId)).status).toBe(404);
    // No session: the call is a run of its own, finished with it.
    const plain = await rawCall(token, call);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('"result"');
    const runs = await runsOf(agent.id);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ state: "succeeded", stepCount: 1 });
  });

  it("ends an idle session at the sweep: its run finishes, the session is gone", async () => {
    const { s, agent, token } = await setup();
    const client = await connect(token);
    expect((await client.callTool({ name: "memory.recall", arguments: { query: "idle" } })).isError).toBeFalsy();
    await s.runtime.sweep();
    const [run] = await runsOf(agent.id);
    expect(run!.state).toBe("suspended");
    await s.db
      .update(doorSessions)
      .set({ lastSeenAt: new Date(Date.now() - (DOOR_SESSION_IDLE_SECONDS + 60) * 1000) })
      .where(eq(doorSessions.id, sessionIdOf(client)!));
    await s.runtime.sweep();
    expect(await runById(run!.id)).toMatchObject({ state: "succeeded", stepCount: 1 });
    const [session] = await s.db.select().from(doorSessions).where(eq(doorSessions.id, sessionIdOf(client)!));
    expect(session!.endedAt).not.toBeNull();
    await expect(client.callTool({ name: "memory.recall", arguments: { query: "late" } })).rejects.toThrow(/Session not found/);
    await client.close();
  });

  it("cancels the run of a session that ends while a call waits on a reviewer, withdrawing the request; nothing is sent", async () => {
    const { s, owner, agent, token } = await setup();
    const client = await connect(token);
    const waited = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "never" } });
    expect(waited.isError).toBe(true);
    const [approval] = await s.db.select().from(approvals).where(and(eq(approvals.agentId, agent.id), eq(approvals.status, "pending")));
    expect(resultText(waited)).toContain(approval!.id);
    expect((await getRunSummary(s.db, agent.workspaceId, approval!.runId, { userId: owner.id, role: "owner" })).run.awaitingApproval).toBe(true);
    // Another call of the session waits its turn, then is told the session is busy.
    await expect(client.callTool({ name: "memory.recall", arguments: { query: "meanwhile" } })).rejects.toThrow(/waits on an approval/);
    await endSession(client);
    expect(await runById(approval!.runId)).toMatchObject({ state: "cancelled" });
    const [withdrawn] = await s.db.select().from(approvals).where(eq(approvals.id, approval!.id));
    expect(withdrawn!.status).toBe("withdrawn");
    expect(await s.db.select().from(outboxMessages).where(eq(outboxMessages.agentId, agent.id))).toHaveLength(0);
    await client.close();
  });
});
