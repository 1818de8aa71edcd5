import { and, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { agents, missions, type CrewNode, type MissionTopology } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { DEFAULT_CONCURRENCY, MAX_CREW_NODES, shapeProblem, type ShapeProblem } from "./topology";

/** Crews: saved topologies of roles bound to agents. Managers write them; every member reads them. */

const nodeId = z.string().trim().regex(/^[A-Za-z0-9_-]{1,40}$/, "1–40 letters, digits, - or _");

const crewNodeInput = z
  .object({
    id: nodeId,
    role: z.string().trim().min(1).max(60),
    agentHandle: z
      .string()
      .trim()
      .toLowerCase()
      .transform((v) => v.replace(/^@/, ""))
      .optional(),
    agentId: z.uuid().optional(),
    instructions: z.string().trim().max(4000).default(""),
    position: z.object({ x: z.number().finite(), y: z.number().finite() }).optional(),
  })
  .refine((n) => n.agentHandle || n.agentId, { message: "Bind every node to an agent (agentHandle or agentId)." });

const crewFields = {
  name: z.string().trim().min(1).max(80),
  goal: z.string().trim().max(4000).optional(),
  // Room for a few more than the limit, so that too many nodes is a 422 naming the first one over.
  nodes: z.array(crewNodeInput).max(MAX_CREW_NODES * 4),
  edges: z.array(z.object({ from: nodeId, to: nodeId })).max(400),
  maxRounds: z.number().int().min(1).max(10).optional(),
  continueOnFailure: z.boolean().optional(),
  concurrency: z.number().int().min(1).max(MAX_CREW_NODES).optional(),
};

export const crewInputSchema = z.object(crewFields);
export const crewPatchSchema = z.object(crewFields).partial();
export type CrewInput = z.infer<typeof crewInputSchema>;

export interface CrewView {
  id: string;
  name: string;
  goal: string | null;
  nodes: (CrewNode & { agentHandle: string | null })[];
  edges: { from: string; to: string }[];
  maxRounds: number | null;
  continueOnFailure: boolean;
  concurrency: number;
  updatedAt: string;
}

function unprocessable(problem: ShapeProblem): AppError {
  return new AppError("unprocessable:crew", problem.message, {
    details: { ...(problem.node ? { node: problem.node } : {}), ...(problem.edge ? { edge: problem.edge } : {}) },
  });
}

/** Checks a crew and binds each node to an agent of this workspace; a 422 names the node or edge at fault. */
export async function resolveCrew(db: Db, workspaceId: string, input: Pick<CrewInput, "nodes" | "edges" | "maxRounds" | "continueOnFailure" | "concurrency">): Promise<MissionTopology> {
  const problem = shapeProblem(input);
  if (problem) throw unprocessable(problem);
  // Only this workspace's agents can be bound: an id or handle of another workspace is not found here.
  const found = await db.select({ id: agents.id, handle: agents.handle }).from(agents).where(eq(agents.workspaceId, workspaceId));
  const byHandle = new Map(found.map((a) => [a.handle, a.id]));
  const byId = new Set(found.map((a) => a.id));
  const nodes: CrewNode[] = [];
  for (const n of input.nodes) {
    const agentId = n.agentId ? (byId.has(n.agentId) ? n.agentId : undefined) : byHandle.get(n.agentHandle!);
    if (!agentId) {
      throw unprocessable({ node: n.id, message: `Node "${n.id}" is bound to ${n.agentHandle ? `@${n.agentHandle}` : "an agent"}, which is not an agent of this workspace.` });
    }
    nodes.push({ id: n.id, role: n.role, agentId, instructions: n.instructions, ...(n.position ? { position: n.position } : {}) });
  }
  return {
    nodes,
    edges: input.edges.map((e) => ({ from: e.from, to: e.to })),
    ...(input.maxRounds ? { maxRounds: input.maxRounds } : {}),
    ...(input.continueOnFailure ? { continueOnFailure: true } : {}),
    concurrency: input.concurrency ?? DEFAULT_CONCURRENCY,
  };
}

async function toViews(db: Db, workspaceId: string, rows: (typeof missions.$inferSelect)[]): Promise<CrewView[]> {
  const agentIds = [...new Set(rows.flatMap((r) => r.topology.nodes.map((n) => n.agentId)))];
  const known = agentIds.length
    ? await db.select({ id: agents.id, handle: agents.handle }).from(agents).where(and(eq(agents.workspaceId, workspaceId), inArray(agents.id, agentIds)))
    : [];
  const handles = new Map(known.map((a) => [a.id, a.handle]));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    goal: r.goal,
    nodes: r.topology.nodes.map((n) => ({ ...n, agentHandle: handles.get(n.agentId) ?? null })),
    edges: r.topology.edges,
    maxRounds: r.topology.maxRounds ?? null,
    continueOnFailure: !!r.topology.continueOnFailure,
    concurrency: r.topology.concurrency ?? DEFAULT_CONCURRENCY,
    updatedAt: r.updatedAt.toISOString(),
  }));
}

export async function listCrews(db: Db, workspaceId: string): Promise<CrewView[]> {
  const rows = await db.select().from(missions).where(eq(missions.workspaceId, workspaceId)).orderBy(desc(missions.createdAt));
  return toViews(db, workspaceId, rows);
}

export async function getCrewRow(db: Db, workspaceId: string, crewId: string) {
  const [row] = await db
    .select()
    .from(missions)
    .where(and(eq(missions.id, crewId), eq(missions.workspaceId, workspaceId)));
  if (!row) throw new AppError("not_found:crew");
  return row;
}

export async function getCrew(db: Db, workspaceId: string, crewId: string): Promise<CrewView> {
  return (await toViews(db, workspaceId, [await getCrewRow(db, workspaceId, crewId)]))[0]!;
}

export async function createCrew(db: Db, workspaceId: string, userId: string | null, input: CrewInput): Promise<{ id: string }> {
  const topology = await resolveCrew(db, workspaceId, input);
  const [row] = await db
    .insert(missions)
    .values({ workspaceId, name: input.name, goal: input.goal ?? null, topology, createdByUserId: userId })
    .returning({ id: missions.id });
  await recordAudit(db, { workspaceId, actor: userId ? { kind: "user", id: userId } : { kind: "system" }, action: "crew.created", target: { type: "crew", id: row!.id }, detail: { name: input.name } });
  return { id: row!.id };
}

export async function updateCrew(db: Db, workspaceId: string, userId: string, crewId: string, patch: z.infer<typeof crewPatchSchema>): Promise<CrewView> {
  const row = await getCrewRow(db, workspaceId, crewId);
  const current = (await toViews(db, workspaceId, [row]))[0]!;
  const topology = await resolveCrew(db, workspaceId, {
    nodes: patch.nodes ?? current.nodes.map((n) => ({ id: n.id, role: n.role, agentId: n.agentId, instructions: n.instructions, position: n.position })),
    edges: patch.edges ?? current.edges,
    maxRounds: patch.maxRounds ?? current.maxRounds ?? undefined,
    continueOnFailure: patch.continueOnFailure ?? current.continueOnFailure,
    concurrency: patch.concurrency ?? current.concurrency,
  });
  await db
    .update(missions)
    .set({ name: patch.name ?? row.name, goal: patch.goal ?? row.goal, topology })
    .where(and(eq(missions.id, crewId), eq(missions.workspaceId, workspaceId)));
  await recordAudit(db, { workspaceId, actor: { kind: "user", id: userId }, action: "crew.updated", target: { type: "crew", id: crewId } });
  return getCrew(db, workspaceId, crewId);
}
