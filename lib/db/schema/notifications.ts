import { index, integer, jsonb, pgTable, primaryKey, text, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./common";
import { approvals } from "./approvals";
import { users, workspaces } from "./workspaces";

/** How a person is reached about requests they may decide (see lib/notifications/prefs.ts for the defaults). */
export interface NotificationPrefs {
  email?: boolean;
  push?: boolean;
  slack?: boolean;
  /** Email: one message per request (null), or one digest of what arrived every N minutes. */
  digestMinutes?: number | null;
  /** Nothing is sent between these times ("22:00" to "07:00"), in `timeZone`; what falls in them waits for the end. */
  quietHours?: { from: string; to: string } | null;
  timeZone?: string | null;
  /** Only requests of these agents (ids), or these categories; null: every request the person may decide. */
  agents?: string[] | null;
  categories?: string[] | null;
}

export const notificationPrefs = pgTable(
  "notification_prefs",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    prefs: jsonb().$type<NotificationPrefs>().notNull().default({}),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] })],
);

/** Where a notification goes. */
export type NotificationChannel = "email" | "push" | "slack";
/** Why it is sent: the request was asked, escalated to a tier, or is about to expire. */
export type NotificationStep = "asked" | "escalated_managers" | "escalated_owners" | "reminder_half" | "reminder_late";
export type NotificationStatus = "queued" | "sending" | "sent" | "failed" | "dropped";

/**
 * The outbox of notifications about requests: one row per person (or the workspace's Slack channel), request, channel and step, so each is sent once
 * across instances and restarts. The sweeper claims due rows (skipping locked ones), sends them, and records the
 * outcome; a failed send is tried again later with a growing wait, then kept as failed with the channel's error.
 */
export const notifications = pgTable(
  "notifications",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    approvalId: uuid()
      .notNull()
      .references(() => approvals.id, { onDelete: "cascade" }),
    /** The person told; null for a post to the workspace's Slack channel (`destination`), which tells nobody in particular. */
    userId: uuid().references(() => users.id, { onDelete: "cascade" }),
    channel: text().$type<NotificationChannel>().notNull(),
    /** Where a post without a person goes: the workspace's Slack channel ("#approvals"). */
    destination: text(),
    step: text().$type<NotificationStep>().notNull(),
    status: text().$type<NotificationStatus>().notNull().default("queued"),
    attempts: integer().notNull().default(0),
    dueAt: at().notNull(),
    leaseUntil: at(),
    sentAt: at(),
    /** The channel's refusal, in words (never its credentials), or why it was not sent. */
    error: text(),
    /** Where a Slack message was posted (its channel and timestamp), so it can be updated once the request is decided. */
    externalRef: jsonb().$type<{ channel: string; ts: string }>(),
    /** When the posted message was updated to say the request was decided (or is no longer waiting). */
    closedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [
    // Once per person (or once for the workspace's channel: no person), request, channel and step.
    unique("notifications_once_key").on(t.approvalId, t.userId, t.channel, t.step).nullsNotDistinct(),
    index("notifications_due_idx").on(t.status, t.dueAt),
    index("notifications_user_idx").on(t.workspaceId, t.userId, t.createdAt),
  ],
);

export type Notification = typeof notifications.$inferSelect;

/**
 * A browser a person allowed to show notifications (the Push API's subscription): where the push service takes them
 * and the keys the payload is encrypted with. One person may have several (a phone and a laptop).
 */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text().notNull(),
    p256dh: text().notNull(),
    auth: text().notNull(),
    /** The browser, in words ("Chrome on Android"), so the person can tell their devices apart. */
    label: text().notNull(),
    lastSentAt: at(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("push_subscriptions_endpoint_key").on(t.endpoint), index("push_subscriptions_user_idx").on(t.userId)],
);

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;

/**
 * A person's Slack account in a workspace, linked once they confirmed it from Slack itself (a signed interaction from
 * that Slack user), never by a name. Until then the link is pending with the code the confirmation must carry.
 */
export const slackLinks = pgTable(
  "slack_links",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    slackUserId: text().notNull(),
    /** Set while the link waits for its confirmation in Slack: the hash of the one-time code the button carries. */
    pendingCodeHash: text(),
    verifiedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), uniqueIndex("slack_links_slack_user_key").on(t.workspaceId, t.slackUserId)],
);

export type SlackLink = typeof slackLinks.$inferSelect;

/** Signatures of Slack requests already acted on: a second delivery of the same request is refused as a replay. */
export const slackReplays = pgTable("slack_replays", {
  signature: text().primaryKey(),
  receivedAt: createdAt(),
});

/** Keys this server makes for itself at first start (the push service's VAPID pair), sealed with the encryption key. */
export const serverKeys = pgTable("server_keys", {
  name: text().primaryKey(),
  value: text().notNull(),
  createdAt: createdAt(),
});
