import { bigint, index, integer, jsonb, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id } from "./common";
import { users, workspaces } from "./workspaces";
import type { WebhookEventType } from "../../webhook-events";

export { webhookEventTypes, type WebhookEventType } from "../../webhook-events";

/**
 * An address of the team's own systems that hears about the workspace's events, signed with the Standard Webhooks
 * scheme. `secret` (`whsec_…`) is sealed like every credential and shown once, when the endpoint is made.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    url: text().notNull(),
    events: jsonb().$type<WebhookEventType[]>().notNull(),
    description: text(),
    secret: text().notNull(),
    /** The last feed item (by the workspace's sequence) turned into deliveries: events before the endpoint existed are not sent. */
    feedCursor: bigint({ mode: "number" }).notNull().default(0),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_workspace_idx").on(t.workspaceId)],
);

export type Webhook = typeof webhooks.$inferSelect;
export type WebhookDeliveryStatus = "queued" | "sending" | "delivered" | "failed";

/**
 * The outbox of webhook messages: one row per endpoint and event (`eventKey`, unique), sent by the sweeper with retries
 * over a day. The row's id is the message id (`webhook-id`), the same on every attempt, so a receiver can deduplicate.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    webhookId: uuid()
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    eventKey: text().notNull(),
    eventType: text().$type<WebhookEventType>().notNull(),
    payload: jsonb().$type<{ type: WebhookEventType; timestamp: string; data: Record<string, unknown> }>().notNull(),
    status: text().$type<WebhookDeliveryStatus>().notNull().default("queued"),
    attempts: integer().notNull().default(0),
    dueAt: at().notNull(),
    leaseUntil: at(),
    /** The receiver's last answer: its HTTP status, how long it took, or why nothing was sent, in words. */
    lastStatus: integer(),
    lastDurationMs: integer(),
    lastError: text(),
    deliveredAt: at(),
    createdAt: createdAt(),
  },
  (t) => [
    unique("webhook_deliveries_once_key").on(t.webhookId, t.eventKey),
    index("webhook_deliveries_due_idx").on(t.status, t.dueAt),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
  ],
);

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
