import { and, asc, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { agents, budgetAlerts, sessions, usageRollupsHourly, workspaceBudgets, type BudgetAlertLevel } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";

export type BudgetState = "none" | "ok" | "warning" | "exceeded";

/** Month boundaries are UTC; the cap compares whole credits spent this month with the budget. */
export function monthOf(now: Date): { start: Date; end: Date; label: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end, label: start.toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" }) };
}

/** At 80 % a budget warns; at 100 % the next model call is refused. Integer arithmetic: spent × 5 ≥ budget × 4. */
export function budgetState(spent: number, budget: number | null): BudgetState {
  if (budget === null) return "none";
  if (spent >= budget) return "exceeded";
  return spent * 5 >= budget * 4 ? "warning" : "ok";
}

export interface BudgetLine {
  /** `workspace` or `agent:<id>`. */
  scope: string;
  agentId: string | null;
  handle: string | null;
  name: string | null;
  budgetCredits: number | null;
  spentCredits: number;
  state: BudgetState;
  /** The agent's cap per run, in credits (null: none; always null for the workspace). */
  runCapCredits: number | null;
}

export interface BudgetOverview {
  month: { start: string; end: string; label: string };
  workspace: BudgetLine;
  agents: BudgetLine[];
}

const agentScope = (agentId: string) => `agent:${agentId}`;

async function monthSpendByAgent(db: Db, workspaceId: string, month: { start: Date; end: Date }) {
  return db
    .select({ agentId: usageRollupsHourly.agentId, credits: sql<number>`coalesce(sum(${usageRollupsHourly.credits}), 0)::float8`.mapWith(Number) })
    .from(usageRollupsHourly)
    .where(and(eq(usageRollupsHourly.workspaceId, workspaceId), gte(usageRollupsHourly.bucket, month.start), lt(usageRollupsHourly.bucket, month.end)))
    .groupBy(usageRollupsHourly.agentId);
}

/** The workspace's and each agent's budget with this month's spend (from the rollups). */
export async function getBudgets(db: Db, workspaceId: string, now = new Date()): Promise<BudgetOverview> {
  const month = monthOf(now);
  const [[own], agentRows, spend] = await Promise.all([
    db.select().from(workspaceBudgets).where(eq(workspaceBudgets.workspaceId, workspaceId)),
    db
      .select({ id: agents.id, handle: agents.handle, name: agents.name, budget: agents.monthlyBudgetCredits, runCap: agents.runCapCredits })
      .from(agents)
      .where(eq(agents.workspaceId, workspaceId))
      .orderBy(asc(agents.handle)),
    monthSpendByAgent(db, workspaceId, month),
  ]);
  const byAgent = new Map(spend.map((s) => [s.agentId, s.credits]));
  const total = spend.reduce((sum, s) => sum + s.credits, 0);
  const workspaceBudget = own?.monthlyBudgetCredits ?? null;
  return {
    month: { start: month.start.toISOString(), end: month.end.toISOString(), label: month.label },
    workspace: { scope: "workspace", agentId: null, handle: null, name: null, budgetCredits: workspaceBudget, spentCredits: total, state: budgetState(total, workspaceBudget), runCapCredits: null },
    agents: agentRows.map((a) => {
      const spent = byAgent.get(a.id) ?? 0;
      return { scope: agentScope(a.id), agentId: a.id, handle: a.handle, name: a.name, budgetCredits: a.budget, spentCredits: spent, state: budgetState(spent, a.budget), runCapCredits: a.runCap };
    }),
  };
}

const creditsSchema = z.number().int().min(0).max(1e15);

export const updateBudgetsSchema = z.object({
  /** The workspace's monthly cap in credits; null removes it; absent leaves it. */
  workspace: creditsSchema.nullable().optional(),
  agents: z
    .array(
      z.object({
        agentId: z.uuid(),
        monthlyBudgetCredits: creditsSchema.nullable().optional(),
        /** What one run may spend before it asks a manager to go on; at least 1 credit (an approval adds as much again). */
        runCapCredits: creditsSchema.min(1).nullable().optional(),
      }),
    )
    .max(500)
    .refine((list) => new Set(list.map((a) => a.agentId)).size === list.length, "Each agent may appear once")
    .optional(),
});
export type UpdateBudgetsInput = z.infer<typeof updateBudgetsSchema>;

/**
 * Sets monthly caps and agents' caps per run (absent: left as they are); they apply from the next model call. An
 * agent of another workspace is not found.
 */
export async function updateBudgets(db: Db, workspaceId: string, actorId: string, input: UpdateBudgetsInput): Promise<BudgetOverview> {
  await db.transaction(async (tx) => {
    if (input.workspace !== undefined) {
      await tx
        .insert(workspaceBudgets)
        .values({ workspaceId, monthlyBudgetCredits: input.workspace })
        .onConflictDoUpdate({ target: workspaceBudgets.workspaceId, set: { monthlyBudgetCredits: input.workspace, updatedAt: new Date() } });
    }
    for (const a of input.agents ?? []) {
      const [updated] = await tx
        .update(agents)
        .set({ monthlyBudgetCredits: a.monthlyBudgetCredits, runCapCredits: a.runCapCredits, version: sql`${agents.version} + 1` })
        .where(and(eq(agents.id, a.agentId), eq(agents.workspaceId, workspaceId)))
        .returning({ id: agents.id });
      if (!updated) throw new AppError("not_found:agent", "There is no such agent in this workspace.");
    }
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: actorId }, action: "budgets.updated", target: { type: "workspace", id: workspaceId }, detail: input });
  });
  return getBudgets(db, workspaceId);
}

interface ScopeCheck {
  scope: string;
  agentId: string | null;
  handle: string | null;
  budget: number;
  spent: number;
}

/** Raises the alert of a level once per scope and month, with one audit entry, whichever process gets there first. */
async function raiseAlert(db: Db, workspaceId: string, month: Date, check: ScopeCheck, level: BudgetAlertLevel) {
  await db.transaction(async (tx) => {
    const [raised] = await tx
      .insert(budgetAlerts)
      .values({ workspaceId, scope: check.scope, month, level, spentCredits: check.spent, budgetCredits: check.budget })
      .onConflictDoNothing()
      .returning({ scope: budgetAlerts.scope });
    if (!raised) return;
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "system" },
      action: level === "half" ? "budget.half_used" : level === "warning" ? "budget.warning" : "budget.exceeded",
      target: check.agentId ? { type: "agent", id: check.agentId } : { type: "workspace", id: workspaceId },
      detail: { month: month.toISOString(), spentCredits: check.spent, budgetCredits: check.budget, percent: check.budget > 0 ? Math.floor((check.spent * 100) / check.budget) : 100 },
    });
  });
}

async function raiseDue(db: Db, workspaceId: string, month: Date, checks: ScopeCheck[]) {
  for (const check of checks) {
    const state = budgetState(check.spent, check.budget);
    // Managers are told at half the budget too (lib/notifications/budget-mail.ts), before the 80 % warning.
    if (check.budget > 0 && check.spent * 2 >= check.budget) await raiseAlert(db, workspaceId, month, check, "half");
    if (state === "warning" || state === "exceeded") await raiseAlert(db, workspaceId, month, check, "warning");
    if (state === "exceeded") await raiseAlert(db, workspaceId, month, check, "exceeded");
  }
}

function exceededMessage(check: ScopeCheck, monthLabel: string): string {
  const who = check.agentId ? `@${check.handle ?? "this agent"} has` : "This workspace has";
  // The figures stay in the ledger and the billing pages: this text reaches everyone who can read the run.
  return `${who} used its monthly budget for ${monthLabel}, so the run stopped before its next model call. A manager can raise the budget in Settings → Billing.`;
}

/** The monthly budgets that bear on an agent's next model call: its workspace's and its own (null: none set). */
export interface BudgetLimits {
  workspace: number | null;
  agent: number | null;
  handle: string;
}

async function readBudgetLimits(db: Db, input: { workspaceId: string; agentId: string }): Promise<BudgetLimits | undefined> {
  const [limits] = await db
    .select({ workspace: workspaceBudgets.monthlyBudgetCredits, agent: agents.monthlyBudgetCredits, handle: agents.handle })
    .from(agents)
    .leftJoin(workspaceBudgets, eq(workspaceBudgets.workspaceId, agents.workspaceId))
    .where(and(eq(agents.id, input.agentId), eq(agents.workspaceId, input.workspaceId)));
  return limits;
}

/** The budget a model call would go past now, with the month, or null: none is set, or none is spent. */
async function budgetOver(db: Db, input: { workspaceId: string; agentId: string; limits: BudgetLimits }, now: Date) {
  const { limits } = input;
  const month = monthOf(now);
  const [spend] = await db
    .select({
      total: sql<number>`coalesce(sum(${usageRollupsHourly.credits}), 0)::float8`.mapWith(Number),
      agent: sql<number>`coalesce(sum(${usageRollupsHourly.credits}) filter (where ${usageRollupsHourly.agentId} = ${input.agentId}), 0)::float8`.mapWith(Number),
    })
    .from(usageRollupsHourly)
    .where(and(eq(usageRollupsHourly.workspaceId, input.workspaceId), gte(usageRollupsHourly.bucket, month.start), lt(usageRollupsHourly.bucket, month.end)));
  const checks: ScopeCheck[] = [];
  if (limits.agent !== null) checks.push({ scope: agentScope(input.agentId), agentId: input.agentId, handle: limits.handle, budget: limits.agent, spent: spend?.agent ?? 0 });
  if (limits.workspace !== null) checks.push({ scope: "workspace", agentId: null, handle: null, budget: limits.workspace, spent: spend?.total ?? 0 });
  return { month, checks, over: checks.find((c) => c.spent >= c.budget) ?? null };
}

/**
 * The hard cap, checked before every model call: throws
 * `unprocessable:budget_exceeded` when the workspace or the agent has spent
 * its monthly budget, and raises the 80 % and 100 % alerts once. The last
 * call before the cap may overshoot it by that call's cost. `limits` are the
 * budgets when the caller has just read them (a run's first read); without
 * them they are read here.
 */
export async function checkBudget(db: Db, input: { workspaceId: string; agentId: string; limits?: BudgetLimits }, now = new Date()): Promise<void> {
  const limits = input.limits ?? (await readBudgetLimits(db, input));
  if (!limits || (limits.workspace === null && limits.agent === null)) return;
  const { month, checks, over } = await budgetOver(db, { ...input, limits }, now);
  await raiseDue(db, input.workspaceId, month.start, checks);
  if (over) throw new AppError("unprocessable:budget_exceeded", exceededMessage(over, month.label));
}

/** Raises the 80 % and 100 % alerts now due for an agent's budgets and its workspace's (each once a month). */
export async function raiseBudgetAlertsFor(db: Db, input: { workspaceId: string; agentId: string }, now = new Date()): Promise<void> {
  const limits = await readBudgetLimits(db, input);
  if (!limits || (limits.workspace === null && limits.agent === null)) return;
  const { month, checks } = await budgetOver(db, { ...input, limits }, now);
  await raiseDue(db, input.workspaceId, month.start, checks);
}

/** What a chat says when a spent monthly budget keeps its agent from answering (no figures: costs are for reviewers and up). */
export function budgetStopSentence(scope: "agent" | "workspace", handle: string, monthLabel: string): string {
  return scope === "agent"
    ? `@${handle} has used its monthly budget for ${monthLabel}: it cannot answer until a manager raises the budget or the month ends.`
    : `This workspace has used its monthly budget for ${monthLabel}: its agents cannot answer until a manager raises the budget or the month ends.`;
}

/**
 * Why a chat's agent cannot answer now because a monthly budget is spent, in a sentence for the person in the chat, or
 * null when it can: what the chat shows before anyone writes. (A message sent anyway is refused by the chat run's own
 * statement, which makes the same check.)
 */
export async function chatBudgetStop(db: Db, workspaceId: string, sessionId: string, now = new Date()): Promise<string | null> {
  // One read for the common case, no budget at all: the chat's agent and both limits.
  const [limits] = await db
    .select({ agentId: agents.id, workspace: workspaceBudgets.monthlyBudgetCredits, agent: agents.monthlyBudgetCredits, handle: agents.handle })
    .from(sessions)
    .innerJoin(agents, eq(agents.id, sessions.agentId))
    .leftJoin(workspaceBudgets, eq(workspaceBudgets.workspaceId, agents.workspaceId))
    .where(and(eq(sessions.id, sessionId), eq(sessions.workspaceId, workspaceId)));
  if (!limits || (limits.workspace === null && limits.agent === null)) return null;
  const { month, over } = await budgetOver(db, { workspaceId, agentId: limits.agentId, limits }, now);
  return over ? budgetStopSentence(over.agentId ? "agent" : "workspace", limits.handle, month.label) : null;
}

/** Raises due alerts in every workspace that has a budget (the periodic job: a run's last call may have crossed 80 %). */
export async function raiseBudgetAlerts(db: Db, now = new Date()): Promise<number> {
  const month = monthOf(now);
  const withBudgets = await db
    .selectDistinct({ workspaceId: agents.workspaceId })
    .from(agents)
    .where(isNotNull(agents.monthlyBudgetCredits))
    .union(db.select({ workspaceId: workspaceBudgets.workspaceId }).from(workspaceBudgets).where(isNotNull(workspaceBudgets.monthlyBudgetCredits)));
  let checked = 0;
  for (const { workspaceId } of withBudgets) {
    const overview = await getBudgets(db, workspaceId, now);
    const lines = [overview.workspace, ...overview.agents].filter((l) => l.budgetCredits !== null);
    await raiseDue(
      db,
      workspaceId,
      month.start,
      lines.map((l) => ({ scope: l.scope, agentId: l.agentId, handle: l.handle, budget: l.budgetCredits!, spent: l.spentCredits })),
    );
    checked += lines.length;
  }
  return checked;
}
