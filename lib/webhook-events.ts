/** What a webhook endpoint can subscribe to (kept apart from the tables, so the browser can list them). */
export const webhookEventTypes = [
  "approval.requested",
  "approval.decided",
  "run.completed",
  "run.failed",
  "mission.finished",
  "budget.threshold",
  "member.added",
  "member.removed",
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
