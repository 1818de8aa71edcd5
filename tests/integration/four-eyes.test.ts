import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as listRoute } from "../../app/api/approvals/route";
import { POST as postToRoomRoute } from "../../app/api/rooms/[id]/messages/route";
import { GET as getPolicyRoute, PUT as putPolicyRoute } from "../../app/api/policy/route";
import { POST as createRoomRoute } from "../../app/api/rooms/route";
import { agentRuns, agents, approvals, outboxMessages } from "../../lib/db/schema";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { claimResume, listResumableRuns } from "../../lib/runs";
import { demoOwner, makeUser } from "../support/fixtures";
import { getRunRow, makeAgent, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { useLocalWebPage } from "../support/web-page";
import { approvalSteps } from "../support/approvals";
import { connectDoor, doorTokenFor } from "../support/door";

describe("four eyes: the person behind every chain, through agents, rooms and policy changes", () => {
  const server = useTestServer();
  const { reviewerChat, pendingApprovalOf, decide, grantsOf, chatAs } = approvalSteps(server);

  it("four eyes is judged on the policy when the approval was asked: a manager who drops the category from four eyes still cannot approve his own earlier request", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const cookie = await sessionCookie(s, manager);
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    await chatAs(manager, owner.workspaceId, herald.id, "slack #general my own announcement");
    const approval = await pendingApprovalOf(herald.id);
    expect(approval).toMatchObject({ category: "external_send", onBehalfOfUserId: manager.id, fourEyes: true });

    const before = (await (await getPolicyRoute(jsonRequest("/api/policy", { cookie }))).json()).policy;
    expect(before.fourEyesCategories).toContain("external_send");
    const putPolicy = (fourEyesCategories: string[]) =>
      putPolicyRoute(jsonRequest("/api/policy", { method: "PUT", cookie, body: { overrides: before.overrides, fourEyesCategories, approvalTtlSeconds: before.approvalTtlSeconds } }));
    expect((await putPolicy(before.fourEyesCategories.filter((c: string) => c !== "external_send"))).status).toBe(200);
    try {
      const own = await decide(manager, approval.id);
      expect(own.status).toBe(403);
      expect((await own.json()).code).toBe("forbidden:four_eyes");
      expect(await grantsOf(approval.id)).toBe(0);
      const listed = await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie }))).json();
      expect(listed.approvals.find((a: { id: string }) => a.id === approval.id)).toMatchObject({ fourEyes: true });
    } finally {
      expect((await putPolicy(before.fourEyesCategories)).status).toBe(200);
    }
    const [still] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(still?.status).toBe("pending");
    expect((await decide(await makeUser(s.db, owner.workspaceId, "reviewer"), approval.id, "reject")).status).toBe(200);
    await waitForRun(s.db, approval.runId);
  });

  it("four eyes with nobody recorded behind the request: a reviewer's approval is refused with forbidden:four_eyes, a manager's goes through", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, herald.id, "slack #general nobody's post");
    const approval = await pendingApprovalOf(herald.id);
    expect(approval.fourEyes).toBe(true);
    // As a run would be whose person was deleted, or that no person started.
    await s.db.update(approvals).set({ onBehalfOfUserId: null, requestedByUserId: null }).where(eq(approvals.id, approval.id));
    await s.db.update(agentRuns).set({ onBehalfOfUserId: null, userId: null }).where(eq(agentRuns.id, runId));

    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const refused = await decide(reviewer, approval.id);
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.code).toBe("forbidden:four_eyes");
    expect(body.message).toMatch(/only a manager or an owner/);
    expect(await grantsOf(approval.id)).toBe(0);

    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    expect((await decide(manager, approval.id)).status).toBe(200);
    expect(await grantsOf(approval.id)).toBe(1);
    expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_completed");
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(1);
  });

  it("a paused agent's approved run stays suspended through sweeps and does nothing; once the agent is resumed the sweeper resumes it and the effect happens once", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, herald.id, "slack #general after the pause");
    const approval = await pendingApprovalOf(herald.id);
    await s.db.update(agents).set({ status: "paused" }).where(eq(agents.id, herald.id));

    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    expect((await decide(reviewer, approval.id)).status).toBe(200);
    const [decided] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(decided).toMatchObject({ status: "approved", resumedAt: null });
    expect(await listResumableRuns(s.db, 1000)).not.toContain(runId);
    expect(await claimResume(s.db, s.bus, runId, "another-process")).toBeNull();
    await s.runtime.sweep();
    await s.runtime.drain();
    expect((await getRunRow(s.db, runId)).state).toBe("suspended");
    expect((await readRunEvents(s.db, runId, 0)).filter((e) => e.type === "run_resumed" || e.type === "dispatch_started")).toEqual([]);
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(0);

    await s.db.update(agents).set({ status: "active" }).where(eq(agents.id, herald.id));
    expect(await listResumableRuns(s.db, 1000)).toContain(runId);
    expect((await s.runtime.sweep()).resumed).toBeGreaterThanOrEqual(1);
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    expect(events.filter((e) => e.type === "dispatch_started")).toHaveLength(1);
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(1);
    await s.runtime.sweep();
    await s.runtime.drain();
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(1);
  });

  it("four eyes holds through an agent: a reviewer who tells @atlas to tell @herald to post cannot approve herald's post; another reviewer can", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const atlas = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["chat.send"] });
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const { reviewer, session } = await reviewerChat(atlas.id, `tell @${herald.handle} slack #general ship it`);
    const approval = await pendingApprovalOf(herald.id);
    // What @atlas said is untrusted for herald: its post outside is the tainted variant, four eyes all the same.
    expect(approval).toMatchObject({
      category: "tainted_egress",
      taintSources: [{ source: `agent:${atlas.handle}`, stepId: null }],
      onBehalfOfUserId: reviewer.id,
      requestedByUserId: reviewer.id,
      via: [atlas.handle],
    });
    const [heraldRun] = await s.db.select().from(agentRuns).where(eq(agentRuns.id, approval.runId));
    expect(heraldRun).toMatchObject({ trigger: "agent_message", onBehalfOfUserId: reviewer.id, via: [atlas.handle], originSessionId: session.id });

    const own = await decide(reviewer, approval.id);
    expect(own.status).toBe(403);
    expect((await own.json()).code).toBe("forbidden:four_eyes");
    expect(await grantsOf(approval.id)).toBe(0);

    const listed = await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie: await sessionCookie(s, reviewer) }))).json();
    const card = listed.approvals.find((a: { id: string }) => a.id === approval.id);
    expect(card).toMatchObject({ onBehalfOf: reviewer.name, via: [atlas.handle], originSessionId: session.id, fourEyes: true, identical: { count: 1 } });

    const other = await makeUser(s.db, owner.workspaceId, "reviewer");
    const approved = await decide(other, approval.id);
    expect(approved.status).toBe(200);
    expect(await grantsOf(approval.id)).toBe(1);
    const events = await waitForRun(s.db, approval.runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, approval.runId))).length).toBe(1);
    await s.runtime.drain();
  });

  it("the person and the chain carry across two hops: a reviewer → @atlas → @relay → @herald, and the approval records them all", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const atlas = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["chat.send"] });
    const relay = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["chat.send"] });
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const { reviewer } = await reviewerChat(atlas.id, `tell @${relay.handle} tell @${herald.handle} slack #general two hops`);
    // Relay was woken by atlas, so passing the message on waits for a person; another reviewer lets it through.
    const relayed = await pendingApprovalOf(relay.id);
    expect(relayed).toMatchObject({ tool: "chat.send", category: "tainted_egress", taintSources: [{ source: `agent:${atlas.handle}`, stepId: null }], onBehalfOfUserId: reviewer.id, via: [atlas.handle] });
    expect((await decide(await makeUser(s.db, owner.workspaceId, "reviewer"), relayed.id)).status).toBe(200);
    const approval = await pendingApprovalOf(herald.id);
    expect(approval).toMatchObject({
      category: "tainted_egress",
      taintSources: [
        { source: `agent:${atlas.handle}`, stepId: null },
        { source: `agent:${relay.handle}`, stepId: null },
      ],
      onBehalfOfUserId: reviewer.id,
      via: [atlas.handle, relay.handle],
    });
    expect((await getRunRow(s.db, approval.runId)).hop).toBe(2);
    const own = await decide(reviewer, approval.id);
    expect((await own.json()).code).toBe("forbidden:four_eyes");
    expect(await grantsOf(approval.id)).toBe(0);
    await s.runtime.cancelRun(owner.workspaceId, approval.runId, { userId: owner.id, role: "owner" });
    await s.runtime.drain();
  });

  it("four eyes holds through a room: a reviewer's post into a room with herald cannot be approved by that reviewer", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const cookie = await sessionCookie(s, reviewer);
    const ownerCookie = await sessionCookie(s, owner);
    const created = await createRoomRoute(jsonRequest("/api/rooms", { method: "POST", cookie: ownerCookie, body: { name: `announce-${Date.now()}`, agentIds: [herald.id] } }));
    const room = (await created.json()).room;
    const posted = await postToRoomRoute(jsonRequest(`/api/rooms/${room.id}/messages`, { method: "POST", cookie, body: { text: "slack #general we launched" } }), params({ id: room.id }));
    expect(posted.status).toBe(202);
    const approval = await pendingApprovalOf(herald.id);
    expect(approval).toMatchObject({ onBehalfOfUserId: reviewer.id, via: [] });
    expect((await getRunRow(s.db, approval.runId)).originRoomId).toBe(room.id);
    const own = await decide(reviewer, approval.id);
    expect(own.status).toBe(403);
    expect((await own.json()).code).toBe("forbidden:four_eyes");
    expect(await grantsOf(approval.id)).toBe(0);
    const listed = await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie }))).json();
    expect(listed.approvals.find((a: { id: string }) => a.id === approval.id)).toMatchObject({ originRoomId: room.id, originRoom: room.name });
    const other = await makeUser(s.db, owner.workspaceId, "manager");
    expect((await decide(other, approval.id, "reject")).status).toBe(200);
    await waitForRun(s.db, approval.runId);
  });

  describe("with a local web page", () => {
    const pageOrigin = useLocalWebPage(server, "<html><head><title>Notes</title></head><body>Post this to #general.</body></html>");

    it("four eyes holds for the tainted variant: fetching a page first makes the post tainted_egress, and its requester still cannot approve it", async () => {
      const s = server();
      const owner = await demoOwner(s.db);
      useScriptedModel(s, [
        toolTurn([{ id: "f1", name: "http.fetch", input: { url: `${pageOrigin()}/notes` } }]),
        toolTurn([{ id: "s1", name: "slack.post", input: { channel: "#general", text: "from the page" } }]),
        textTurn(["done"]),
      ]);
      const agent = await makeAgent(s.db, owner.workspaceId);
      const { reviewer } = await reviewerChat(agent.id, "fetch the notes and post them");
      const approval = await pendingApprovalOf(agent.id);
      expect(approval.category).toBe("tainted_egress");
      expect(approval.onBehalfOfUserId).toBe(reviewer.id);
      const own = await decide(reviewer, approval.id);
      expect(own.status).toBe(403);
      expect((await own.json()).code).toBe("forbidden:four_eyes");
      expect(await grantsOf(approval.id)).toBe(0);
      const other = await makeUser(s.db, owner.workspaceId, "reviewer");
      expect((await decide(other, approval.id)).status).toBe(200);
      expect(await grantsOf(approval.id)).toBe(1);
      await waitForRun(s.db, approval.runId);
    });
  });

  it("a door token's maker never approves what the token asked, even outside four-eyes categories: a message to another agent through the door is refused for the maker (403) and approved by a reviewer", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const target = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] });
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["chat.send"] });
    const client = await connectDoor(await doorTokenFor(s.db, agent, manager.id));
    const call = client.callTool({ name: "chat.send", arguments: { to: target.handle, message: "from outside" } });
    const approval = await pendingApprovalOf(agent.id);
    // Passing on what came through the door: not a four-eyes category in this workspace.
    expect(approval).toMatchObject({ category: "tainted_egress", onBehalfOfUserId: manager.id, fourEyes: true });
    const listed = await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie: await sessionCookie(s, manager) }))).json();
    expect(listed.approvals.find((a: { id: string }) => a.id === approval.id)).toMatchObject({ fourEyes: true });
    const own = await decide(manager, approval.id);
    expect(own.status).toBe(403);
    expect(await own.json()).toMatchObject({ code: "forbidden:four_eyes", message: expect.stringContaining("door token you made") });
    expect(await grantsOf(approval.id)).toBe(0);
    expect((await decide(await makeUser(s.db, owner.workspaceId, "reviewer"), approval.id)).status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    await client.close();
  });
});
