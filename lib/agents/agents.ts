import { and, asc, desc, eq, gte, or, sql } from "drizzle-orm";
import { z } from "zod";
import { canSeeSpend, type Viewer } from "../access/access";
import { readableRunsWhere } from "../access/reads";
import { runFactsByIds } from "../access/run-facts-cache";
import { creditsForViewer, runLinkForViewer } from "../access/redact";
import type { Db } from "../db/client";
import { agentMessages, agentRuns, agents, usageRollupsHourly } from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";
import { recordAudit } from "../audit";
import type { AgentSummary } from "./agent-schemas";

export type { AgentSummary };

export async function listAgents(db: Db, workspaceId: string): Promise<AgentSummary[]> {
  return db
    .select({
      id: agents.id,
      handle: agents.handle,
      name: agents.name,
      description: agents.description,
      model: agents.model,
      tools: agents.tools,
      color: agents.color,
      status: agents.status,
      version: agents.version,
    })
    .from(agents)
    .where(eq(agents.workspaceId, workspaceId))
    .orderBy(asc(agents.handle));
}

const agentFields = {
  handle: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) => v.replace(/^@/, ""))
    .pipe(z.string().regex(/^[a-z0-9][a-z0-9_-]{1,31}$/, "2–32 letters, digits, - or _, starting with a letter or digit")),
  name: z.string().trim().min(1).max(60),
  description: z.string().trim().max(500),
  systemPrompt: z.string().trim().max(20_000),
  model: z.string().trim().min(1).max(100),
  tools: z.array(z.string()).max(50),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/),
};

export const agentInputSchema = z.object({
  ...agentFields,
  description: agentFields.description.default(""),
  systemPrompt: agentFields.systemPrompt.default(""),
  tools: agentFields.tools.default([]),
  color: agentFields.color.default("#6366f1"),
});
export type AgentInput = z.infer<typeof agentInputSchema>;

/**
 * Creates an agent. The model spec is checked against the configured
 * providers now, so an unknown provider is refused when the agent is saved,
 * not when it first runs.
 */
export async function createAgent(
  db: Db,
  workspaceId: string,
  actorId: string,
  input: AgentInput,
  check: { modelProblem: (spec: string) => string | null; knownTools: readonly string[] },
): Promise<AgentSummary> {
  const problem = check.modelProblem(input.model);
  if (problem) throw new AppError("unprocessable:model", problem);
  const unknown = input.tools.filter((t) => !check.knownTools.includes(t));
  if (unknown.length > 0) throw new AppError("unprocessable:tools", `Unknown tools: ${unknown.join(", ")}`);
  try {
    const [row] = await db
      .insert(agents)
      .values({ ...input, tools: [...new Set(input.tools)], workspaceId })
      .returning();
    await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action: "agent.created", target: { type: "agent", id: row!.id }, detail: { handle: row!.handle, model: row!.model, tools: row!.tools } });
    return summaryOf(row!);
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AppError("conflict:agent", `@${input.handle} already exists in this workspace.`);
    throw error;
  }
}

function summaryOf(row: typeof agents.$inferSelect): AgentSummary {
  const { id, handle, name, description, model, tools, color, status, version } = row;
  return { id, handle, name, description, model, tools, color, status, version };
}

/**
 * An edit changes only the fields it names (no defaults, so a pause keeps the
 * prompt and tools). `version` is the version the edit was made from: when
 * someone else saved in between, the edit is refused (409 conflict:stale)
 * instead of silently reverting their change. Without it the edit applies.
 */
export const agentUpdateSchema = z
  .object(agentFields)
  .partial()
  .extend({ status: z.enum(["active", "paused"]).optional(), version: z.number().int().min(1).optional() });

export async function updateAgent(
  db: Db,
  workspaceId: string,
  actorId: string,
  agentId: string,
  input: z.infer<typeof agentUpdateSchema>,
  check: { modelProblem: (spec: string) => string | null; knownTools: readonly string[] },
): Promise<AgentSummary> {
  if (input.model !== undefined) {
    const problem = check.modelProblem(input.model);
    if (problem) throw new AppError("unprocessable:model", problem);
  }
  const unknown = (input.tools ?? []).filter((t) => !check.knownTools.includes(t));
  if (unknown.length > 0) throw new AppError("unprocessable:tools", `Unknown tools: ${unknown.join(", ")}`);
  const { version, ...changes } = input;
  try {
    const [row] = await db
      .update(agents)
      .set({ ...changes, ...(changes.tools ? { tools: [...new Set(changes.tools)] } : {}), version: sql`${agents.version} + 1` })
      .where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspaceId), version === undefined ? undefined : eq(agents.version, version)))
      .returning();
    if (!row) {
      const [current] = await db
        .select({ version: agents.version })
        .from(agents)
        .where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspaceId)));
      if (!current) throw new AppError("not_found:agent");
      throw new AppError("conflict:stale", "Someone else changed this agent since you opened it. Reload to see their changes, then edit again.", {
        details: { version: current.version },
      });
    }
    // Pausing and resuming read as such in the audit log; any other change, with or without them, as an edit.
    const { status, ...edits } = changes;
    const action = status !== undefined && Object.keys(edits).length === 0 ? (status === "paused" ? "agent.paused" : "agent.resumed") : "agent.updated";
    await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action, target: { type: "agent", id: row.id }, detail: { handle: row.handle, ...changes } });
    return summaryOf(row);
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AppError("conflict:agent", `@${input.handle} already exists in this workspace.`);
    throw error;
  }
}

/**
 * One agent with what it did lately, as the viewer may see it: the runs they
 * may open, messages to and from other agents (linked to a run only when they
 * may open it), and spend over 30 days (null for those who may not see spend).
 */
export async function getAgentDetail(db: Db, workspaceId: string, agentId: string, viewer: Viewer) {
  const [agent] = await db.select().from(agents).where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspaceId)));
  if (!agent) throw new AppError("not_found:agent");
  const runs = await db
    .select({
      id: agentRuns.id,
      trigger: agentRuns.trigger,
      state: agentRuns.state,
      sessionId: agentRuns.sessionId,
      error: agentRuns.error,
      credits: agentRuns.credits,
      createdAt: agentRuns.createdAt,
      finishedAt: agentRuns.finishedAt,
    })
    .from(agentRuns)
    .where(and(eq(agentRuns.agentId, agentId), readableRunsWhere(viewer)))
    .orderBy(desc(agentRuns.createdAt))
    .limit(20);
  const messages = await db
    .select({ id: agentMessages.id, body: agentMessages.body, fromAgentId: agentMessages.fromAgentId, toAgentId: agentMessages.toAgentId, roomId: agentMessages.roomId, runId: agentMessages.runId, createdAt: agentMessages.createdAt })
    .from(agentMessages)
    .where(and(eq(agentMessages.workspaceId, workspaceId), or(eq(agentMessages.fromAgentId, agentId), eq(agentMessages.toAgentId, agentId))))
    .orderBy(desc(agentMessages.createdAt))
    .limit(20);
  const [spend] = canSeeSpend(viewer)
    ? await db
        .select({ credits: sql<number>`coalesce(sum(${usageRollupsHourly.credits}), 0)::bigint`, calls: sql<number>`coalesce(sum(${usageRollupsHourly.calls}) filter (where ${usageRollupsHourly.sourceKind} <> 'compute'), 0)::bigint` })
        .from(usageRollupsHourly)
        .where(and(eq(usageRollupsHourly.workspaceId, workspaceId), eq(usageRollupsHourly.agentId, agentId), gte(usageRollupsHourly.bucket, sql`now() - interval '30 days'`)))
    : [];
  const linked = await runFactsByIds(db, workspaceId, messages.map((m) => m.runId));
  return {
    // A budget is spend: members see that an agent has one only through what it does, never the figure.
    agent: { ...agent, monthlyBudgetCredits: canSeeSpend(viewer) ? agent.monthlyBudgetCredits : null, createdAt: agent.createdAt, updatedAt: agent.updatedAt },
    runs: runs.map((r) => ({ ...r, credits: creditsForViewer(viewer, r.credits) })),
    messages: messages.map((m) => ({ ...m, runId: runLinkForViewer(viewer, m.runId, m.runId ? linked.get(m.runId) : undefined) })),
    spend30d: spend ? { credits: Number(spend.credits), calls: Number(spend.calls) } : null,
  };
}
