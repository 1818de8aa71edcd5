/** What the webhook routes answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";
import { webhookEventTypes } from "../webhook-events";

const webhookRow = z.object({ id, url: z.string(), events: z.array(z.enum(webhookEventTypes)), description: z.nullable(z.string()), createdAt: isoDate });

export const webhookListSchema = z.object({
  webhooks: z.array(z.extend(webhookRow, { deliveries: z.object({ delivered: z.number(), failed: z.number(), waiting: z.number() }) })),
});
export type WebhookList = z.infer<typeof webhookListSchema>;

/** A new endpoint, with its signing secret: shown this once. */
export const webhookCreatedSchema = z.object({ webhook: webhookRow, secret: z.string() });

export const webhookDeliveriesSchema = z.object({
  deliveries: z.array(
    z.object({
      id,
      eventType: z.enum(webhookEventTypes),
      payload: z.object({ type: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
      status: z.enum(["queued", "sending", "delivered", "failed"]),
      attempts: z.number(),
      lastStatus: z.nullable(z.number()),
      lastDurationMs: z.nullable(z.number()),
      lastError: z.nullable(z.string()),
      dueAt: isoDate,
      deliveredAt: z.nullable(isoDate),
      createdAt: isoDate,
    }),
  ),
});
export type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;

/** Each event in words, for the settings page. */
export const webhookEventWords: Record<(typeof webhookEventTypes)[number], string> = {
  "approval.requested": "An agent asks for a decision",
  "approval.decided": "A request is approved or rejected",
  "run.completed": "A run finishes",
  "run.failed": "A run fails",
  "mission.finished": "A mission ends",
  "budget.threshold": "A monthly budget reaches half, 80 % or all of itself",
  "member.added": "Someone joins the workspace",
  "member.removed": "Someone is removed from the workspace",
};
