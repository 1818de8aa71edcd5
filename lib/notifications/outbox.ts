/**
 * Reaching reviewers: which person is told about which waiting request, through which channel and when (the plan),
 * and the sending of what is due (the delivery). Both run in the sweeper; the outbox table makes each notification
 * happen once per person, request, channel and step, across instances and restarts.
 *
 * Who is told: the people who may decide the request (four eyes rules out the person behind it, as the decision
 * does), filtered by their own choices of agents and categories, tier by tier: reviewers when it is asked, then
 * managers, then owners, each after the workspace's escalation time (a tier with nobody in it is skipped). Everyone
 * told is reminded at half and at nine tenths of the time the request has.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, agents, approvals, memberships, notificationPrefs, notifications, slackLinks, slackReplays, users, workspaces, type NotificationChannel, type NotificationStep, type Role } from "../db/schema";
import type { DecisionChannel } from "../decision-channels";
import { mailFailure } from "../mail/mailer";
import { cameThroughDoor, fourEyesApplies } from "../safety/approvals";
import { workspacePolicy } from "../safety/policy";
import type { ToolRegistry } from "../tools/registry";
import { logError } from "../log";
import { digestMail, durationWords, requestMail, type RequestFacts } from "./approval-mail";
import { PushFailure, type PushPayload } from "./push";
import { requestMessage, slackApp, slackCall, SlackFailure, slackFailureWords, type RequestOutcome } from "./slack";
import { deliverBudgetAlerts } from "./budget-mail";
import { escalateAfterMinutes, requestsSlackChannel } from "../escalation";
import { isCapRequest } from "../billing/cap-words";
import { channelsAvailable, quietUntil, resolvePrefs, type ChannelsAvailable, type NotificationChannels, type ResolvedPrefs, type SlackChannel } from "./prefs";

export { channelsAvailable, type NotificationChannels };

/** The order in which tiers are told; members never decide. */
const tierOf: Partial<Record<Role, number>> = { reviewer: 0, manager: 1, owner: 2 };
const escalationStep: Record<number, NotificationStep> = { 1: "escalated_managers", 2: "escalated_owners" };


interface Candidate {
  userId: string;
  role: Role;
  prefs: ResolvedPrefs;
}

/** Whether a person's choices let this request reach them. */
function wants(prefs: ResolvedPrefs, request: { agentId: string; category: string }): boolean {
  if (prefs.agents && !prefs.agents.includes(request.agentId)) return false;
  if (prefs.categories && !prefs.categories.includes(request.category)) return false;
  return true;
}

function channelsOf(prefs: ResolvedPrefs, available: ChannelsAvailable): NotificationChannel[] {
  return (["email", "push", "slack"] as const).filter((c) => prefs[c] && available[c]);
}

/**
 * Adds to the outbox every notification that is due at `now` and not there yet. Returns how many were added.
 */
export async function planNotifications(db: Db, tools: ToolRegistry, channels: NotificationChannels, now = new Date()): Promise<number> {
  const available = channelsAvailable(channels);
  if (!available.email && !available.push && !available.slack) return 0;
  const pending = await db
    .select({
      id: approvals.id,
      workspaceId: approvals.workspaceId,
      agentId: approvals.agentId,
      category: approvals.category,
      tool: approvals.tool,
      via: approvals.via,
      fourEyesWhenAsked: approvals.fourEyes,
      behalf: sql<string | null>`coalesce(${approvals.onBehalfOfUserId}, ${approvals.requestedByUserId})`,
      createdAt: approvals.createdAt,
      expiresAt: approvals.expiresAt,
      settings: workspaces.settings,
    })
    .from(approvals)
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .innerJoin(workspaces, eq(workspaces.id, approvals.workspaceId))
    .where(and(eq(approvals.status, "pending"), eq(agentRuns.state, "suspended"), gt(approvals.expiresAt, now)));
  if (pending.length === 0) return 0;

  const workspaceIds = [...new Set(pending.map((p) => p.workspaceId))];
  const people = await db
    .select({ workspaceId: memberships.workspaceId, userId: memberships.userId, role: memberships.role, prefs: notificationPrefs.prefs })
    .from(memberships)
    .leftJoin(notificationPrefs, and(eq(notificationPrefs.workspaceId, memberships.workspaceId), eq(notificationPrefs.userId, memberships.userId)))
    .where(and(inArray(memberships.workspaceId, workspaceIds), inArray(memberships.role, ["reviewer", "manager", "owner"])));
  const byWorkspace = new Map<string, Candidate[]>();
  for (const p of people) {
    const list = byWorkspace.get(p.workspaceId) ?? [];
    list.push({ userId: p.userId, role: p.role, prefs: resolvePrefs(p.prefs ?? undefined, available) });
    byWorkspace.set(p.workspaceId, list);
  }
  const existing = await db
    .select({ approvalId: notifications.approvalId, userId: notifications.userId, channel: notifications.channel, step: notifications.step })
    .from(notifications)
    .where(inArray(notifications.approvalId, pending.map((p) => p.id)));
  const done = new Set(existing.map((e) => `${e.approvalId}|${e.userId ?? ""}|${e.channel}|${e.step}`));

  const rows: (typeof notifications.$inferInsert)[] = [];
  for (const request of pending) {
    const policy = workspacePolicy(request.settings);
    const fourEyes = request.fourEyesWhenAsked || cameThroughDoor(request.via) || fourEyesApplies(policy.fourEyesCategories, request.category, tools.get(request.tool)?.effects);
    // The people who may decide it, as the decision judges: under four eyes not the person behind it, and with nobody
    // behind it only managers and owners.
    const capRequest = isCapRequest(request);
    const deciders = (byWorkspace.get(request.workspaceId) ?? []).filter((c) => {
      // Whether a run may spend past its cap is for managers and owners alone.
      if (capRequest && c.role === "reviewer") return false;
      if (!fourEyes) return true;
      if (request.behalf === null) return c.role !== "reviewer";
      return c.userId !== request.behalf;
    });
    const post = channelPost(request, available, now);
    if (post && !done.has(`${request.id}||slack|asked`)) {
      done.add(`${request.id}||slack|asked`);
      rows.push(post);
    }
    const reached = deciders.filter((c) => wants(c.prefs, request));
    const tiers = [...new Set(reached.map((c) => tierOf[c.role]!))].sort();
    const after = escalateAfterMinutes(request.settings) * 60_000;
    const asked = request.createdAt.getTime();
    const life = request.expiresAt.getTime() - asked;
    // When each tier is told: the first at once, each next one an escalation time later (all at once with none).
    const toldAt = new Map(tiers.map((tier, i) => [tier, asked + i * after]));
    for (const person of reached) {
      const tier = tierOf[person.role]!;
      const at = toldAt.get(tier)!;
      const steps: { step: NotificationStep; at: number }[] = [{ step: at === asked ? "asked" : escalationStep[Math.min(2, Math.max(1, tier))]!, at }];
      for (const [step, share] of [["reminder_half", 0.5], ["reminder_late", 0.9]] as const) {
        const remindAt = asked + life * share;
        if (remindAt > at) steps.push({ step, at: remindAt });
      }
      for (const { step, at: due } of steps) {
        if (due > now.getTime()) continue;
        // A reminder that is already overtaken by the next one is not sent on its own.
        if (step === "reminder_half" && asked + life * 0.9 <= now.getTime()) continue;
        for (const channel of channelsOf(person.prefs, available)) {
          const key = `${request.id}|${person.userId}|${channel}|${step}`;
          if (done.has(key)) continue;
          done.add(key);
          rows.push({ workspaceId: request.workspaceId, approvalId: request.id, userId: person.userId, channel, step, dueAt: now });
        }
      }
    }
  }
  if (rows.length === 0) return 0;
  const inserted = await db.insert(notifications).values(rows).onConflictDoNothing().returning({ id: notifications.id });
  return inserted.length;
}

/** Each waiting request once in the workspace's Slack channel, when it chose one (a spending question is not: it names figures). */
function channelPost(request: { id: string; workspaceId: string; tool: string; category: string; settings: Parameters<typeof requestsSlackChannel>[0] }, available: ChannelsAvailable, now: Date) {
  const channel = requestsSlackChannel(request.settings);
  if (!channel || !available.slack || isCapRequest(request)) return null;
  return { workspaceId: request.workspaceId, approvalId: request.id, userId: null, channel: "slack" as const, step: "asked" as const, destination: channel, dueAt: now };
}

const LEASE_MS = 2 * 60_000;
const MAX_ATTEMPTS = 5;
const retryWait = (attempts: number) => 30_000 * 2 ** Math.max(0, attempts - 1);

export interface DeliveryReport {
  sent: number;
  failed: number;
  dropped: number;
  deferred: number;
}

/**
 * Sends what is due: claims due rows (and rows whose sender died mid-send, once their lease ran out), skipping rows
 * another instance holds, so each is sent by one sender. A request decided in the meantime is not sent; quiet hours
 * and digests hold a row until their time; a refused send is tried again later, then kept as failed with the reason.
 */
export async function deliverDue(db: Db, channels: NotificationChannels, baseUrl: string, now = new Date()): Promise<DeliveryReport> {
  const report: DeliveryReport = { sent: 0, failed: 0, dropped: 0, deferred: 0 };
  const due = or(and(eq(notifications.status, "queued"), lte(notifications.dueAt, now)), and(eq(notifications.status, "sending"), lte(notifications.leaseUntil, now)));
  const claimed = await db.transaction(async (tx) => {
    const ids = await tx.select({ id: notifications.id }).from(notifications).where(due).orderBy(asc(notifications.dueAt)).limit(100).for("update", { skipLocked: true });
    if (ids.length === 0) return [];
    return tx
      .update(notifications)
      .set({ status: "sending", leaseUntil: new Date(now.getTime() + LEASE_MS), attempts: sql`${notifications.attempts} + 1` })
      .where(inArray(notifications.id, ids.map((r) => r.id)))
      .returning();
  });
  if (claimed.length === 0) return report;

  const facts = await requestFacts(db, [...new Set(claimed.map((c) => c.approvalId))]);
  const recipients = await db
    .select({ userId: users.id, email: users.email, workspaceId: memberships.workspaceId, role: memberships.role, prefs: notificationPrefs.prefs })
    .from(users)
    .innerJoin(memberships, eq(memberships.userId, users.id))
    .leftJoin(notificationPrefs, and(eq(notificationPrefs.workspaceId, memberships.workspaceId), eq(notificationPrefs.userId, users.id)))
    .where(inArray(users.id, [...new Set(claimed.flatMap((c) => (c.userId ? [c.userId] : [])))]));
  const recipientOf = (workspaceId: string, userId: string) => recipients.find((r) => r.workspaceId === workspaceId && r.userId === userId);

  const settle = (ids: string[], set: Partial<typeof notifications.$inferInsert>) =>
    ids.length === 0 ? Promise.resolve() : db.update(notifications).set({ leaseUntil: null, ...set }).where(inArray(notifications.id, ids)).then(() => undefined);

  // Email, grouped per person: a person with a digest gets their due rows in one message.
  const groups = new Map<string, typeof claimed>();
  for (const row of claimed) {
    const request = facts.get(row.approvalId);
    if (row.userId === null) {
      // A post to the workspace's Slack channel: nobody's choices or hours apply, only whether it still waits.
      if (!request || request.status !== "pending") {
        await settle([row.id], { status: "dropped", error: "Decided (or withdrawn) before it was sent." });
        report.dropped += 1;
      } else groups.set(row.id, [row]);
      continue;
    }
    const recipient = recipientOf(row.workspaceId, row.userId);
    if (!request || request.status !== "pending" || !recipient) {
      await settle([row.id], { status: "dropped", error: !recipient ? "No longer a member of the workspace." : "Decided (or withdrawn) before it was sent." });
      report.dropped += 1;
      continue;
    }
    const prefs = resolvePrefs(recipient.prefs ?? undefined, channelsAvailable(channels));
    const quiet = quietUntil(prefs, request.facts.timeZone, now);
    // A digest waits its minutes, except for the last reminder (the request would expire meanwhile); quiet hours hold all.
    const digestAt = row.channel === "email" && prefs.digestMinutes && row.step !== "reminder_late" ? row.createdAt.getTime() + prefs.digestMinutes * 60_000 : 0;
    const holdUntil = Math.max(quiet?.getTime() ?? 0, digestAt);
    if (holdUntil > now.getTime()) {
      // Held, not tried: the attempt is given back.
      await settle([row.id], { status: "queued", dueAt: new Date(holdUntil), attempts: Math.max(0, row.attempts - 1) });
      report.deferred += 1;
      continue;
    }
    const key = `${row.workspaceId}|${row.userId}|${row.channel}|${prefs.digestMinutes && row.channel === "email" ? "digest" : row.id}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }

  for (const rows of groups.values()) {
    const first = rows[0]!;
    const request = facts.get(first.approvalId)!;
    try {
      let externalRef: { channel: string; ts: string } | null = null;
      if (first.userId === null) {
        if (!channels.slack) throw new ChannelUnavailable("slack");
        externalRef = await postToSlack(db, channels.slack, { workspaceId: first.workspaceId, to: { channel: first.destination ?? "" }, step: first.step, facts: request.facts, settings: request.settings, now, baseUrl });
      } else if (first.channel === "email") {
        const recipient = recipientOf(first.workspaceId, first.userId)!;
        if (!channels.email) throw new ChannelUnavailable("email");
        const escalation = escalateAfterMinutes(request.settings);
        const mail =
          rows.length === 1
            ? requestMail({ to: recipient.email, step: first.step, facts: request.facts, now, baseUrl, escalateAfterMinutes: escalation })
            : digestMail({ to: recipient.email, items: rows.map((r) => ({ step: r.step, facts: facts.get(r.approvalId)!.facts })), now, baseUrl, escalateAfterMinutes: escalation });
        await channels.email.send(mail);
      } else if (first.channel === "push") {
        if (!channels.push) throw new ChannelUnavailable("push");
        await channels.push.send(first.userId, pushPayload(first.step, request.facts, now), (request.facts.expiresAt.getTime() - now.getTime()) / 1000);
      } else {
        if (!channels.slack) throw new ChannelUnavailable("slack");
        externalRef = await postToSlack(db, channels.slack, { workspaceId: first.workspaceId, to: { userId: first.userId }, step: first.step, facts: request.facts, settings: request.settings, now, baseUrl });
      }
      await settle(rows.map((r) => r.id), { status: "sent", sentAt: now, error: null, externalRef });
      report.sent += rows.length;
    } catch (error) {
      const final = error instanceof ChannelUnavailable || error instanceof NotReachable || (error instanceof PushFailure && error.final);
      const words = final || error instanceof PushFailure || error instanceof SlackFailure ? (error as Error).message : mailFailure(error);
      if (!final) logError(`A notification could not be sent by ${first.channel}`, error);
      for (const r of rows) {
        const last = r.attempts >= MAX_ATTEMPTS || final;
        await settle([r.id], last ? { status: "failed", error: words } : { status: "queued", dueAt: new Date(now.getTime() + retryWait(r.attempts)), error: words });
        if (last) report.failed += 1;
        else report.deferred += 1;
      }
    }
  }
  return report;
}

class ChannelUnavailable extends Error {
  constructor(channel: string) {
    super(channel === "email" ? "Email is not set up on this server (no SMTP server is configured)." : `Notifications by ${channel} are not set up on this server.`);
  }
}

/** A person this channel cannot reach until something changes on their side (no Slack link, no app): not retried. */
class NotReachable extends Error {}

/** What a push notification shows: the step and the request's title, its first line, and the time left. */
function pushPayload(step: NotificationStep, facts: RequestFacts, now: Date): PushPayload {
  const prefix = step === "asked" ? "Waiting for you" : step.startsWith("escalated") ? "Passed on to you" : "Reminder";
  const firstLine = facts.preview.body?.split("\n").find((l) => l.trim()) ?? facts.preview.fields[0]?.value ?? "";
  const who = facts.onBehalfOf ?? facts.requestedBy;
  const body = [
    firstLine.slice(0, 160),
    `${who ? `For ${who}` : "Nobody behind it"}${facts.taintSources.length > 0 ? " · untrusted content reached the run" : ""} · ${durationWords(facts.expiresAt.getTime() - now.getTime())} left`,
  ].filter(Boolean);
  return {
    title: (isCapRequest(facts) ? `${prefix}: ${facts.preview.title}` : `${prefix}: @${facts.agentHandle} · ${facts.preview.title}`).slice(0, 120),
    body: body.join("\n"),
    url: `/w/${facts.workspaceSlug}/approvals?approval=${facts.id}`,
    approvalId: facts.id,
    workspace: facts.workspaceSlug,
    actions: true,
    tag: `approval-${facts.id}`,
  };
}

/**
 * Posts a request with the workspace's Slack app, to a person's direct messages (with the buttons that decide) or to
 * the workspace's channel (for all to see, with Open only), and says where it was posted.
 */
async function postToSlack(
  db: Db,
  slack: SlackChannel,
  input: {
    workspaceId: string;
    to: { userId: string } | { channel: string };
    step: NotificationStep;
    facts: RequestFacts;
    settings: Parameters<typeof escalateAfterMinutes>[0];
    now: Date;
    baseUrl: string;
  },
): Promise<{ channel: string; ts: string }> {
  const app = await slackApp(db, input.workspaceId, slack.encryptionKey);
  if (!app) throw new NotReachable("This workspace has no Slack app connected (with its signing secret) under Settings → Connections.");
  let channel: string;
  if ("userId" in input.to) {
    const [link] = await db
      .select({ slackUserId: slackLinks.slackUserId })
      .from(slackLinks)
      .where(and(eq(slackLinks.workspaceId, input.workspaceId), eq(slackLinks.userId, input.to.userId), isNotNull(slackLinks.verifiedAt)));
    if (!link) throw new NotReachable("Your Slack account is not linked yet: link it in Settings → Notifications.");
    channel = link.slackUserId;
  } else channel = input.to.channel;
  const message = requestMessage({
    facts: input.facts,
    step: input.step,
    now: input.now,
    baseUrl: input.baseUrl,
    escalateAfterMinutes: escalateAfterMinutes(input.settings),
    shared: !("userId" in input.to),
  });
  const posted = await slackCall<{ channel: string; ts: string }>("chat.postMessage", app.token, { channel, ...message, unfurl_links: false }, slack.fetchAllow);
  return { channel: posted.channel, ts: posted.ts };
}

/**
 * Updates every Slack message about a request that no longer waits, wherever it was posted, to say who decided and
 * when (or that it expired, was withdrawn, or its run ended): after a decision in Slack, in the app, or anywhere else.
 * `approvalIds` narrows it to some requests (right after a decision); without it, every message still open is looked at.
 */
export async function closeSlackMessages(db: Db, channels: NotificationChannels, baseUrl: string, now = new Date(), approvalIds?: string[]): Promise<number> {
  if (!channels.slack) return 0;
  const open = await db
    .select({
      id: notifications.id,
      approvalId: notifications.approvalId,
      workspaceId: notifications.workspaceId,
      userId: notifications.userId,
      step: notifications.step,
      externalRef: notifications.externalRef,
    })
    .from(notifications)
    .innerJoin(approvals, eq(approvals.id, notifications.approvalId))
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .where(
      and(
        eq(notifications.channel, "slack"),
        eq(notifications.status, "sent"),
        isNotNull(notifications.externalRef),
        isNull(notifications.closedAt),
        approvalIds ? inArray(notifications.approvalId, approvalIds) : undefined,
        or(ne(approvals.status, "pending"), ne(agentRuns.state, "suspended"), lte(approvals.expiresAt, now)),
      ),
    )
    .limit(200);
  if (open.length === 0) return 0;
  const facts = await requestFacts(db, [...new Set(open.map((o) => o.approvalId))]);
  const apps = new Map<string, Awaited<ReturnType<typeof slackApp>>>();
  let closed = 0;
  for (const row of open) {
    const request = facts.get(row.approvalId)!;
    if (!apps.has(row.workspaceId)) apps.set(row.workspaceId, await slackApp(db, row.workspaceId, channels.slack.encryptionKey));
    const app = apps.get(row.workspaceId);
    try {
      if (app) {
        const message = requestMessage({ facts: request.facts, step: row.step, now, baseUrl, escalateAfterMinutes: 0, outcome: request.outcome, shared: row.userId === null });
        await slackCall("chat.update", app.token, { channel: row.externalRef!.channel, ts: row.externalRef!.ts, ...message }, channels.slack.fetchAllow);
      }
      await db.update(notifications).set({ closedAt: now }).where(eq(notifications.id, row.id));
      closed += 1;
    } catch (error) {
      // A deleted message cannot be updated: it counts as closed. Anything else is tried again on the next sweep.
      if (error instanceof SlackFailure && error.message === slackFailureWords("message_not_found", 200)) {
        await db.update(notifications).set({ closedAt: now }).where(eq(notifications.id, row.id));
      } else logError("A Slack message could not be updated after its request was decided", error);
    }
  }
  return closed;
}

/** What a notification says about each request, read once for all of them. */
async function requestFacts(db: Db, approvalIds: string[]) {
  const requestedBy = sql<string | null>`(select name from ${users} where ${users.id} = ${approvals.requestedByUserId})`;
  const onBehalfOf = sql<string | null>`(select name from ${users} where ${users.id} = ${approvals.onBehalfOfUserId})`;
  const decidedBy = sql<string | null>`(select name from ${users} where ${users.id} = ${approvals.decidedByUserId})`;
  const rows = await db
    .select({
      id: approvals.id,
      workspaceId: approvals.workspaceId,
      status: approvals.status,
      runState: agentRuns.state,
      decidedBy,
      decidedVia: approvals.decidedVia,
      decidedAt: approvals.decidedAt,
      reason: approvals.reason,
      tool: approvals.tool,
      preview: approvals.preview,
      via: approvals.via,
      taintSources: approvals.taintSources,
      createdAt: approvals.createdAt,
      expiresAt: approvals.expiresAt,
      requestedBy,
      onBehalfOf,
      agentHandle: agents.handle,
      workspaceName: workspaces.name,
      workspaceSlug: workspaces.slug,
      timeZone: workspaces.timeZone,
      settings: workspaces.settings,
    })
    .from(approvals)
    .innerJoin(agents, eq(agents.id, approvals.agentId))
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .innerJoin(workspaces, eq(workspaces.id, approvals.workspaceId))
    .where(inArray(approvals.id, approvalIds));
  return new Map(
    rows.map((r) => {
      const facts: RequestFacts = { ...r, preview: r.preview as RequestFacts["preview"] };
      const waiting = r.status === "pending" && r.runState === "suspended";
      const outcome: RequestOutcome =
        r.status === "pending"
          ? waiting
            ? { status: "expired", at: r.expiresAt }
            : { status: "stopped" }
          : { status: r.status as RequestOutcome["status"], by: r.decidedBy, via: r.decidedVia as DecisionChannel | null, at: r.decidedAt ?? r.expiresAt, reason: r.reason };
      return [r.id, { status: waiting ? "pending" : r.status, settings: r.settings, facts, outcome }] as const;
    }),
  );
}

/** Signatures older than Slack's five minutes cannot be replayed (the timestamp check refuses them): no need to keep them. */
async function forgetOldSlackSignatures(db: Db, now: Date) {
  await db.delete(slackReplays).where(lt(slackReplays.receivedAt, new Date(now.getTime() - 10 * 60_000)));
}

/** Plans and sends, as one sweep step; a failure is logged and tried again on the next sweep. */
export async function runNotifications(db: Db, tools: ToolRegistry, channels: NotificationChannels, baseUrl: string, now = new Date()) {
  try {
    await planNotifications(db, tools, channels, now);
    const report = await deliverDue(db, channels, baseUrl, now);
    await closeSlackMessages(db, channels, baseUrl, now);
    await forgetOldSlackSignatures(db, now);
    await deliverBudgetAlerts(db, channels, baseUrl, now);
    return report;
  } catch (error) {
    logError("Notifications could not be planned or sent", error);
    return null;
  }
}

/** A person's own latest notifications in a workspace, newest first, with what became of each. */
export async function deliveriesOf(db: Db, workspaceId: string, userId: string, limit = 50) {
  const rows = await db
    .select({
      id: notifications.id,
      approvalId: notifications.approvalId,
      preview: approvals.preview,
      agentHandle: agents.handle,
      channel: notifications.channel,
      step: notifications.step,
      status: notifications.status,
      attempts: notifications.attempts,
      at: sql<Date>`coalesce(${notifications.sentAt}, ${notifications.createdAt})`,
      error: notifications.error,
    })
    .from(notifications)
    .innerJoin(approvals, eq(approvals.id, notifications.approvalId))
    .innerJoin(agents, eq(agents.id, approvals.agentId))
    .where(and(eq(notifications.workspaceId, workspaceId), eq(notifications.userId, userId)))
    .orderBy(sql`${notifications.createdAt} desc`)
    .limit(limit);
  return rows.map(({ preview, ...r }) => ({ ...r, title: (preview as { title?: string }).title ?? "A request", at: new Date(r.at).toISOString() }));
}
