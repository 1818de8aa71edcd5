import { and, asc, desc, eq, inArray, lt, ne, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { browserDecisionChannels, type DecisionChannel } from "../decision-channels";
import { assertCanDecideApproval } from "../access/access";
import type { Db } from "../db/client";
import { agentRuns, agents, approvals, rooms, users, workspaces, type Approval, type Role } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import type { EventBus } from "../db/bus";
import { insertRunEvents, notifyRun } from "../journal/run-journal-store";
import { recordFeed } from "../feed/feed";
import type { ToolRegistry } from "../tools/registry";
import { callFingerprint } from "./fingerprint";
import { mintGrant } from "./grants";
import { ownApprovalAllowed } from "./solo-approval";
import { cameThroughDoor } from "./through-door";
import { baseCategory, classifyCall, defaultFourEyesCategories, workspacePolicy, type WorkspacePolicy } from "./policy";
import type { ToolEffect, ToolPreview } from "../tools/types";
import { createToolRegistry, effectsOfCall, toolSpec } from "../tools/registry";
import { CAP_CATEGORY, capQuestionWithoutFigures, isCapRequest } from "../billing/cap-words";
import { can } from "../access/capabilities";
import { assertCanDecideCapRequest, capRequestOf, raiseCap } from "./cap-requests";

export const approvalsTopic = (workspaceId: string) => `approvals:${workspaceId}`;

export const decisionSchema = z.object({
  decision: z.enum(["approve", "reject"]),
  reason: z.string().trim().max(2000).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  /** Where the person decided: the inbox (by default), the chat that asked, the run's page or a notification. Shown with the decision. */
  via: z.enum(browserDecisionChannels).optional(),
});

/** A rejection must say why: the agent is told the reason, and an unexplained refusal leaves it guessing. */
export const REJECT_REASON_REQUIRED = true;
/** A decision as the decision function takes it: Slack's decisions arrive through Slack, not through the routes. */
export type DecisionInput = Omit<z.infer<typeof decisionSchema>, "via"> & { via?: DecisionChannel };

export interface Decider {
  userId: string;
  role: Role;
  /** Shown with the decision in the run ("Approved by Rita"). */
  name?: string;
}

/**
 * Whether four eyes applies to a request: its category is a four-eyes
 * category, or it is the tainted variant of one (a send outside that became
 * `tainted_egress` because the run read a web page is still a send outside).
 * A tainted request whose tool is unknown is treated as four eyes.
 */
export function fourEyesApplies(categories: readonly string[], category: string, effects: readonly ToolEffect[] | undefined): boolean {
  if (categories.includes(category)) return true;
  if (category !== "tainted_egress") return false;
  if (!effects) return true;
  const base = baseCategory(effects);
  return base !== null && categories.includes(base);
}

export { cameThroughDoor };

/**
 * Refuses an approval by the person behind the request. When nobody is
 * recorded as that person (a run started by no one, or whose person was
 * deleted), nobody can be ruled out, so only a manager or an owner may approve.
 */
function assertFourEyes(approval: Pick<Approval, "onBehalfOfUserId" | "requestedByUserId" | "via">, decider: Decider): void {
  const behalf = approval.onBehalfOfUserId ?? approval.requestedByUserId;
  if (behalf === decider.userId && cameThroughDoor(approval.via)) {
    throw new AppError("forbidden:four_eyes", "This request came through a door token you made, so someone else must approve it, whatever it does.");
  }
  if (behalf === decider.userId) {
    throw new AppError("forbidden:four_eyes", "This workspace requires someone else to approve actions taken on your behalf, whichever agents they came through.");
  }
  if (behalf === null && decider.role !== "manager" && decider.role !== "owner") {
    throw new AppError(
      "forbidden:four_eyes",
      "This action needs a second person's approval, but no person is recorded behind the request, so only a manager or an owner may approve it.",
    );
  }
}

/**
 * Decides a pending approval exactly once. The row is locked and checked
 * inside one transaction, so of concurrent decisions one wins and the rest
 * get `conflict:approval`. Approval mints the single-use grant for the exact
 * (possibly edited) call; the decision is journaled on the run.
 */
export async function decideApproval(
  db: Db,
  bus: EventBus,
  tools: ToolRegistry,
  input: { workspaceId: string; approvalId: string; decider: Decider } & DecisionInput,
): Promise<Approval> {
  assertCanDecideApproval(input.decider);
  if (input.decision === "reject" && input.input) throw new AppError("bad_request:body", "An edited input goes with an approval, not a rejection.");
  if (input.decision === "reject" && REJECT_REASON_REQUIRED && !input.reason?.trim()) {
    throw new AppError("bad_request:reason", "Say why you reject it: the agent is told the reason.");
  }
  if (!z.uuid().safeParse(input.approvalId).success) throw new AppError("not_found:approval");
  const result = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ approval: approvals, settings: workspaces.settings, runTaint: agentRuns.taint, runState: agentRuns.state })
      .from(approvals)
      .innerJoin(workspaces, eq(workspaces.id, approvals.workspaceId))
      .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
      .where(and(eq(approvals.id, input.approvalId), eq(approvals.workspaceId, input.workspaceId)))
      // The run row too: a cancel (which withdraws the approval) and a decision never interleave.
      .for("update", { of: [approvals, agentRuns] });
    if (!row) throw new AppError("not_found:approval");
    const { approval } = row;
    if (approval.status === "withdrawn") throw withdrawnRefusal(approval.reason);
    if (approval.status !== "pending") {
      throw new AppError("conflict:approval", `This action was already ${approval.status}.`, { details: { status: approval.status } });
    }
    if (row.runState !== "suspended") {
      throw new AppError("conflict:approval", "The run that asked for this is no longer waiting for a decision (it was stopped or has ended).", {
        details: { status: approval.status, runState: row.runState },
      });
    }
    if (approval.expiresAt.getTime() <= Date.now()) throw new AppError("conflict:approval", "This approval has expired.", { details: { status: "expired" } });
    // A request to go past a cap is no tool call: managers and owners decide it as asked, and approving raises the cap.
    const cap = isCapRequest(approval);
    if (cap) assertCanDecideCapRequest(input.decider, { edited: !!input.input });
    const policy = workspacePolicy(row.settings);
    if (input.decision === "approve" && !cap) {
      // The policy as it is now: a tool or category denied since the request was made is not approved but withdrawn.
      const denied = await withdrawDenied(tx, { workspaceId: input.workspaceId, overrides: policy.overrides, tools, approvalIds: [approval.id] });
      if (denied.length > 0) return { kind: "withdrawn" as const, withdrawn: denied[0]! };
    }
    // Four eyes as it was when the request was made, or as the policy says now: a later policy tightens, never loosens.
    const fourEyes = approval.fourEyes || cameThroughDoor(approval.via) || fourEyesApplies(policy.fourEyesCategories, approval.category, tools.get(approval.tool)?.effects);
    // A team of one: the owner, on their own say (audited), approves their own requests while nobody else can.
    const ownWhileAlone =
      input.decision === "approve" &&
      fourEyes &&
      (await ownApprovalAllowed(tx, row.settings, input.workspaceId, input.decider, {
        behalf: approval.onBehalfOfUserId ?? approval.requestedByUserId,
        throughDoor: cameThroughDoor(approval.via),
      }));
    if (input.decision === "approve" && fourEyes && !ownWhileAlone) assertFourEyes(approval, input.decider);

    let fingerprint = approval.fingerprint;
    let editedInput: Record<string, unknown> | null = null;
    let editedPreview: ToolPreview | undefined;
    if (input.input) {
      const tool = tools.get(approval.tool);
      const parsed = tool?.input.safeParse(input.input);
      if (!tool || !parsed?.success) {
        throw new AppError("unprocessable:tool_input", `The edited input is not valid for ${approval.tool}: ${parsed?.error?.issues[0]?.message ?? "unknown tool"}`);
      }
      editedInput = parsed.data;
      editedPreview = tool.preview(parsed.data);
      // The edited call is a new call; the policy, which judges a call by its tool and the run's taint, was applied above.
      fingerprint = callFingerprint(approval.tool, editedInput);
    }

    const status = input.decision === "approve" ? "approved" : "rejected";
    const [decided] = await tx
      .update(approvals)
      .set({
        status,
        decidedByUserId: input.decider.userId,
        decidedAt: new Date(),
        decidedVia: input.via ?? "inbox",
        reason: input.reason ?? null,
        editedInput,
        fingerprint,
      })
      .where(and(eq(approvals.id, approval.id), eq(approvals.status, "pending")))
      .returning();
    if (!decided) throw new AppError("conflict:approval", "This action was already decided.");
    if (status === "approved" && cap) await raiseCap(tx, approval, input.decider.userId);
    else if (status === "approved") await mintGrant(tx, { workspaceId: input.workspaceId, approvalId: approval.id, fingerprint });
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: { kind: "user", id: input.decider.userId },
      action: `approval.${status}`,
      target: { type: "approval", id: approval.id },
      detail: {
        tool: approval.tool,
        category: approval.category,
        reason: input.reason ?? null,
        inputEdited: !!editedInput,
        fingerprint,
        via: input.via ?? "inbox",
        ...(ownWhileAlone ? { ownRequestWhileAlone: true } : {}),
      },
    });
    const seq = await insertRunEvents(tx, approval.runId, null, [
      {
        type: "approval_decided",
        payload: {
          approvalId: approval.id,
          status,
          decidedBy: input.decider.userId,
          ...(input.decider.name ? { decidedByName: input.decider.name } : {}),
          via: input.via ?? "inbox",
          reason: input.reason ?? null,
          inputEdited: !!editedInput,
          ...(editedInput ? { input: editedInput, preview: editedPreview } : {}),
        },
      },
    ]);
    return { kind: "decided" as const, decided, seq };
  });
  if (result.kind === "withdrawn") {
    await announceWithdrawn(db, bus, [result.withdrawn]);
    const [row] = await db.select().from(approvals).where(eq(approvals.id, result.withdrawn.id));
    return row!;
  }
  await notifyRun(bus, result.decided.runId, result.seq);
  await bus.publish(approvalsTopic(input.workspaceId), { approvalId: result.decided.id, status: result.decided.status });
  await recordFeed(db, bus, [
    {
      workspaceId: input.workspaceId,
      kind: "approval_decided",
      agentId: result.decided.agentId,
      runId: result.decided.runId,
      stepId: result.decided.stepId,
      approvalId: result.decided.id,
      payload: {
        status: result.decided.status,
        tool: result.decided.tool,
        title: isCapRequest(result.decided)
          ? capQuestionWithoutFigures(capRequestOf(result.decided))
          : ((result.decided.preview as { title?: string }).title ?? result.decided.tool),
        category: result.decided.category,
        reason: result.decided.reason,
        inputEdited: !!result.decided.editedInput,
      },
    },
  ]);
  return result.decided;
}

/** The answer to a decision on a withdrawn request: nothing is left to decide, and why. */
export function withdrawnRefusal(reason: string | null): AppError {
  return new AppError("conflict:approval", `This request was withdrawn, so there is nothing to decide.${reason ? ` ${reason}` : ""}`, {
    details: { status: "withdrawn" },
  });
}

/** A pending request the policy came to deny, withdrawn in the caller's transaction (see `withdrawDenied`). */
export interface WithdrawnApproval {
  id: string;
  workspaceId: string;
  runId: string;
  agentId: string;
  stepId: string | null;
  tool: string;
  reason: string;
  seq: number;
}

/**
 * Withdraws the pending requests (of the workspace, or only `approvalIds`) whose run still waits and whose call the
 * given policy denies, with the policy's reason, journaled on each run, in the caller's transaction. Their runs then
 * go on as after a refusal once resumed; `announceWithdrawn` tells the watchers after the commit.
 */
export async function withdrawDenied(
  tx: Db,
  input: { workspaceId: string; overrides: WorkspacePolicy["overrides"]; tools: ToolRegistry; approvalIds?: string[]; actorId?: string },
): Promise<WithdrawnApproval[]> {
  const where = [eq(approvals.workspaceId, input.workspaceId), eq(approvals.status, "pending"), eq(agentRuns.state, "suspended")];
  if (input.approvalIds) where.push(inArray(approvals.id, input.approvalIds));
  const rows = await tx
    .select({ approval: approvals, runTaint: agentRuns.taint })
    .from(approvals)
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .where(and(...where))
    .for("update", { of: [approvals, agentRuns] });
  const withdrawn: WithdrawnApproval[] = [];
  for (const { approval, runTaint } of rows) {
    // A request to go past a cap asks for no tool: no policy withdraws it.
    if (isCapRequest(approval)) continue;
    const tool = input.tools.get(approval.tool);
    if (!tool) continue;
    const verdict = classifyCall({ tool: tool.name, effects: effectsOfCall(tool, (approval.editedInput ?? approval.input) as Record<string, unknown>), taint: runTaint, overrides: input.overrides });
    if (verdict.kind !== "deny") continue;
    const reason = verdict.reason;
    await tx.update(approvals).set({ status: "withdrawn", decidedAt: new Date(), reason }).where(eq(approvals.id, approval.id));
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: input.actorId ? { kind: "user", id: input.actorId } : { kind: "system" },
      action: "approval.withdrawn",
      target: { type: "approval", id: approval.id },
      detail: { tool: approval.tool, category: approval.category, reason },
    });
    const seq = await insertRunEvents(tx, approval.runId, null, [
      { type: "approval_decided", payload: { approvalId: approval.id, status: "withdrawn", decidedBy: null, reason, inputEdited: false } },
    ]);
    withdrawn.push({ id: approval.id, workspaceId: approval.workspaceId, runId: approval.runId, agentId: approval.agentId, stepId: approval.stepId, tool: approval.tool, reason, seq });
  }
  return withdrawn;
}

/** Tells the runs' followers, the inbox and the feed about requests withdrawn in a committed transaction. */
export async function announceWithdrawn(db: Db, bus: EventBus, withdrawn: WithdrawnApproval[]): Promise<void> {
  for (const w of withdrawn) {
    await notifyRun(bus, w.runId, w.seq);
    await bus.publish(approvalsTopic(w.workspaceId), { approvalId: w.id, status: "withdrawn" });
  }
  if (withdrawn.length === 0) return;
  await recordFeed(
    db,
    bus,
    withdrawn.map((w) => ({
      workspaceId: w.workspaceId,
      kind: "approval_decided" as const,
      agentId: w.agentId,
      runId: w.runId,
      stepId: w.stepId,
      approvalId: w.id,
      payload: { status: "withdrawn", tool: w.tool, reason: w.reason },
    })),
  );
}

/** Marks overdue pending approvals expired, journals it on their runs, and returns their ids. */
export async function expireOverdueApprovals(db: Db, bus: EventBus): Promise<string[]> {
  const expired = await db.transaction(async (tx) => {
    const rows = await tx
      .update(approvals)
      .set({ status: "expired", decidedAt: new Date(), reason: "No decision before the deadline." })
      // Only requests whose run still waits: a stopped run's requests were withdrawn with it.
      .where(
        and(
          eq(approvals.status, "pending"),
          lt(approvals.expiresAt, sql`now()`),
          sql`exists (select 1 from ${agentRuns} where ${agentRuns.id} = ${approvals.runId} and ${agentRuns.state} = 'suspended')`,
        ),
      )
      .returning({ id: approvals.id, runId: approvals.runId, workspaceId: approvals.workspaceId, tool: approvals.tool });
    const seqs: { runId: string; seq: number; workspaceId: string; id: string; tool: string }[] = [];
    for (const row of rows) {
      await recordAudit(tx, { workspaceId: row.workspaceId, actor: { kind: "system" }, action: "approval.expired", target: { type: "approval", id: row.id }, detail: { tool: row.tool } });
      const seq = await insertRunEvents(tx, row.runId, null, [
        { type: "approval_decided", payload: { approvalId: row.id, status: "expired", decidedBy: null, reason: "No decision before the deadline.", inputEdited: false } },
      ]);
      seqs.push({ ...row, seq });
    }
    return seqs;
  });
  for (const row of expired) {
    await notifyRun(bus, row.runId, row.seq);
    await bus.publish(approvalsTopic(row.workspaceId), { approvalId: row.id, status: "expired" });
    await recordFeed(db, bus, [
      { workspaceId: row.workspaceId, kind: "approval_decided", runId: row.runId, approvalId: row.id, payload: { status: "expired", tool: row.tool } },
    ]);
  }
  return expired.map((r) => r.id);
}

export const approvalListQuerySchema = z.object({
  status: z.enum(["pending", "decided", "expired", "withdrawn", "all"]).default("pending"),
  category: z.string().max(40).optional(),
  agent: z.string().max(41).optional(),
  taint: z.string().max(200).optional(),
  sort: z.enum(["expiry", "newest", "oldest"]).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});
export type ApprovalListQuery = z.infer<typeof approvalListQuerySchema>;

const decidedBy = sql<string | null>`(select name from ${users} where ${users.id} = ${approvals.decidedByUserId})`;
const requestedBy = sql<string | null>`(select name from ${users} where ${users.id} = ${approvals.requestedByUserId})`;
const onBehalfOf = sql<string | null>`(select name from ${users} where ${users.id} = ${approvals.onBehalfOfUserId})`;
const originRoom = sql<string | null>`(select name from ${rooms} where ${rooms.id} = ${agentRuns.originRoomId})`;

export async function listApprovals(db: Db, workspaceId: string, query: ApprovalListQuery, tools: ToolRegistry = createToolRegistry()) {
  const where: SQL[] = [eq(approvals.workspaceId, workspaceId)];
  if (query.status === "pending") where.push(eq(approvals.status, "pending"));
  if (query.status === "decided") where.push(inArray(approvals.status, ["approved", "rejected"]));
  if (query.status === "expired") where.push(eq(approvals.status, "expired"));
  if (query.status === "withdrawn") where.push(eq(approvals.status, "withdrawn"));
  if (query.category && query.category !== "tainted_egress") {
    // A tainted send outside is still a send outside: its tool's own category finds it too (checked on its input below).
    const alike = tools.all().filter((t) => t.effectsOf || baseCategory(t.effects) === query.category).map((t) => t.name);
    where.push(
      alike.length > 0
        ? or(eq(approvals.category, query.category), and(eq(approvals.category, "tainted_egress"), inArray(approvals.tool, alike)))!
        : eq(approvals.category, query.category),
    );
  } else if (query.category) where.push(eq(approvals.category, query.category));
  if (query.agent) where.push(eq(agents.handle, query.agent.replace(/^@/, "")));
  if (query.taint) where.push(sql`${approvals.taintSources} @> ${JSON.stringify([{ source: query.taint }])}::jsonb`);
  const sort = query.sort ?? (query.status === "pending" ? "expiry" : "newest");
  const order =
    sort === "expiry" ? [asc(approvals.expiresAt)] : sort === "oldest" ? [asc(approvals.createdAt)] : [desc(sql`coalesce(${approvals.decidedAt}, ${approvals.createdAt})`)];
  const read = await listApprovalsWhere(db, and(...where)!, query.status === "pending" ? 1000 : query.limit, order, tools);
  const rows = query.category && query.category !== "tainted_egress" ? read.filter((r) => r.category === query.category || r.baseCategory === query.category) : read;
  return query.status === "pending" ? groupIdentical(rows).slice(0, query.limit) : rows;
}

/**
 * Identical pending requests (same agent, tool and exact input) are shown
 * once, the first in the list's order, with how many there are. A decision
 * applies to the one shown only: each request belongs to its own run, and
 * the next one is then shown with the count one lower.
 */
function groupIdentical<T extends { id: string; agent: { id: string }; tool: string; fingerprint: string }>(rows: T[]) {
  const groups = new Map<string, T & { identical: { count: number; ids: string[] } }>();
  for (const row of rows) {
    const key = `${row.agent.id}|${row.tool}|${row.fingerprint}`;
    const group = groups.get(key);
    if (group) {
      group.identical.count += 1;
      group.identical.ids.push(row.id);
    } else groups.set(key, { ...row, identical: { count: 1, ids: [row.id] } });
  }
  return [...groups.values()];
}

async function listApprovalsWhere(db: Db, where: SQL, limit: number, order: SQL[] = [desc(approvals.createdAt)], tools: ToolRegistry = createToolRegistry()) {
  const rows = await db
    .select({
      fingerprint: approvals.fingerprint,
      onBehalfOf,
      onBehalfOfUserId: approvals.onBehalfOfUserId,
      via: approvals.via,
      originSessionId: agentRuns.originSessionId,
      originRoomId: agentRuns.originRoomId,
      originRoom,
      fourEyesCategories: sql<string[] | null>`(${workspaces.settings}->'fourEyesCategories')`,
      fourEyesWhenAsked: approvals.fourEyes,
      id: approvals.id,
      runId: approvals.runId,
      stepId: approvals.stepId,
      category: approvals.category,
      tool: approvals.tool,
      callId: approvals.callId,
      input: approvals.input,
      editedInput: approvals.editedInput,
      preview: approvals.preview,
      taintSources: approvals.taintSources,
      status: approvals.status,
      reason: approvals.reason,
      judgeVerdict: approvals.judgeVerdict,
      expiresAt: approvals.expiresAt,
      createdAt: approvals.createdAt,
      decidedAt: approvals.decidedAt,
      decidedBy,
      decidedVia: approvals.decidedVia,
      requestedBy,
      requestedByUserId: approvals.requestedByUserId,
      sessionId: agentRuns.sessionId,
      /** The mission the asking run is a node of (missions are open to every member). */
      missionId: agentRuns.missionRunId,
      agent: { id: agents.id, handle: agents.handle, name: agents.name, color: agents.color },
    })
    .from(approvals)
    .innerJoin(agents, eq(agents.id, approvals.agentId))
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .innerJoin(workspaces, eq(workspaces.id, approvals.workspaceId))
    .where(where)
    .orderBy(...order)
    .limit(limit);
  // The same rule as the decision: four eyes when it applied on asking or applies now.
  return rows.map(({ fourEyesCategories, fourEyesWhenAsked, ...row }) => ({
    ...row,
    /** The JSON Schema of the tool's input (the one the model and the door see), for the reviewer's edit form. */
    inputSchema: inputSchemaOf(tools, row.tool),
    /** What a tainted call is apart from its taint ("Sends outside"), so it carries both labels; null otherwise. */
    baseCategory: row.category === "tainted_egress" ? baseCategoryOfCall(tools, row.tool, row.input) : null,
    fourEyes: fourEyesWhenAsked || cameThroughDoor(row.via) || fourEyesApplies(fourEyesCategories ?? defaultFourEyesCategories, row.category, tools.get(row.tool)?.effects),
  }));
}

function baseCategoryOfCall(tools: ToolRegistry, name: string, input: unknown): string | null {
  const tool = tools.get(name);
  return tool ? baseCategory(effectsOfCall(tool, (input ?? {}) as Record<string, unknown>)) : null;
}

function inputSchemaOf(tools: ToolRegistry, name: string): Record<string, unknown> | null {
  const tool = tools.get(name);
  return tool ? toolSpec(tool).inputSchema : null;
}

/**
 * The requests waiting in the workspace, as the inbox's badge counts them for a person of `role`: a request to spend
 * past a cap counts only for those who may decide it (managers and owners).
 */
export async function countPendingApprovals(db: Db, workspaceId: string, role: Role): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(approvals)
    .where(
      and(
        eq(approvals.workspaceId, workspaceId),
        eq(approvals.status, "pending"),
        can(role, "billing.manage") ? undefined : ne(approvals.category, CAP_CATEGORY),
      ),
    );
  return Number(row?.n ?? 0);
}

export async function getApproval(db: Db, workspaceId: string, approvalId: string) {
  const [row] = await listApprovalsWhere(db, and(eq(approvals.workspaceId, workspaceId), eq(approvals.id, approvalId))!, 1);
  if (!row) throw new AppError("not_found:approval");
  return row;
}
