import crypto from "node:crypto";
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { agents, doorTokens, memberships, users, type Agent, type DoorToken } from "../db/schema";
import { AppError } from "../errors";

/** Door tokens read `cdk_` followed by 32 random bytes in base64url. */
export const TOKEN_PREFIX = "cdk_";
const TOKEN_SHAPE = /^cdk_[A-Za-z0-9_-]{43}$/;

export const doorTokenInputSchema = z.object({
  name: z.string().trim().min(1).max(60).regex(/^[\w .@:-]+$/, "Use letters, digits, spaces and . _ - : @"),
  expiresAt: z.iso
    .datetime({ offset: true })
    .optional()
    .refine((v) => !v || new Date(v).getTime() > Date.now(), "The expiry must be in the future."),
});
export type DoorTokenInput = z.infer<typeof doorTokenInputSchema>;

export const hashDoorToken = (token: string) => crypto.createHash("sha256").update(token, "utf8").digest("hex");

/** What a list shows of a token: never the token nor its hash. */
export interface DoorTokenSummary {
  id: string;
  agentId: string;
  agentHandle: string;
  name: string;
  prefix: string;
  createdBy: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  callCount: number;
  createdAt: Date;
}

async function agentOf(db: Db, workspaceId: string, agentId: string): Promise<Agent> {
  const [agent] = await db.select().from(agents).where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspaceId)));
  if (!agent) throw new AppError("not_found:agent");
  return agent;
}

/** Makes a token for one agent of one workspace; the token is returned here and nowhere else. */
export async function createDoorToken(db: Db, input: { workspaceId: string; agentId: string; userId: string } & DoorTokenInput): Promise<{ id: string; token: string }> {
  const agent = await agentOf(db, input.workspaceId, input.agentId);
  const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
  const [row] = await db
    .insert(doorTokens)
    .values({
      workspaceId: input.workspaceId,
      agentId: agent.id,
      name: input.name,
      tokenHash: hashDoorToken(token),
      prefix: token.slice(0, 8),
      createdByUserId: input.userId,
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
    })
    .returning({ id: doorTokens.id });
  await recordAudit(db, {
    workspaceId: input.workspaceId,
    actor: { kind: "user", id: input.userId },
    action: "door_token.created",
    target: { type: "door_token", id: row!.id },
    detail: { agent: agent.handle, name: input.name, expiresAt: input.expiresAt ?? null },
  });
  return { id: row!.id, token };
}

/** The workspace's tokens (of one agent when given), newest first. */
export async function listDoorTokens(db: Db, workspaceId: string, agentId?: string): Promise<DoorTokenSummary[]> {
  if (agentId) await agentOf(db, workspaceId, agentId);
  const rows = await db
    .select({
      id: doorTokens.id,
      agentId: doorTokens.agentId,
      agentHandle: agents.handle,
      name: doorTokens.name,
      prefix: doorTokens.prefix,
      createdBy: users.name,
      expiresAt: doorTokens.expiresAt,
      revokedAt: doorTokens.revokedAt,
      lastUsedAt: doorTokens.lastUsedAt,
      callCount: doorTokens.callCount,
      createdAt: doorTokens.createdAt,
    })
    .from(doorTokens)
    .innerJoin(agents, eq(agents.id, doorTokens.agentId))
    .leftJoin(users, eq(users.id, doorTokens.createdByUserId))
    .where(and(eq(doorTokens.workspaceId, workspaceId), agentId ? eq(doorTokens.agentId, agentId) : undefined))
    .orderBy(desc(doorTokens.createdAt));
  return rows;
}

/** Revokes a token at once: its next request gets 401. Revoking twice changes nothing. */
export async function revokeDoorToken(db: Db, input: { workspaceId: string; agentId: string; tokenId: string; userId: string }): Promise<void> {
  const [row] = await db
    .select({ id: doorTokens.id, name: doorTokens.name, revokedAt: doorTokens.revokedAt })
    .from(doorTokens)
    .where(and(eq(doorTokens.id, input.tokenId), eq(doorTokens.agentId, input.agentId), eq(doorTokens.workspaceId, input.workspaceId)));
  if (!row) throw new AppError("not_found:door_token");
  if (row.revokedAt) return;
  await db.update(doorTokens).set({ revokedAt: new Date() }).where(and(eq(doorTokens.id, row.id), isNull(doorTokens.revokedAt)));
  await recordAudit(db, {
    workspaceId: input.workspaceId,
    actor: { kind: "user", id: input.userId },
    action: "door_token.revoked",
    target: { type: "door_token", id: row.id },
    detail: { name: row.name },
  });
}

/**
 * The token and agent a bearer token stands for. Missing, malformed, unknown,
 * revoked and expired tokens, and tokens whose maker is no longer a manager or
 * owner of the workspace, are all `401 unauthorized:door_token`, with no
 * hint of which: an attacker learns nothing by trying.
 */
export async function authenticateDoorToken(db: Db, authorization: string | null): Promise<{ token: DoorToken; agent: Agent }> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  const refused = new AppError("unauthorized:door_token", "A valid door token is required (Authorization: Bearer cdk_…).");
  if (!bearer || !TOKEN_SHAPE.test(bearer)) throw refused;
  const [row] = await db
    .select({ token: doorTokens, agent: agents })
    .from(doorTokens)
    .innerJoin(agents, and(eq(agents.id, doorTokens.agentId), eq(agents.workspaceId, doorTokens.workspaceId)))
    // The person who made the token must still be a manager or owner here: a token outlives no one's access.
    .innerJoin(
      memberships,
      and(
        eq(memberships.workspaceId, doorTokens.workspaceId),
        eq(memberships.userId, doorTokens.createdByUserId),
        inArray(memberships.role, ["owner", "manager"]),
      ),
    )
    .where(eq(doorTokens.tokenHash, hashDoorToken(bearer)));
  if (!row || row.token.revokedAt || (row.token.expiresAt && row.token.expiresAt.getTime() <= Date.now())) throw refused;
  return row;
}

/** Counts a tool call made with the token. */
export async function recordDoorTokenUse(db: Db, tokenId: string): Promise<void> {
  await db
    .update(doorTokens)
    .set({ lastUsedAt: new Date(), callCount: sql`${doorTokens.callCount} + 1` })
    .where(eq(doorTokens.id, tokenId));
}
