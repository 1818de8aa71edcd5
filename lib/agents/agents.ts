import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { agents } from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";
import { recordAudit } from "../audit";

export interface AgentSummary {
  id: string;
  handle: string;
  name: string;
  description: string;
  model: string;
  tools: string[];
  color: string;
  status: "active" | "paused";
}

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
    })
    .from(agents)
    .where(eq(agents.workspaceId, workspaceId))
    .orderBy(asc(agents.handle));
}

export const agentInputSchema = z.object({
  handle: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) => v.replace(/^@/, ""))
    .pipe(z.string().regex(/^[a-z0-9][a-z0-9_-]{1,31}$/, "2–32 letters, digits, - or _, starting with a letter or digit")),
  name: z.string().trim().min(1).max(60),
  description: z.string().trim().max(500).default(""),
  systemPrompt: z.string().trim().max(20_000).default(""),
  model: z.string().trim().min(1).max(100),
  tools: z.array(z.string()).max(50).default([]),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/)
    .default("#6366f1"),
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
    return { id: row!.id, handle: row!.handle, name: row!.name, description: row!.description, model: row!.model, tools: row!.tools, color: row!.color, status: row!.status };
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AppError("conflict:agent", `@${input.handle} already exists in this workspace.`);
    throw error;
  }
}
