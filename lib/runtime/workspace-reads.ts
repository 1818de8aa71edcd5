import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { connections, workspaces } from "../db/schema";
import { decryptSecret } from "../crypto";
import { workspacePolicy, type WorkspacePolicy } from "../safety/policy";

/** Reads the runtime needs about a run's workspace. */

export async function workspacePolicyOf(db: Db, workspaceId: string): Promise<WorkspacePolicy> {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return workspacePolicy(ws?.settings);
}

/**
 * The workspace's credential for a provider (with `name`, the one of that label), decrypted for the tool that needs
 * it; the model never sees it.
 */
export async function workspaceCredential(db: Db, encryptionKey: Buffer, workspaceId: string, provider: string, name?: string) {
  const [row] = await db
    .select({ secret: connections.secret, config: connections.config })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, provider), name === undefined ? undefined : eq(connections.label, name)))
    .limit(1);
  return row ? { secret: decryptSecret(row.secret, encryptionKey), config: row.config } : null;
}
