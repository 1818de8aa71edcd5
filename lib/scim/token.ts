import crypto from "node:crypto";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { scimTokens, workspaces } from "../db/schema";
import { AppError } from "../errors";

/** SCIM tokens read `scim_` followed by 32 random bytes in base64url. */
const TOKEN_PREFIX = "scim_";
const TOKEN_SHAPE = /^scim_[A-Za-z0-9_-]{43}$/;
/** `lastUsedAt` is written at most this often: an identity provider syncing thousands of people writes it once a minute. */
const LAST_USED_EVERY_MS = 60_000;

const hashScimToken = (token: string) => crypto.createHash("sha256").update(token, "utf8").digest("hex");

export interface ScimTokenSummary {
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/**
 * Makes the workspace's token, revoking the one before it: the old token stops working at once. The token is
 * returned here and nowhere else; only its SHA-256 is kept.
 */
export async function createScimToken(db: Db, workspaceId: string, userId: string): Promise<{ token: string }> {
  const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
  await db.transaction(async (tx) => {
    // Two owners making a token at once take turns here, so the one-live-token index never refuses either.
    await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("update");
    const replaced = await revokeLive(tx, workspaceId);
    const [row] = await tx
      .insert(scimTokens)
      .values({ workspaceId, tokenHash: hashScimToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 4), createdBy: userId })
      .returning({ id: scimTokens.id });
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: userId },
      action: "scim.token_created",
      target: { type: "scim_token", id: row!.id },
      detail: { replaced: replaced !== null },
    });
  });
  return { token };
}

/** Revokes the workspace's token: the identity provider's next call gets 401. Revoking when there is none changes nothing. */
export async function revokeScimToken(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const revoked = await revokeLive(tx, workspaceId);
    if (!revoked) return;
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: userId }, action: "scim.token_revoked", target: { type: "scim_token", id: revoked } });
  });
}

async function revokeLive(tx: Db, workspaceId: string): Promise<string | null> {
  const [row] = await tx
    .update(scimTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(scimTokens.workspaceId, workspaceId), isNull(scimTokens.revokedAt)))
    .returning({ id: scimTokens.id });
  return row?.id ?? null;
}

/** The live token's prefix and dates (never the token nor its hash), or null. */
export async function getScimTokenSummary(db: Db, workspaceId: string): Promise<ScimTokenSummary | null> {
  const [row] = await db
    .select({ prefix: scimTokens.prefix, createdAt: scimTokens.createdAt, lastUsedAt: scimTokens.lastUsedAt })
    .from(scimTokens)
    .where(and(eq(scimTokens.workspaceId, workspaceId), isNull(scimTokens.revokedAt)));
  return row ?? null;
}

/**
 * The workspace a bearer token speaks for. The token is found by its hash (the database compares hashes, so how long
 * the lookup takes says nothing about the token); missing, malformed, unknown and revoked tokens are all
 * `401 unauthorized:scim_token`, with no hint of which. Records the use, at most once a minute.
 */
export async function authenticateScimToken(db: Db, authorization: string | null): Promise<{ workspaceId: string }> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  const refused = new AppError("unauthorized:scim_token", "A valid SCIM token is required (Authorization: Bearer scim_…).");
  if (!bearer || !TOKEN_SHAPE.test(bearer)) throw refused;
  const [row] = await db
    .select({ id: scimTokens.id, workspaceId: scimTokens.workspaceId })
    .from(scimTokens)
    .where(and(eq(scimTokens.tokenHash, hashScimToken(bearer)), isNull(scimTokens.revokedAt)));
  if (!row) throw refused;
  await db
    .update(scimTokens)
    .set({ lastUsedAt: new Date() })
    .where(
      and(
        eq(scimTokens.id, row.id),
        or(isNull(scimTokens.lastUsedAt), lt(scimTokens.lastUsedAt, new Date(Date.now() - LAST_USED_EVERY_MS))),
      ),
    );
  return { workspaceId: row.workspaceId };
}
