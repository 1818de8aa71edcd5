import { and, eq } from "drizzle-orm";
import { POST as decisionRoute } from "../../app/api/approvals/[id]/decision/route";
import { approvals, executionGrants } from "../../lib/db/schema";
import { createChat } from "../../lib/chats/chats";
import type { Server } from "../../lib/server";
import { demoOwner, makeUser } from "./fixtures";
import { getRunRow, settle } from "./runtime";
import { jsonRequest, params, sessionCookie } from "./server";

type Person = { id: string; email: string; name: string };

/** What the approval tests do again and again, on the test server `server` returns. */
export function approvalSteps(server: () => Server) {
  /** A new reviewer of the demo workspace asks `agentId` for `text` in a chat of their own. */
  async function reviewerChat(agentId: string, text: string) {
    const s = server();
    const owner = await demoOwner(s.db);
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: reviewer.id, agent: { id: agentId } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: reviewer.id, text });
    return { owner, reviewer, session, runId };
  }

  /** The agent's pending approval, once there is one. */
  async function pendingApprovalOf(agentId: string) {
    const s = server();
    return settle(async () => (await s.db.select().from(approvals).where(and(eq(approvals.agentId, agentId), eq(approvals.status, "pending"))))[0]);
  }

  /** `user` decides the approval through its route, as the inbox does. */
  async function decide(user: Person, approvalId: string, decision: "approve" | "reject" = "approve") {
    const s = server();
    return decisionRoute(
      jsonRequest(`/api/approvals/${approvalId}/decision`, { method: "POST", cookie: await sessionCookie(s, user), body: { decision, ...(decision === "reject" ? { reason: "Not now" } : {}) } }),
      params({ id: approvalId }),
    );
  }

  /** How many execution grants the approval has minted. */
  const grantsOf = async (approvalId: string) => (await server().db.select().from(executionGrants).where(eq(executionGrants.approvalId, approvalId))).length;

  /** `user` asks `agentId` for `text` in a new chat of `workspaceId`; returns once the run is suspended on an approval. */
  async function chatAs(user: { id: string }, workspaceId: string, agentId: string, text: string) {
    const s = server();
    const session = await createChat(s.db, { workspaceId, userId: user.id, agent: { id: agentId } });
    const { runId } = await s.runtime.startChatRun({ workspaceId, sessionId: session.id, userId: user.id, text });
    await settle(async () => (await getRunRow(s.db, runId)).state === "suspended");
    return runId;
  }

  return { reviewerChat, pendingApprovalOf, decide, grantsOf, chatAs };
}
