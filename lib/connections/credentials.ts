import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import { encryptSecret } from "../crypto";
import type { Db } from "../db/client";
import { connections } from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";

/**
 * Named credentials the broker attaches for agents (`http.request`): each is
 * bound to the hosts it may be sent to, and its value is used on the server
 * only. Stored with the workspace's connections (encrypted the same way, and
 * so kept out of everything the redactor guards), under their own provider.
 */
export const BROKERED_PROVIDER = "http";

/** A host a credential may go to: `api.example.com`, `api.example.com:8443` or `*.example.com` (any host below it). */
const hostPattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/, "Name a host such as api.github.com, api.example.com:8443 or *.example.com");

export const credentialInputSchema = z.object({
  name: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "Use 1 to 40 lowercase letters, digits, dashes or underscores"),
  hosts: z.array(hostPattern).min(1).max(10),
  /** Printable ASCII: it goes in a request header. */
  value: z.string().min(1).max(4096).regex(/^[\x21-\x7e]+$/, "The value must be printable characters without spaces"),
  /** The header it is sent in and its scheme: `Authorization: Bearer <value>` by default. */
  header: z.string().trim().regex(/^[A-Za-z0-9-]{1,64}$/).default("Authorization"),
  scheme: z.string().trim().regex(/^[A-Za-z0-9-]{0,32}$/).default("Bearer"),
});
export type CredentialInput = z.infer<typeof credentialInputSchema>;

export interface CredentialSummary {
  id: string;
  name: string;
  hosts: string[];
  header: string;
  scheme: string;
  createdAt: string;
}

const hostsOf = (config: Record<string, string>) => (config.hosts ?? "").split(",").filter(Boolean);

/** Whether a URL's host (and port) is one a credential may go to. */
export function hostAllowed(patterns: readonly string[], url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const withPort = url.port ? `${host}:${url.port}` : host;
  return patterns.some((pattern) => {
    const [name, port] = pattern.split(":") as [string, string | undefined];
    if (port !== undefined ? withPort.split(":")[1] !== port : url.port !== "") return false;
    return name.startsWith("*.") ? host.endsWith(name.slice(1)) && host.length > name.length - 1 : host === name;
  });
}

export async function listCredentials(db: Db, workspaceId: string): Promise<CredentialSummary[]> {
  const rows = await db
    .select({ id: connections.id, label: connections.label, config: connections.config, createdAt: connections.createdAt })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, BROKERED_PROVIDER)))
    .orderBy(asc(connections.label));
  return rows.map((r) => ({ id: r.id, name: r.label, hosts: hostsOf(r.config), header: r.config.header ?? "Authorization", scheme: r.config.scheme ?? "Bearer", createdAt: r.createdAt.toISOString() }));
}

/** Stores a credential (its value encrypted; shown back never). A name already used is a 409. */
export async function createCredential(db: Db, workspaceId: string, actorId: string, key: Buffer, input: CredentialInput): Promise<CredentialSummary> {
  const config = { hosts: [...new Set(input.hosts)].join(","), header: input.header, scheme: input.scheme };
  try {
    const [row] = await db
      .insert(connections)
      .values({ workspaceId, provider: BROKERED_PROVIDER, label: input.name, config, secret: encryptSecret(input.value, key), createdByUserId: actorId })
      .returning();
    await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action: "credential.created", target: { type: "credential", id: row!.id }, detail: { name: input.name, hosts: input.hosts } });
    return { id: row!.id, name: row!.label, hosts: hostsOf(row!.config), header: input.header, scheme: input.scheme, createdAt: row!.createdAt.toISOString() };
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AppError("conflict:credential", `A credential named ${input.name} already exists. Delete it first to replace it.`);
    throw error;
  }
}

export async function deleteCredential(db: Db, workspaceId: string, actorId: string, id: string): Promise<void> {
  const [row] = await db
    .delete(connections)
    .where(and(eq(connections.id, id), eq(connections.workspaceId, workspaceId), eq(connections.provider, BROKERED_PROVIDER)))
    .returning({ id: connections.id, label: connections.label });
  if (!row) throw new AppError("not_found:credential");
  await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action: "credential.deleted", target: { type: "credential", id: row.id }, detail: { name: row.label } });
}
