import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Viewer } from "../access/access";
import { runFactsByIds } from "../access/run-facts-cache";
import { runLinkForViewer } from "../access/redact";
import type { Db } from "../db/client";
import { connections, outboxMessages, agents } from "../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { envSchema } from "../env";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { Redactor } from "../secret-redactor";
import { BROKERED_PROVIDER } from "./credentials";

export const SLACK_DEFAULT_BASE_URL = "https://slack.com";

/** Services a workspace can connect, with what each needs. */
export const connectionProviders = {
  slack: {
    label: "Slack",
    secretLabel: "Bot token (xoxb-…)",
    // `xoxb-` then digits, letters and hyphens: printable ASCII only, so it can never break a header.
    secretPattern: /^xoxb-[A-Za-z0-9-]{10,250}$/,
    secretHint: "A Slack bot token starts with xoxb- and has only letters, digits and hyphens.",
  },
} as const;
export type ConnectionProvider = keyof typeof connectionProviders;

/**
 * The only address a provider's credential is sent to: the operator's
 * `CLAWDECK_SLACK_BASE_URL` or slack.com. Read at call time; never from a
 * connection, so a manager cannot aim a workspace's token somewhere else.
 */
export function providerBaseUrl(provider: ConnectionProvider, source: Record<string, string | undefined> = process.env): string {
  const configured = envSchema.shape.CLAWDECK_SLACK_BASE_URL.parse(source.CLAWDECK_SLACK_BASE_URL);
  return normaliseBaseUrl(provider === "slack" && configured ? configured : SLACK_DEFAULT_BASE_URL);
}

function normaliseBaseUrl(raw: string): string {
  const url = new URL(raw);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Refuses a credential that does not have its provider's shape; the message never quotes it. */
export function checkConnectionSecret(provider: ConnectionProvider, secret: string): void {
  const { secretPattern, secretHint } = connectionProviders[provider];
  if (!secretPattern.test(secret)) throw new AppError("unprocessable:connection_secret", `${secretHint} Paste it again.`);
}

function checkBaseUrl(provider: ConnectionProvider, baseUrl: string | undefined): void {
  if (baseUrl === undefined) return;
  let given: string | null;
  try {
    given = normaliseBaseUrl(baseUrl);
  } catch {
    given = null;
  }
  const allowed = providerBaseUrl(provider);
  if (given !== allowed) {
    throw new AppError("unprocessable:connection_base_url", `${connectionProviders[provider].label} is reached at ${allowed}; only the server's operator can change that address.`);
  }
}

export const saveConnectionSchema = z.object({
  provider: z.enum(Object.keys(connectionProviders) as [keyof typeof connectionProviders]),
  label: z.string().trim().min(1).max(60).default("default"),
  // The provider's shape (and so the length) is checked by `checkConnectionSecret`: a 422 that never quotes the value.
  secret: z.string().trim().max(10_000).optional(),
  /** Accepted only when it is the operator's address (see `providerBaseUrl`); kept for older clients. */
  baseUrl: z.string().max(2000).optional(),
  /**
   * Slack's signing secret, which proves that button presses come from Slack: with it, requests can reach reviewers
   * in Slack with Approve and Reject buttons. Write-only like the token; saving again without it keeps the stored one.
   */
  signingSecret: z.string().trim().max(200).optional(),
});
export type SaveConnectionInput = z.infer<typeof saveConnectionSchema>;

export interface ConnectionSummary {
  id: string;
  provider: string;
  label: string;
  /** Where the credential is sent: the operator's address, whatever the connection once stored. */
  baseUrl: string;
  /** Whether a signing secret is stored (Slack: buttons in messages can be trusted). Never the secret itself. */
  hasSigningSecret: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Connections without their secrets: the browser never receives a credential, not even part of one. */
export async function listConnections(db: Db, workspaceId: string): Promise<ConnectionSummary[]> {
  const rows = await db
    .select({
      id: connections.id,
      provider: connections.provider,
      label: connections.label,
      hasSigningSecret: sql<boolean>`${connections.signingSecret} is not null`,
      createdAt: connections.createdAt,
      updatedAt: connections.updatedAt,
    })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), ne(connections.provider, BROKERED_PROVIDER)))
    .orderBy(asc(connections.provider), asc(connections.label));
  return rows.map((r) => ({ ...r, baseUrl: providerBaseUrl(r.provider as ConnectionProvider) }));
}

export async function saveConnection(db: Db, workspaceId: string, actorId: string, key: Buffer, input: SaveConnectionInput): Promise<ConnectionSummary> {
  if (input.signingSecret !== undefined && !/^[0-9a-f]{32}$/i.test(input.signingSecret)) {
    throw new AppError("unprocessable:connection_signing_secret", "A Slack signing secret is 32 letters and digits (0–9, a–f). Copy it again from the app's Basic Information page.");
  }
  const signingSecret = input.signingSecret === undefined ? undefined : encryptSecret(input.signingSecret, key);
  if (!input.secret) {
    // Only the signing secret, added to a connection that has its token: the token is never asked for again.
    if (!signingSecret) checkConnectionSecret(input.provider, "");
    const [row] = await db
      .update(connections)
      .set({ signingSecret, updatedAt: new Date() })
      .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, input.provider), eq(connections.label, input.label)))
      .returning();
    if (!row) throw new AppError("unprocessable:connection_secret", `${connectionProviders[input.provider].secretHint} Paste the bot token as well: this workspace has none saved yet.`);
    await recordAudit(db, {
      workspaceId,
      actor: { kind: "user", id: actorId },
      action: "connection.saved",
      target: { type: "connection", id: row.id },
      detail: { provider: input.provider, label: input.label, token: "kept", signingSecret: "saved" },
    });
    return summaryOf(row);
  }
  checkConnectionSecret(input.provider, input.secret);
  checkBaseUrl(input.provider, input.baseUrl);
  const config: Record<string, string> = {};
  const [row] = await db
    .insert(connections)
    .values({ workspaceId, provider: input.provider, label: input.label, config, secret: encryptSecret(input.secret, key), signingSecret, createdByUserId: actorId })
    .onConflictDoUpdate({
      target: [connections.workspaceId, connections.provider, connections.label],
      set: { config, secret: encryptSecret(input.secret, key), ...(signingSecret ? { signingSecret } : {}), updatedAt: new Date() },
    })
    .returning();
  await recordAudit(db, {
    workspaceId,
    actor: { kind: "user", id: actorId },
    action: "connection.saved",
    target: { type: "connection", id: row!.id },
    detail: { provider: input.provider, label: input.label, signingSecret: signingSecret ? "saved" : row!.signingSecret ? "kept" : "none" },
  });
  return summaryOf(row!);
}

const summaryOf = (row: typeof connections.$inferSelect): ConnectionSummary => ({
  id: row.id,
  provider: row.provider,
  label: row.label,
  baseUrl: providerBaseUrl(row.provider as ConnectionProvider),
  hasSigningSecret: row.signingSecret !== null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** Every credential the workspace stores, decrypted: what a tool's errors and output are scrubbed of. */
export async function listSecretValues(db: Db, workspaceId: string, key: Buffer): Promise<string[]> {
  const rows = await db.select({ secret: connections.secret, signingSecret: connections.signingSecret }).from(connections).where(eq(connections.workspaceId, workspaceId));
  return rows.flatMap((row) =>
    [row.secret, row.signingSecret].flatMap((sealed) => {
      if (!sealed) return [];
      try {
        return [decryptSecret(sealed, key)];
      } catch {
        return [];
      }
    }),
  );
}

export async function deleteConnection(db: Db, workspaceId: string, actorId: string, id: string): Promise<void> {
  const [row] = await db
    .delete(connections)
    .where(and(eq(connections.id, id), eq(connections.workspaceId, workspaceId)))
    .returning({ provider: connections.provider, label: connections.label });
  if (!row) throw new AppError("not_found:connection");
  await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action: "connection.deleted", target: { type: "connection", id }, detail: row });
}

/**
 * What a tool call's error and output pass through before they are stored,
 * journaled or shown to the model: every credential of the workspace, plus
 * those the call was handed (`used`), in every form the redactor knows.
 */
export async function workspaceRedactor(db: Db, workspaceId: string, key: Buffer, used: readonly string[] = []): Promise<Redactor> {
  return new Redactor([...used, ...(await listSecretValues(db, workspaceId, key))]);
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
