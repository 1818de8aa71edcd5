/**
 * Deciding several requests at once. Each is decided on its own by `decideApproval`, under its own rules (four eyes,
 * expiry, single use, the policy of the day), and the answer says, for each, what became of it and why not when it
 * was not decided. One refused request never holds back the others.
 */
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import type { EventBus } from "../db/bus";
import { approvals } from "../db/schema";
import { AppError, isAppError } from "../errors";
import type { ToolRegistry } from "../tools/registry";
import { decideApproval, REJECT_REASON_REQUIRED, type Decider } from "./approvals";

export const BATCH_MAX = 100;

export const batchDecisionSchema = z.object({
  ids: z.array(z.uuid()).min(1).max(BATCH_MAX),
  decision: z.enum(["approve", "reject"]),
  reason: z.string().trim().max(2000).optional(),
});
export type BatchDecisionInput = z.infer<typeof batchDecisionSchema>;

export interface BatchResult {
  id: string;
  /** What the request is now: approved or rejected by this batch, or what it was left as. */
  status: "pending" | "approved" | "rejected" | "expired" | "withdrawn" | "not_found";
  /** Why it was not decided by this batch (absent when it was). */
  code?: string;
  message?: string;
  /** The run the decision resumes. */
  runId?: string;
}

export async function decideMany(
  db: Db,
  bus: EventBus,
  tools: ToolRegistry,
  input: { workspaceId: string; decider: Decider } & BatchDecisionInput,
): Promise<BatchResult[]> {
  if (input.decision === "reject" && REJECT_REASON_REQUIRED && !input.reason?.trim()) {
    throw new AppError("bad_request:reason", "Say why you reject them: each agent is told the reason.");
  }
  const ids = [...new Set(input.ids)];
  const results: (BatchResult & { expired?: boolean })[] = [];
  for (const id of ids) {
    try {
      const decided = await decideApproval(db, bus, tools, {
        workspaceId: input.workspaceId,
        approvalId: id,
        decider: input.decider,
        decision: input.decision,
        reason: input.reason,
        via: "inbox",
      });
      // The policy came to deny it: withdrawn rather than approved, and said so like any other refusal.
      if (decided.status === "withdrawn") {
        results.push({ id, status: "withdrawn", code: "conflict:approval", message: `This request was withdrawn.${decided.reason ? ` ${decided.reason}` : ""}`, runId: decided.runId });
      } else results.push({ id, status: decided.status as "approved" | "rejected", runId: decided.runId });
    } catch (error) {
      if (!isAppError(error)) throw error;
      const expired = (error.details as { status?: string } | undefined)?.status === "expired";
      results.push({ id, status: "pending", code: error.code, message: error.message, ...(expired ? { expired } : {}) });
    }
  }
  // What the refused ones are now (decided by someone else, expired, or still waiting), read once for all of them.
  const refused = results.filter((r) => r.code && r.status === "pending");
  if (refused.length > 0) {
    const rows = await db
      .select({ id: approvals.id, status: approvals.status })
      .from(approvals)
      .where(and(eq(approvals.workspaceId, input.workspaceId), inArray(approvals.id, refused.map((r) => r.id))));
    const now = new Map(rows.map((r) => [r.id, r.status]));
    for (const r of refused) r.status = r.expired ? "expired" : (now.get(r.id) ?? "not_found");
    for (const r of refused) delete r.expired;
  }
  return results;
}
