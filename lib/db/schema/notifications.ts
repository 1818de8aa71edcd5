import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
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
 * The outbox of notifications about requests: one row per person, request, channel and step, so each is sent once
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
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    channel: text().$type<NotificationChannel>().notNull(),
    step: text().$type<NotificationStep>().notNull(),
    status: text().$type<NotificationStatus>().notNull().default("queued"),
    attempts: integer().notNull().default(0),
    dueAt: at().notNull(),
    leaseUntil: at(),
    sentAt: at(),
    /** The channel's refusal, in words (never its credentials), or why it was not sent. */
    error: text(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("notifications_once_key").on(t.approvalId, t.userId, t.channel, t.step),
    index("notifications_due_idx").on(t.status, t.dueAt),
    index("notifications_user_idx").on(t.workspaceId, t.userId, t.createdAt),
  ],
);

export type Notification = typeof notifications.$inferSelect;
