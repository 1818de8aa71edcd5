/**
 * Webhook endpoints: addresses of a team's own systems that hear about the workspace's events (approvals asked and
 * decided, runs and missions that end, budgets that pass a threshold, people who join or leave). Managers make them;
 * each has a signing secret shown once; the address must pass the rules of every outgoing request.
 */
import crypto from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { feedItems, webhookDeliveries, webhooks, webhookEventTypes, type WebhookEventType } from "../db/schema";
import { encryptSecret } from "../crypto";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { checkedAddress, FetchRefusedError, type SafeLookup } from "../net/safe-fetch";

export const webhookBodySchema = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2000),
  events: z.array(z.enum(webhookEventTypes)).min(1).max(webhookEventTypes.length),
  description: z.string().trim().max(200).optional(),
});
export type WebhookBody = z.infer<typeof webhookBodySchema>;

/** Refuses an address inside the server's network (unless the operator allowed it), in words. */
export async function checkWebhookUrl(raw: string, fetchAllow: readonly string[], lookup?: SafeLookup): Promise<void> {
  const url = new URL(raw);
  if (url.username || url.password) throw new AppError("unprocessable:webhook_url", "Put no user name or password in the address: every message is signed instead.");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  try {
    await checkedAddress(url.hostname, port, { allow: fetchAllow, lookup });
  } catch (error) {
    if (error instanceof FetchRefusedError) throw new AppError("unprocessable:webhook_url", `Messages cannot be sent to that address: ${error.message}`);
    throw new AppError("unprocessable:webhook_url", `The address's host (${url.hostname}) could not be found.`);
  }
}

/** A new secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
const newSecret = () => `whsec_${crypto.randomBytes(24).toString("base64")}`;

export interface WebhookSummary {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: Date;
}

/** Makes an endpoint; its secret is returned this once. Events from before it existed are not sent to it. */
export async function createWebhook(
  db: Db,
  input: { workspaceId: string; actorId: string; encryptionKey: Buffer; fetchAllow: readonly string[] } & WebhookBody,
): Promise<{ webhook: WebhookSummary; secret: string }> {
  await checkWebhookUrl(input.url, input.fetchAllow);
  const secret = newSecret();
  return db.transaction(async (tx) => {
    const [last] = await tx
      .select({ seq: sql<number>`coalesce(max(${feedItems.seq}), 0)`.mapWith(Number) })
      .from(feedItems)
      .where(eq(feedItems.workspaceId, input.workspaceId));
    const [row] = await tx
      .insert(webhooks)
      .values({
        workspaceId: input.workspaceId,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description ?? null,
        secret: encryptSecret(secret, input.encryptionKey),
        feedCursor: last?.seq ?? 0,
        createdByUserId: input.actorId,
      })
      .returning();
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      actor: { kind: "user", id: input.actorId },
      action: "webhook.created",
      target: { type: "webhook", id: row!.id },
      detail: { url: input.url, events: row!.events },
    });
    return { webhook: summary(row!), secret };
  });
}

const summary = (row: typeof webhooks.$inferSelect): WebhookSummary => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  createdAt: row.createdAt,
});

/** The endpoints with how their latest deliveries went, never their secrets. */
export async function listWebhooks(db: Db, workspaceId: string) {
  const rows = await db.select().from(webhooks).where(eq(webhooks.workspaceId, workspaceId)).orderBy(webhooks.createdAt);
  const counts = await db
    .select({
      webhookId: webhookDeliveries.webhookId,
      delivered: sql<number>`count(*) filter (where ${webhookDeliveries.status} = 'delivered')::int`.mapWith(Number),
      failed: sql<number>`count(*) filter (where ${webhookDeliveries.status} = 'failed')::int`.mapWith(Number),
      waiting: sql<number>`count(*) filter (where ${webhookDeliveries.status} in ('queued', 'sending'))::int`.mapWith(Number),
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.workspaceId, workspaceId))
    .groupBy(webhookDeliveries.webhookId);
  return rows.map((row) => {
    const found = counts.find((c) => c.webhookId === row.id);
    return { ...summary(row), deliveries: { delivered: found?.delivered ?? 0, failed: found?.failed ?? 0, waiting: found?.waiting ?? 0 } };
  });
}

export async function deleteWebhook(db: Db, workspaceId: string, actorId: string, id: string): Promise<void> {
  const [gone] = await db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, workspaceId)))
    .returning({ url: webhooks.url });
  if (!gone) throw new AppError("not_found:webhook");
  await recordAudit(db, { workspaceId, actor: { kind: "user", id: actorId }, action: "webhook.deleted", target: { type: "webhook", id }, detail: { url: gone.url } });
}

/** An endpoint's deliveries, newest first: what was sent, what the receiver answered, and how long it took. */
export async function listDeliveries(db: Db, workspaceId: string, webhookId: string, limit = 100) {
  const [hook] = await db.select({ id: webhooks.id }).from(webhooks).where(and(eq(webhooks.id, webhookId), eq(webhooks.workspaceId, workspaceId)));
  if (!hook) throw new AppError("not_found:webhook");
  return db
    .select({
      id: webhookDeliveries.id,
      eventType: webhookDeliveries.eventType,
      payload: webhookDeliveries.payload,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      lastStatus: webhookDeliveries.lastStatus,
      lastDurationMs: webhookDeliveries.lastDurationMs,
      lastError: webhookDeliveries.lastError,
      dueAt: webhookDeliveries.dueAt,
      deliveredAt: webhookDeliveries.deliveredAt,
      createdAt: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(limit);
}

/** "Send again": the delivery goes back in the queue as it is (same message id), due now. */
export async function redeliver(db: Db, input: { workspaceId: string; actorId: string; webhookId: string; deliveryId: string }) {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: "queued", dueAt: new Date(), leaseUntil: null })
    .where(
      and(
        eq(webhookDeliveries.id, input.deliveryId),
        eq(webhookDeliveries.webhookId, input.webhookId),
        eq(webhookDeliveries.workspaceId, input.workspaceId),
        sql`${webhookDeliveries.status} <> 'sending'`,
      ),
    )
    .returning({ id: webhookDeliveries.id, status: webhookDeliveries.status });
  if (!row) throw new AppError("not_found:webhook_delivery", "That delivery does not exist, or is being sent right now.");
  await recordAudit(db, {
    workspaceId: input.workspaceId,
    actor: { kind: "user", id: input.actorId },
    action: "webhook.redelivered",
    target: { type: "webhook_delivery", id: row.id },
    detail: { webhookId: input.webhookId },
  });
  return row;
}
