import { and, asc, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Viewer } from "../access/access";
import { runFactsByIds } from "../access/reads";
import { runLinkForViewer } from "../access/redact";
import type { Db } from "../db/client";
import { connections, outboxMessages, agents } from "../db/schema";
import { encryptSecret } from "../crypto";
import { AppError } from "../errors";
import { recordAudit } from "../audit";

/** Services a workspace can connect, with what each needs. */
export const connectionProviders = {
  slack: { label: "Slack", secretLabel: "Bot token (xoxb-…)", defaultBaseUrl: "https://slack.com/api" },
} as const;

export const saveConnectionSchema = z.object({
  provider: z.enum(Object.keys(connectionProviders) as [keyof typeof connectionProviders]),
  label: z.string().trim().min(1).max(60).default("default"),
  secret: z.string().trim().min(8, "Paste the whole token").max(500),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type SaveConnectionInput = z.infer<typeof saveConnectionSchema>;

export interface ConnectionSummary {
  id: string;
  provider: string;
  label: string;
  baseUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Connections without their secrets: the browser never receives a credential, not even part of one. */
export async function listConnections(db: Db, workspaceId: string): Promise<ConnectionSummary[]> {
  const rows = await db
    .select({ id: connections.id, provider: connections.provider, label: connections.label, config: connections.config, createdAt: connections.createdAt, updatedAt: connections.updatedAt })
    .from(connections)
    .where(eq(connections.workspaceId, workspaceId))
    .orderBy(asc(connections.provider), asc(connections.label));
  return rows.map(({ config, ...r }) => ({ ...r, baseUrl: config.baseUrl ?? null }));
}

export async function saveConnection(db: Db, workspaceId: string, actorId: string, key: Buffer, input: SaveConnectionInput): Promise<ConnectionSummary> {
  const config: Record<string, string> = input.baseUrl ? { baseUrl: input.baseUrl } : {};
  const [row] = await db
    .insert(connections)
    .values({ workspaceId, provider: input.provider, label: input.label, config, secret: encryptSecret(input.secret, key), createdByUserId: actorId })
    .onConflictDoUpdate({
      target: [connections.workspaceId, connections.provider, connections.label],
      set: { config, secret: encryptSecret(input.secret, key), updatedAt: new Date() },
    })
    .returning();
  await recordAudit(db, {
    workspaceId,
    actor: { kind: "user", id: actorId },
    action: "connection.saved",
    target: { type: "connection", id: row!.id },
    detail: { provider: input.provider, label: input.label, baseUrl: input.baseUrl ?? null },
  });
  return { id: row!.id, provider: row!.provider, label: row!.label, baseUrl: row!.config.baseUrl ?? null, createdAt: row!.createdAt, updatedAt: row!.updatedAt };
}

export async function deleteConnection(db: Db, workspaceId: string, actorId: string, id: string): Promise<void> {
  const [row] = await db
    .delete(connections)
    .where(and(eq(connections.id, id), eq(connections.workspaceId, workspaceId)))
    .returning({ provider: connections.provider, label: connections.label });
  if (!row) throw new AppError("not_found:connection");
  await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action: "connection.deleted", target: { type: "connection", id }, detail: row });
}

/** The outbox as one person sees it: what was held back is shown to all, the run behind it only to those who may open it. */
export async function listOutboxForViewer(db: Db, workspaceId: string, viewer: Viewer, limit = 200) {
  const rows = await listOutbox(db, workspaceId, limit);
  const runs = await runFactsByIds(db, workspaceId, rows.map((r) => r.runId));
  return rows.map((r) => ({ ...r, runId: runLinkForViewer(viewer, r.runId, r.runId ? runs.get(r.runId) : undefined) }));
}

export async function listOutbox(db: Db, workspaceId: string, limit = 200) {
  return db
    .select({
      id: outboxMessages.id,
      service: outboxMessages.service,
      destination: outboxMessages.destination,
      body: outboxMessages.body,
      runId: outboxMessages.runId,
      createdAt: outboxMessages.createdAt,
      agent: { handle: agents.handle, name: agents.name, color: agents.color },
    })
    .from(outboxMessages)
    .leftJoin(agents, eq(agents.id, outboxMessages.agentId))
    .where(eq(outboxMessages.workspaceId, workspaceId))
    .orderBy(desc(outboxMessages.createdAt))
    .limit(limit);
}
