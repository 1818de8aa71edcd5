import crypto from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { apiKeys, users, type Role } from "../db/schema";
import { hasRole, roleLabels } from "../access/role-names";
import { AppError } from "../errors";
import type { ApiKeySummary } from "./api-key-schemas";

/** API keys read `ck_` followed by 32 random bytes in base64url. */
export const API_KEY_PREFIX = "ck_";
const KEY_SHAPE = /^ck_[A-Za-z0-9_-]{43}$/;

export const apiKeyInputSchema = z.object({
  name: z.string().trim().min(1, "Name the key").max(60).regex(/^[\w .@:'()-]+$/, "Use letters, digits, spaces and . _ - : @ ' ( )"),
  role: z.enum(["owner", "manager", "reviewer", "member"]),
  expiresAt: z.iso
    .datetime({ offset: true })
    .optional()
    .refine((v) => !v || new Date(v).getTime() > Date.now(), "The expiry must be in the future."),
});
export type ApiKeyInput = z.infer<typeof apiKeyInputSchema>;

export const hashApiKey = (key: string) => crypto.createHash("sha256").update(key, "utf8").digest("hex");

/** Whether a string is shaped like an API key (anything else is never looked up). */
export const looksLikeApiKey = (value: string) => KEY_SHAPE.test(value);

const rowColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  role: apiKeys.role,
  prefix: apiKeys.prefix,
  createdById: apiKeys.createdBy,
  createdByName: users.name,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};

type Selected = Omit<ApiKeySummary, "createdBy"> & { createdById: string; createdByName: string };

const toRow = ({ createdById, createdByName, ...rest }: Selected): ApiKeySummary => ({ ...rest, createdBy: { id: createdById, name: createdByName } });

/**
 * Makes a key for a script, with a role no higher than its maker's; what it does is done on the maker's behalf. The
 * key is returned here and nowhere else.
 */
export async function createApiKey(
  db: Db,
  input: { workspaceId: string; maker: { id: string; role: Role } } & ApiKeyInput,
): Promise<{ id: string; key: string; apiKey: ApiKeySummary }> {
  if (!hasRole(input.maker.role, input.role)) {
    throw new AppError("forbidden:api_key_role", `A key cannot have a higher role than yours (${roleLabels[input.maker.role].toLowerCase()}).`);
  }
  const key = `${API_KEY_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
  return db.transaction(async (tx) => {
    const [made] = await tx
      .insert(apiKeys)
      .values({
        workspaceId: input.workspaceId,
        name: input.name,
        role: input.role,
        keyHash: hashApiKey(key),
        prefix: key.slice(0, 7),
        createdBy: input.maker.id,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      })
      .returning({ id: apiKeys.id });
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: { kind: "user", id: input.maker.id },
      action: "api_key.created",
      target: { type: "api_key", id: made!.id },
      detail: { name: input.name, role: input.role, expiresAt: input.expiresAt ?? null },
    });
    const [row] = await tx.select(rowColumns).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.createdBy)).where(eq(apiKeys.id, made!.id));
    return { id: made!.id, key, apiKey: toRow(row!) };
  });
}

/** The workspace's keys, live ones first, newest first: never the key nor its hash. */
export async function listApiKeys(db: Db, workspaceId: string): Promise<ApiKeySummary[]> {
  const rows = await db
    .select(rowColumns)
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdBy))
    .where(eq(apiKeys.workspaceId, workspaceId))
    .orderBy(sql`${apiKeys.revokedAt} is not null`, desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toRow);
}

/** Revokes a key at once: the next request that carries it is refused. Revoking a revoked key changes nothing. */
export async function revokeApiKey(db: Db, input: { workspaceId: string; actorId: string; id: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const [key] = await tx
      .select({ id: apiKeys.id, name: apiKeys.name, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, input.id), eq(apiKeys.workspaceId, input.workspaceId)));
    if (!key) throw new AppError("not_found:api_key");
    if (key.revokedAt) return;
    await tx
      .update(apiKeys)
      .set({ revokedAt: new Date(), revokedBy: input.actorId })
      .where(and(eq(apiKeys.id, key.id), isNull(apiKeys.revokedAt)));
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: { kind: "user", id: input.actorId },
      action: "api_key.revoked",
      target: { type: "api_key", id: key.id },
      detail: { name: key.name },
    });
  });
}
