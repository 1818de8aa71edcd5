import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { safeParse } from "zod/mini";
import type { $ZodType } from "zod/v4/core";
import { GET as agentRoute } from "../../app/api/agents/[id]/route";
import { GET as agentsRoute } from "../../app/api/agents/route";
import { GET as approvalRoute } from "../../app/api/approvals/[id]/route";
import { GET as approvalsRoute } from "../../app/api/approvals/route";
import { GET as budgetsRoute } from "../../app/api/budgets/route";
import { GET as crewRoute } from "../../app/api/crews/[id]/route";
import { POST as startMissionRoute } from "../../app/api/crews/[id]/missions/route";
import { GET as crewsRoute, POST as createCrewRoute } from "../../app/api/crews/route";
import { GET as matrixRoute } from "../../app/api/feed/matrix/route";
import { GET as feedRoute } from "../../app/api/feed/route";
import { GET as missionRoute } from "../../app/api/missions/[id]/route";
import { GET as missionsRoute } from "../../app/api/missions/route";
import { GET as roomRoute } from "../../app/api/rooms/[id]/route";
import { POST as postInRoomRoute } from "../../app/api/rooms/[id]/messages/route";
import { GET as roomsRoute, POST as createRoomRoute } from "../../app/api/rooms/route";
import { GET as runSummaryRoute } from "../../app/api/runs/[id]/summary/route";
import { GET as sessionRoute } from "../../app/api/sessions/[id]/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { GET as sessionsRoute, POST as createSessionRoute } from "../../app/api/sessions/route";
import { GET as usageSummaryRoute } from "../../app/api/usage/summary/route";
import { GET as agentDoorTokensRoute, POST as createDoorTokenRoute } from "../../app/api/agents/[id]/door-tokens/route";
import { GET as connectionsRoute } from "../../app/api/connections/route";
import { GET as doorTokensRoute } from "../../app/api/door-tokens/route";
import { GET as governorRoute } from "../../app/api/governor/route";
import { GET as invitationsRoute, POST as inviteRoute } from "../../app/api/invitations/route";
import { GET as membersRoute } from "../../app/api/members/route";
import { GET as policyRoute } from "../../app/api/policy/route";
import { GET as pricesRoute } from "../../app/api/prices/route";
import { GET as usageReportRoute } from "../../app/api/usage/route";
import { GET as reconciliationRoute } from "../../app/api/usage/reconciliation/route";
import { GET as timeZoneRoute } from "../../app/api/workspace/time-zone/route";
import { POST as createWorkspaceRoute } from "../../app/api/workspaces/route";
import { workspaceCreatedCheck } from "../../lib/workspaces/workspace-created";
import { priceListSchema, reconciliationViewSchema, usageReportSchema } from "../../lib/billing/billing-schemas";
import { connectionListSchema } from "../../lib/connections/connection-schemas";
import { doorTokenCreatedSchema, doorTokenListSchema } from "../../lib/door/door-schemas";
import { governorViewSchema } from "../../lib/safety/governor-schemas";
import { policyReplySchema } from "../../lib/safety/policy-schemas";
import { invitationCreatedSchema, invitationListSchema, memberListSchema, timeZoneSchema, workspaceCreatedSchema } from "../../lib/workspaces/workspace-schemas";
import { agentDetailSchema, agentListSchema } from "../../lib/agents/agent-schemas";
import { budgetOverviewSchema, usageSummarySchema } from "../../lib/billing/usage-schemas";
import { agents, approvals } from "../../lib/db/schema";
import { feedPageSchema, talkMatrixSchema } from "../../lib/feed/feed-schemas";
import { crewListSchema, crewOneSchema, missionListSchema, missionOneSchema, missionStartedSchema } from "../../lib/missions/mission-schemas";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { roomCreatedSchema, roomDetailSchema, roomListSchema, roomPostSchema } from "../../lib/rooms/room-schemas";
import { runSummarySchema } from "../../lib/runs/run-schemas";
import { chatRunStartedSchema, chatHistorySchema, chatListSchema } from "../../lib/chats/chat-schemas";
import { createChat } from "../../lib/chats/chats";
import { approvalListSchema, approvalOneSchema } from "../../lib/safety/approval-schemas";
import { createdIdSchema } from "../../lib/shared-schemas";
import { demoOwner, makeUser } from "../support/fixtures";
import { getRunRow, makeAgent, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

/**
 * The browser parses every reply with the schema exported beside its domain
 * (lib/<domain>/*-schemas.ts). These call the real route handlers and parse
 * what they answer with the same schemas: a route that changes its reply
 * without its schema fails here, not in a person's browser.
 */
async function replyOf<S extends $ZodType>(pending: Promise<Response>, schema: S, status = 200) {
  const res = await pending;
  const body: unknown = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  const parsed = safeParse(schema, body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  return parsed.data!;
}

describe("the contract between the API and the browser", () => {
  const server = useTestServer();

  it("every GET the pages read answers in the shape of its schema, for an owner and for a member", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const cookie = await sessionCookie(s, owner);
    const memberCookie = await sessionCookie(s, member);

    const { agents: list } = await replyOf(agentsRoute(jsonRequest("/api/agents", { cookie })), agentListSchema);
    const scout = list.find((a) => a.handle === "scout")!;

    // A chat with a finished run: sessions, history, run summary and the feed have something to show.
    const { id: sessionId } = await replyOf(createSessionRoute(jsonRequest("/api/sessions", { method: "POST", cookie, body: { agentId: scout.id } })), createdIdSchema, 201);
    const { runId } = await replyOf(
      postMessageRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, body: { text: "remember the demo is on Tuesday" } }), params({ id: sessionId })),
      chatRunStartedSchema,
      202,
    );
    await waitForRun(s.db, runId);

    const sessions = await replyOf(sessionsRoute(jsonRequest("/api/sessions", { cookie })), chatListSchema);
    expect(sessions.sessions.map((x) => x.id)).toContain(sessionId);
    const searched = await replyOf(sessionsRoute(jsonRequest("/api/sessions?q=Tuesday", { cookie })), chatListSchema);
    expect(searched.sessions.map((x) => x.id)).toEqual([sessionId]);
    const history = await replyOf(sessionRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie }), params({ id: sessionId })), chatHistorySchema);
    expect(history.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(history.messages[1]!.steps.length).toBeGreaterThan(0);
    expect(typeof history.session.createdAt).toBe("string");

    for (const viewer of [cookie, memberCookie]) {
      const detail = await replyOf(agentRoute(jsonRequest(`/api/agents/${scout.id}`, { cookie: viewer }), params({ id: scout.id })), agentDetailSchema);
      expect(detail.agent.handle).toBe("scout");
      const feed = await replyOf(feedRoute(jsonRequest("/api/feed", { cookie: viewer })), feedPageSchema);
      expect(feed.items.some((i) => i.kind === "run_started")).toBe(true);
    }
    const ownerDetail = await replyOf(agentRoute(jsonRequest(`/api/agents/${scout.id}`, { cookie }), params({ id: scout.id })), agentDetailSchema);
    expect(ownerDetail.runs.map((r) => r.id)).toContain(runId);
    expect(ownerDetail.spend30d).not.toBeNull();

    const summary = await replyOf(runSummaryRoute(jsonRequest(`/api/runs/${runId}/summary`, { cookie }), params({ id: runId })), runSummarySchema);
    expect(summary.run).toMatchObject({ id: runId, state: "succeeded" });
    expect(summary.agent?.handle).toBe("scout");

    const matrix = await replyOf(matrixRoute(jsonRequest("/api/feed/matrix", { cookie })), talkMatrixSchema);
    expect(Array.isArray(matrix.cells)).toBe(true);

    const to = new Date();
    const from = new Date(to.getTime() - 3_600_000);
    const range = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
    const usage = await replyOf(usageSummaryRoute(jsonRequest(`/api/usage/summary?${range}`, { cookie })), usageSummarySchema);
    expect(usage.spend).not.toBeNull();
    expect(usage.activity.runs).toBeGreaterThan(0);
    const memberUsage = await replyOf(usageSummaryRoute(jsonRequest(`/api/usage/summary?${range}`, { cookie: memberCookie })), usageSummarySchema);
    expect(memberUsage.spend).toBeNull();
    const budgets = await replyOf(budgetsRoute(jsonRequest("/api/budgets", { cookie })), budgetOverviewSchema);
    expect(budgets.agents.map((a) => a.handle)).toContain("scout");
  });

  it("rooms, crews and missions answer in the shape of their schemas", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const demo = await s.db.select().from(agents).where(eq(agents.workspaceId, owner.workspaceId));
    const byHandle = (handle: string) => demo.find((a) => a.handle === handle)!;

    const { room } = await replyOf(
      createRoomRoute(jsonRequest("/api/rooms", { method: "POST", cookie, body: { name: "contract", subject: "shapes", agentIds: [byHandle("scout").id] } })),
      roomCreatedSchema,
      201,
    );
    const posted = await replyOf(postInRoomRoute(jsonRequest(`/api/rooms/${room.id}/messages`, { method: "POST", cookie, body: { text: "hello room" } }), params({ id: room.id })), roomPostSchema, 202);
    await Promise.all(posted.runIds.map((id) => waitForRun(s.db, id)));
    const rooms = await replyOf(roomsRoute(jsonRequest("/api/rooms", { cookie })), roomListSchema);
    expect(rooms.rooms.find((r) => r.id === room.id)?.members.map((m) => m.handle)).toEqual(["scout"]);
    const detail = await replyOf(roomRoute(jsonRequest(`/api/rooms/${room.id}`, { cookie }), params({ id: room.id })), roomDetailSchema);
    expect(detail.room.messages.map((m) => m.body)).toContain("hello room");

    const crewBody = {
      name: "Pair",
      nodes: [
        { id: "research", role: "Researcher", agentHandle: "scout" },
        { id: "write", role: "Writer", agentHandle: "atlas" },
      ],
      edges: [{ from: "research", to: "write" }],
    };
    const { id: crewId } = await replyOf(createCrewRoute(jsonRequest("/api/crews", { method: "POST", cookie, body: crewBody })), createdIdSchema, 201);
    const crews = await replyOf(crewsRoute(jsonRequest("/api/crews", { cookie })), crewListSchema);
    expect(crews.crews.map((c) => c.id)).toContain(crewId);
    const crew = await replyOf(crewRoute(jsonRequest(`/api/crews/${crewId}`, { cookie }), params({ id: crewId })), crewOneSchema);
    expect(crew.crew.nodes.map((n) => n.agentHandle)).toEqual(["scout", "atlas"]);

    const { missionId } = await replyOf(
      startMissionRoute(jsonRequest(`/api/crews/${crewId}/missions`, { method: "POST", cookie, body: { goal: "Say hello" } }), params({ id: crewId })),
      missionStartedSchema,
      202,
    );
    const missions = await replyOf(missionsRoute(jsonRequest("/api/missions", { cookie })), missionListSchema);
    expect(missions.missions.map((m) => m.id)).toContain(missionId);
    const mission = await replyOf(missionRoute(jsonRequest(`/api/missions/${missionId}`, { cookie }), params({ id: missionId })), missionOneSchema);
    expect(mission.mission.crewId).toBe(crewId);
    await s.missions.drain();
  });

  it("approvals answer in the shape of their schema, with the run left out for a member who may not open it", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    useScriptedModel(s, [toolTurn([{ id: "call_slack", name: "slack.post", input: { channel: "#general", text: "hello" } }], "Posting."), textTurn(["Posted."])]);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "slack #general hello" });
    for (let i = 0; i < 400 && (await getRunRow(s.db, runId)).state !== "suspended"; i++) await new Promise((r) => setTimeout(r, 25));
    const [pending] = await s.db.select().from(approvals).where(eq(approvals.runId, runId));

    const cookie = await sessionCookie(s, owner);
    const list = await replyOf(approvalsRoute(jsonRequest("/api/approvals?status=pending", { cookie })), approvalListSchema);
    expect(list.approvals.map((a) => a.id)).toEqual([pending!.id]);
    expect(list.approvals[0]).toMatchObject({ runId, canOpenRun: true, identical: { count: 1 } });
    const all = await replyOf(approvalsRoute(jsonRequest("/api/approvals?status=all&limit=200", { cookie })), approvalListSchema);
    expect(all.approvals.length).toBe(1);
    const one = await replyOf(approvalRoute(jsonRequest(`/api/approvals/${pending!.id}`, { cookie }), params({ id: pending!.id })), approvalOneSchema);
    expect(one.approval.preview.title).toBe("Post to Slack");

    const memberCookie = await sessionCookie(s, member);
    const seen = await replyOf(approvalRoute(jsonRequest(`/api/approvals/${pending!.id}`, { cookie: memberCookie }), params({ id: pending!.id })), approvalOneSchema);
    expect(seen.approval).toMatchObject({ runId: null, canOpenRun: false });
  });

  it("the settings and billing pages' GETs answer in the shape of their schemas", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const scout = (await s.db.select().from(agents).where(eq(agents.workspaceId, owner.workspaceId))).find((a) => a.handle === "scout")!;

    const token = await replyOf(
      createDoorTokenRoute(jsonRequest(`/api/agents/${scout.id}/door-tokens`, { method: "POST", cookie, body: { name: "laptop" } }), params({ id: scout.id })),
      doorTokenCreatedSchema,
      201,
    );
    const own = await replyOf(agentDoorTokensRoute(jsonRequest(`/api/agents/${scout.id}/door-tokens`, { cookie }), params({ id: scout.id })), doorTokenListSchema);
    expect(own.tokens.map((t) => t.id)).toEqual([token.id]);
    const all = await replyOf(doorTokensRoute(jsonRequest("/api/door-tokens", { cookie })), doorTokenListSchema);
    expect(all.tokens[0]).toMatchObject({ agentHandle: "scout", name: "laptop", revokedAt: null });

    await replyOf(inviteRoute(jsonRequest("/api/invitations", { method: "POST", cookie, body: { email: "new@test.local", role: "member" } })), invitationCreatedSchema, 201);
    const invitations = await replyOf(invitationsRoute(jsonRequest("/api/invitations", { cookie })), invitationListSchema);
    expect(invitations.invitations.map((i) => i.email)).toContain("new@test.local");
    const members = await replyOf(membersRoute(jsonRequest("/api/members", { cookie })), memberListSchema);
    expect(members.members.map((m) => m.userId)).toContain(owner.id);

    await replyOf(connectionsRoute(jsonRequest("/api/connections", { cookie })), connectionListSchema);
    const governor = await replyOf(governorRoute(jsonRequest("/api/governor", { cookie })), governorViewSchema);
    expect(governor.defaults.doorWaitSeconds).toBeGreaterThan(0);
    const policy = await replyOf(policyRoute(jsonRequest("/api/policy", { cookie })), policyReplySchema);
    expect(policy.policy.tools.map((t) => t.name)).toContain("slack.post");
    const prices = await replyOf(pricesRoute(jsonRequest("/api/prices", { cookie })), priceListSchema);
    expect(prices.prices.length).toBeGreaterThan(0);
    await replyOf(reconciliationRoute(jsonRequest("/api/usage/reconciliation", { cookie })), reconciliationViewSchema);
    for (const group of ["agent", "model", "source", "mission", "person"]) {
      const report = await replyOf(usageReportRoute(jsonRequest(`/api/usage?group=${group}&tz=Europe/Berlin`, { cookie })), usageReportSchema);
      expect(report.group).toBe(group);
    }
    const zone = await replyOf(timeZoneRoute(jsonRequest("/api/workspace/time-zone", { cookie })), timeZoneSchema);
    expect(zone.timeZone.length).toBeGreaterThan(0);

    // The workspace switcher checks this reply without zod; both checks read it the same.
    const made = await replyOf(createWorkspaceRoute(jsonRequest("/api/workspaces", { method: "POST", cookie, body: { name: "Second Co" } })), workspaceCreatedSchema, 201);
    expect(workspaceCreatedCheck.safeParse(made)).toEqual({ success: true, data: made });
    expect(workspaceCreatedCheck.safeParse({ workspace: { ...made.workspace, role: "admin" } }).success).toBe(false);
  });
});
