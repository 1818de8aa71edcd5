/** What the notification routes answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";
import { notificationChannelSchema, notificationStepSchema } from "../safety/approval-schemas";

export { notifiedSchema, type Notified } from "../safety/approval-schemas";

export const notificationPrefsSchema = z.object({
  email: z.boolean(),
  push: z.boolean(),
  slack: z.boolean(),
  digestMinutes: z.nullable(z.number()),
  quietHours: z.nullable(z.object({ from: z.string(), to: z.string() })),
  timeZone: z.nullable(z.string()),
  agents: z.nullable(z.array(id)),
  categories: z.nullable(z.array(z.string())),
  /** Which channels this server can send through now (email needs an SMTP server). */
  available: z.object({ email: z.boolean(), push: z.boolean(), slack: z.boolean() }),
  /** Whether the person may decide requests at all (else nothing reaches them). */
  decides: z.boolean(),
});
export type NotificationPrefsReply = z.infer<typeof notificationPrefsSchema>;

/** A person's own recent notifications (Settings → Notifications). */
export const deliveriesSchema = z.object({
  deliveries: z.array(
    z.object({
      id,
      approvalId: id,
      title: z.string(),
      agentHandle: z.string(),
      channel: notificationChannelSchema,
      step: notificationStepSchema,
      status: z.enum(["queued", "sending", "sent", "failed", "dropped"]),
      attempts: z.number(),
      at: isoDate,
      error: z.nullable(z.string()),
    }),
  ),
});
export type Deliveries = z.infer<typeof deliveriesSchema>;

export const escalationSchema = z.object({ escalateAfterMinutes: z.number(), slackChannel: z.nullable(z.string()) });

/** How a channel and a step read for a person: "by email", "reminded (half the time gone)". */
export const channelWords: Record<z.infer<typeof notificationChannelSchema>, string> = { email: "by email", push: "by push notification", slack: "on Slack" };
export const stepWords: Record<z.infer<typeof notificationStepSchema>, string> = {
  asked: "when it was asked",
  escalated_managers: "passed on to the managers",
  escalated_owners: "passed on to the owners",
  reminder_half: "reminded at half its time",
  reminder_late: "reminded before it expires",
};

/** A browser that shows a person's push notifications (never its keys). */
const pushBrowser = z.object({ id, label: z.string(), createdAt: isoDate, lastSentAt: z.nullable(isoDate) });
export const pushBrowserSchema = z.object({ browser: pushBrowser });
export const pushBrowsersSchema = z.object({ publicKey: z.string(), browsers: z.array(pushBrowser) });
export type PushBrowsers = z.infer<typeof pushBrowsersSchema>;

/** Whether a person's Slack account is linked in a workspace. */
export const slackLinkSchema = z.object({
  link: z.union([
    z.object({ status: z.literal("none") }),
    z.object({ status: z.enum(["pending", "linked"]), slackUserId: z.string(), since: isoDate }),
  ]),
});
export type SlackLinkReply = z.infer<typeof slackLinkSchema>;
