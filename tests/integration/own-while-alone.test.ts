import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as readRoute, PUT as setRoute } from "../../app/api/approvals/own-while-alone/route";
import { approvals, auditLog, workspaces } from "../../lib/db/schema";
import { acceptInvitationAsUser, createInvitation } from "../../lib/workspaces/invitations";
import { changeMemberRole } from "../../lib/workspaces/members";
import { createUser } from "../../lib/workspaces/users";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent, waitForRun } from "../support/runtime";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";
import { approvalSteps } from "../support/approvals";

describe("a team of one: the owner approves their own requests while nobody else can decide, until a second reviewer joins", () => {
  const server = useTestServer();
  const { pendingApprovalOf, decide, grantsOf, chatAs } = approvalSteps(server);

  it("refused by four eyes until the owner turns it on (audited); never through a door token; ends for good when a reviewer joins", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Solo", owner);
    const cookie = await sessionCookie(s, owner);
    const state = async (as = cookie) => (await readRoute(jsonRequest("/api/approvals/own-while-alone", { cookie: as, workspace: ws.slug }))).json();
    const set = (on: boolean, as = cookie) => setRoute(jsonRequest("/api/approvals/own-while-alone", { method: "PUT", cookie: as, workspace: ws.slug, body: { on } }));
    const audits = async (action: string) =>
      s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, ws.id), eq(auditLog.action, action))).orderBy(asc(auditLog.id));

    const herald = await makeAgent(s.db, ws.id, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, ws.id, herald.id, "slack #general my own news");
    const first = await pendingApprovalOf(herald.id);
    expect(first).toMatchObject({ fourEyes: true, onBehalfOfUserId: owner.id });
    expect(await state()).toEqual({ alone: true, on: false, byName: null, at: null });
    const refused = await decide(owner, first.id);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe("forbidden:four_eyes");

    // A member does not decide: the owner is still alone, and only the owner may turn it on.
    const member = await makeUser(s.db, ws.id, "member");
    const byMember = await set(true, await sessionCookie(s, member));
    expect(byMember.status).toBe(403);
    expect((await state()).on).toBe(false);

    const on = await set(true);
    expect(on.status).toBe(200);
    expect(await on.json()).toMatchObject({ alone: true, on: true, byName: owner.name });
    expect(await audits("approvals.own_allowed")).toHaveLength(1);

    // Through a door token the owner made: still someone else's to approve.
    await s.db.update(approvals).set({ via: ["door:laptop"] }).where(eq(approvals.id, first.id));
    const door = await decide(owner, first.id);
    expect(door.status).toBe(403);
    expect((await door.json()).message).toMatch(/door token you made/);
    await s.db.update(approvals).set({ via: [] }).where(eq(approvals.id, first.id));

    expect((await decide(owner, first.id)).status).toBe(200);
    expect(await grantsOf(first.id)).toBe(1);
    expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_completed");
    const [approved] = await audits("approval.approved");
    expect(approved?.detail).toMatchObject({ ownRequestWhileAlone: true });

    // A second person who may decide: the exception ends at once, is switched off, and says why.
    await chatAs(owner, ws.id, herald.id, "slack #general more news");
    const second = await pendingApprovalOf(herald.id);
    await changeMemberRole(s.db, ws.id, { userId: owner.id, role: "owner" }, member.id, "reviewer");
    expect(await state()).toEqual({ alone: false, on: false, byName: null, at: null });
    const [row] = await s.db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, ws.id));
    expect(row!.settings.soloApproval).toBeUndefined();
    expect((await audits("approvals.own_ended")).at(-1)).toMatchObject({ actorKind: "system", detail: { reason: "a second person who may decide joined", userId: member.id } });
    expect((await decide(owner, second.id)).status).toBe(403);
    const notAlone = await set(true);
    expect(notAlone.status).toBe(409);
    expect((await notAlone.json()).code).toBe("conflict:not_alone");

    // The reviewer steps back to member: alone again, and the exception does not come back by itself.
    await changeMemberRole(s.db, ws.id, { userId: owner.id, role: "owner" }, member.id, "member");
    expect(await state()).toEqual({ alone: true, on: false, byName: null, at: null });
    expect((await decide(owner, second.id)).status).toBe(403);
  });

  it("joining by an invitation as a reviewer ends it too", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Solo invited", owner);
    const cookie = await sessionCookie(s, owner);
    expect((await setRoute(jsonRequest("/api/approvals/own-while-alone", { method: "PUT", cookie, workspace: ws.slug, body: { on: true } }))).status).toBe(200);
    const { token } = await createInvitation(s.db, ws.id, { userId: owner.id, role: "owner" }, { email: "second@solo.test", role: "reviewer" });
    const reviewer = await createUser(s.db, { email: "second@solo.test", name: "Second", password: "password-123" });
    await acceptInvitationAsUser(s.db, reviewer, token);
    const after = await (await readRoute(jsonRequest("/api/approvals/own-while-alone", { cookie, workspace: ws.slug }))).json();
    expect(after).toEqual({ alone: false, on: false, byName: null, at: null });
  });
});
