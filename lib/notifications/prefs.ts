/**
 * How each person is reached about requests they may decide, and when a waiting request is escalated. Stored per
 * person and workspace; what is not stored takes the defaults: email on when the operator configured an SMTP server,
 * every request the person may decide, no quiet hours, one message per request.
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { connections, notificationPrefs, workspaces, type NotificationPrefs } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { isKnownTimeZone } from "../workspaces/time-zone";
import { escalateAfterMinutes, requestsSlackChannel } from "../escalation";
import type { Mailer } from "../mail/mailer";
import type { PushSender } from "./push";

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "A time such as 22:00");

export const notificationPrefsBodySchema = z.object({
  email: z.boolean(),
  push: z.boolean(),
  slack: z.boolean(),
  digestMinutes: z.number().int().min(5).max(24 * 60).nullable(),
  quietHours: z
    .object({ from: clock, to: clock })
    .refine((q) => q.from !== q.to, "Quiet hours must start and end at different times")
    .nullable(),
  timeZone: z.string().trim().max(64).refine(isKnownTimeZone, "Unknown time zone").nullable(),
  agents: z.array(z.uuid()).max(500).nullable(),
  categories: z.array(z.string().max(40)).max(40).nullable(),
});
export type ResolvedPrefs = z.infer<typeof notificationPrefsBodySchema>;

/** The channels this server can send through: email with an SMTP server, push and Slack once connected. */
export interface ChannelsAvailable {
  email: boolean;
  push: boolean;
  slack: boolean;
}

/** Slack is reached with each workspace's own app; the server brings the key its token is sealed with. */
export interface SlackChannel {
  encryptionKey: Buffer;
  fetchAllow: readonly string[];
}

/** The senders the server has: email through the operator's SMTP server, web push with its own keys, Slack. */
export interface NotificationChannels {
  email: Mailer | null;
  push: PushSender | null;
  slack: SlackChannel | null;
}

export const channelsAvailable = (channels: NotificationChannels): ChannelsAvailable => ({ email: !!channels.email, push: !!channels.push, slack: !!channels.slack });

/** The channels that can reach people of one workspace: Slack only once the workspace connected its Slack app. */
export async function channelsAvailableIn(db: Db, channels: NotificationChannels, workspaceId: string): Promise<ChannelsAvailable> {
  const available = channelsAvailable(channels);
  if (!available.slack) return available;
  const [app] = await db
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, "slack"), isNotNull(connections.signingSecret)))
    .limit(1);
  return { ...available, slack: !!app };
}

/** What a person's stored preferences come to, with the defaults filled in. */
export function resolvePrefs(stored: NotificationPrefs | undefined, available: ChannelsAvailable): ResolvedPrefs {
  return {
    email: stored?.email ?? available.email,
    push: stored?.push ?? false,
    slack: stored?.slack ?? false,
    digestMinutes: stored?.digestMinutes ?? null,
    quietHours: stored?.quietHours ?? null,
    timeZone: stored?.timeZone ?? null,
    agents: stored?.agents ?? null,
    categories: stored?.categories ?? null,
  };
}

export async function readPrefs(db: Db, workspaceId: string, userId: string, available: ChannelsAvailable): Promise<ResolvedPrefs> {
  const [row] = await db
    .select({ prefs: notificationPrefs.prefs })
    .from(notificationPrefs)
    .where(and(eq(notificationPrefs.workspaceId, workspaceId), eq(notificationPrefs.userId, userId)));
  return resolvePrefs(row?.prefs, available);
}

export async function writePrefs(db: Db, workspaceId: string, userId: string, prefs: ResolvedPrefs): Promise<void> {
  await db
    .insert(notificationPrefs)
    .values({ workspaceId, userId, prefs })
    .onConflictDoUpdate({ target: [notificationPrefs.workspaceId, notificationPrefs.userId], set: { prefs, updatedAt: sql`now()` } });
}

export const escalationBodySchema = z.object({
  escalateAfterMinutes: z.number().int().min(0).max(7 * 24 * 60),
  /** A channel every waiting request is also posted to (read-only there: decisions are made in direct messages or the app); null for none. */
  slackChannel: z
    .string()
    .trim()
    .regex(/^#?[a-z0-9_.-]{1,80}$/i, "A channel name such as #approvals")
    .transform((v) => (v.startsWith("#") ? v.toLowerCase() : `#${v.toLowerCase()}`))
    .nullable()
    .optional(),
});

/** How the workspace passes requests on: the escalation time, and the Slack channel they are also posted to. */
export async function setEscalation(
  db: Db,
  workspaceId: string,
  actorId: string,
  input: z.infer<typeof escalationBodySchema>,
): Promise<{ escalateAfterMinutes: number; slackChannel: string | null }> {
  return db.transaction(async (tx) => {
    const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (!ws) throw new AppError("not_found:workspace");
    const before = { escalateAfterMinutes: escalateAfterMinutes(ws.settings), slackChannel: requestsSlackChannel(ws.settings) };
    const after = { escalateAfterMinutes: input.escalateAfterMinutes, slackChannel: input.slackChannel === undefined ? before.slackChannel : input.slackChannel };
    if (before.escalateAfterMinutes === after.escalateAfterMinutes && before.slackChannel === after.slackChannel) return after;
    await tx
      .update(workspaces)
      .set({ settings: { ...ws.settings, notifications: { ...ws.settings.notifications, ...after } } })
      .where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: actorId }, action: "notifications.escalation_set", target: { type: "workspace", id: workspaceId }, detail: { before, after } });
    return after;
  });
}

/**
 * Whether `at` falls in the person's quiet hours, and if so when they end. Hours that wrap midnight ("22:00" to
 * "07:00") are quiet from the evening to the morning.
 */
export function quietUntil(prefs: Pick<ResolvedPrefs, "quietHours" | "timeZone">, fallbackZone: string, at: Date): Date | null {
  if (!prefs.quietHours) return null;
  const zone = prefs.timeZone ?? fallbackZone;
  const minuteOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const now = Number(parts.find((p) => p.type === "hour")!.value) * 60 + Number(parts.find((p) => p.type === "minute")!.value);
  const from = minuteOf(prefs.quietHours.from);
  const to = minuteOf(prefs.quietHours.to);
  const quiet = from < to ? now >= from && now < to : now >= from || now < to;
  if (!quiet) return null;
  const wait = (to - now + 24 * 60) % (24 * 60);
  // To the start of the minute the quiet hours end (seconds of the current minute taken off).
  return new Date(at.getTime() + wait * 60_000 - (at.getTime() % 60_000));
}
