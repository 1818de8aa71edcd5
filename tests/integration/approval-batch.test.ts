import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as batchRoute } from "../../app/api/approvals/decisions/route";
import { approvals, auditLog, executionGrants } from "../../lib/db/schema";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, waitForRun } from "../support/runtime";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";
import { approvalSteps } from "../support/approvals";

describe("deciding several requests at once", () => {
  const server = useTestServer();
  const { chatAs, decide } = approvalSteps(server);

  async function pendingOf(runId: string) {
    const [row] = await server().db.select().from(approvals).where(and(eq(approvals.runId, runId), eq(approvals.status, "pending")));
    return row!;
  }

  it("a batch with one request of the decider's own: the others are approved and their runs go on, that one is refused for four eyes and still waits", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const rita = await makeUser(s.db, owner.workspaceId, "reviewer");
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const theirs = [await chatAs(member, owner.workspaceId, herald.id, "slack #general first"), await chatAs(member, owner.workspaceId, herald.id, "slack #general second")];
    const own = await chatAs(rita, owner.workspaceId, herald.id, "slack #general my own");
    const ids = [...(await Promise.all(theirs.map(pendingOf))).map((a) => a.id), (await pendingOf(own)).id];

    const response = await batchRoute(jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, rita), body: { ids, decision: "approve" } }));
    expect(response.status).toBe(200);
    const { results } = await response.json();
    expect(results).toEqual([
      { id: ids[0], status: "approved" },
      { id: ids[1], status: "approved" },
      { id: ids[2], status: "pending", code: "forbidden:four_eyes", message: expect.stringMatching(/someone else to approve/) },
    ]);
    for (const runId of theirs) expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_completed");
    expect((await s.db.select().from(executionGrants).where(eq(executionGrants.approvalId, ids[2]!))).length).toBe(0);
    const audited = await s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, owner.workspaceId), eq(auditLog.action, "approval.approved")));
    expect(audited.filter((a) => ids.includes(a.targetId ?? "")).length).toBe(2);

    // Decided by someone else meanwhile: the second batch says so for that one.
    expect((await decide(owner, ids[2]!, "reject")).status).toBe(200);
    const again = await (await batchRoute(jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, rita), body: { ids: [ids[2]], decision: "reject", reason: "no" } }))).json();
    expect(again.results).toEqual([{ id: ids[2], status: "rejected", code: "conflict:approval", message: "This action was already rejected." }]);
    await waitForRun(s.db, own);
  });

  it("a rejection without a reason decides none of them; a member may not decide; an unknown id is said to be not found", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(member, owner.workspaceId, herald.id, "slack #general hello");
    const { id } = await pendingOf(runId);

    const noReason = await batchRoute(jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, reviewer), body: { ids: [id], decision: "reject" } }));
    expect(noReason.status).toBe(400);
    expect((await noReason.json()).code).toBe("bad_request:reason");
    const byMember = await batchRoute(jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, member), body: { ids: [id], decision: "approve" } }));
    expect(byMember.status).toBe(403);
    const tooMany = await batchRoute(jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, reviewer), body: { ids: Array(101).fill(id), decision: "approve" } }));
    expect(tooMany.status).toBe(400);
    expect((await pendingOf(runId)).status).toBe("pending");

    const unknown = "00000000-0000-4000-8000-000000000000";
    const { results } = await (
      await batchRoute(jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, reviewer), body: { ids: [unknown, id, id], decision: "reject", reason: "Wrong channel" } }))
    ).json();
    expect(results).toEqual([
      { id: unknown, status: "not_found", code: "not_found:approval", message: expect.any(String) },
      { id, status: "rejected" },
    ]);
    expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_completed");
  });
});
