/**
 * Webhook messages: which events each endpoint is owed (read from the workspace's feed, its budget alerts and its
 * audit log, each event once per endpoint) and their delivery, signed with the Standard Webhooks scheme, with retries
 * over about a day. Both run in the sweeper; the outbox rows make every message happen at least once, under a stable
 * id, across instances and restarts.
 */
import { and, asc, eq, gt, inArray, lte, or, sql } from "drizzle-orm";
import { Webhook as Signer } from "standardwebhooks";
import type { Db } from "../db/client";
import { auditLog, budgetAlerts, feedItems, webhookDeliveries, webhooks, workspaces, type WebhookEventType } from "../db/schema";
import { decryptSecret } from "../crypto";
import { logError } from "../log";
import { FetchRefusedError, FetchTimeoutError, safeFetch } from "../net/safe-fetch";

/** The audit entries that say someone joined or left a workspace, however it happened. */
const MEMBERSHIP_ACTIONS = ["invitation.accepted", "member.joined_by_domain", "scim.user_created", "scim.user_reactivated", "member.removed"];

type Payload = (typeof webhookDeliveries.$inferInsert)["payload"];
type Planned = typeof webhookDeliveries.$inferInsert;

/** The feed's kinds that make events, with the event each one makes (a run's end depends on how it ended). */
const fromFeed: Record<string, (payload: Record<string, unknown>) => WebhookEventType | null> = {
  approval_requested: () => "approval.requested",
  approval_decided: () => "approval.decided",
  run_finished: (p) => (p.state === "succeeded" ? "run.completed" : p.state === "failed" ? "run.failed" : null),
  mission_finished: () => "mission.finished",
};

const FEED_BATCH = 500;
/** How far back the audit log is read for people joining or leaving (a late commit is still caught). */
const AUDIT_WINDOW_MS = 2 * 24 * 3600_000;

/** What each event says: ids and names, states and titles; never the text of a chat. */
function feedEvent(kind: string, item: typeof feedItems.$inferSelect, link: (path: string) => string): Record<string, unknown> {
  const p = item.payload as Record<string, unknown>;
  switch (kind) {
    case "approval_requested":
      return { approvalId: item.approvalId, runId: item.runId, agent: p.agent, tool: p.tool, category: p.category, title: p.title, url: link(`/approvals?approval=${item.approvalId}`) };
    case "approval_decided":
      return { approvalId: item.approvalId, runId: item.runId, status: p.status, tool: p.tool, category: p.category, title: p.title, reason: p.reason ?? null, url: link(`/approvals?approval=${item.approvalId}`) };
    case "run_finished":
      return {
        runId: item.runId,
        agent: p.agent,
        state: p.state,
        trigger: p.trigger,
        ...(p.code ? { error: { code: p.code, message: p.message ?? null } } : {}),
        url: link(`/runs/${item.runId}`),
      };
    default:
      return { missionId: p.missionId, crew: p.crew, goal: p.goal, state: p.state, error: p.error ?? null, url: link(`/missions/${p.missionId}`) };
  }
}

/** Adds to the outbox every event each endpoint is owed and does not have yet. Returns how many were added. */
export async function planWebhookEvents(db: Db, baseUrl: string, now = new Date()): Promise<number> {
  const hooks = await db.select({ hook: webhooks, slug: workspaces.slug }).from(webhooks).innerJoin(workspaces, eq(workspaces.id, webhooks.workspaceId));
  let added = 0;
  for (const { hook, slug } of hooks) {
    const wants = new Set(hook.events);
    const link = (path: string) => `${baseUrl.replace(/\/$/, "")}/w/${slug}${path}`;
    const rows: Planned[] = [];
    const event = (key: string, type: WebhookEventType, at: Date, data: Record<string, unknown>) => {
      if (!wants.has(type)) return;
      const payload: Payload = { type, timestamp: at.toISOString(), data: { workspace: slug, ...data } };
      rows.push({ webhookId: hook.id, workspaceId: hook.workspaceId, eventKey: key, eventType: type, payload, dueAt: now });
    };

    const items = await db
      .select()
      .from(feedItems)
      .where(and(eq(feedItems.workspaceId, hook.workspaceId), gt(feedItems.seq, hook.feedCursor)))
      .orderBy(asc(feedItems.seq))
      .limit(FEED_BATCH);
    for (const item of items) {
      const type = fromFeed[item.kind]?.(item.payload as Record<string, unknown>);
      if (type) event(`feed:${item.seq}`, type, item.createdAt, feedEvent(item.kind, item, link));
    }

    if (wants.has("budget.threshold")) {
      const alerts = await db
        .select()
        .from(budgetAlerts)
        .where(and(eq(budgetAlerts.workspaceId, hook.workspaceId), gt(budgetAlerts.createdAt, hook.createdAt)));
      for (const a of alerts) {
        const percent = a.level === "half" ? 50 : a.level === "warning" ? 80 : 100;
        event(`budget:${a.scope}:${a.month.toISOString()}:${a.level}`, "budget.threshold", a.createdAt, {
          scope: a.scope === "workspace" ? "workspace" : "agent",
          agentId: a.scope === "workspace" ? null : a.scope.replace(/^agent:/, ""),
          percent,
          spentCredits: a.spentCredits,
          budgetCredits: a.budgetCredits,
          month: a.month.toISOString().slice(0, 7),
          url: link("/settings/billing"),
        });
      }
    }

    if (wants.has("member.added") || wants.has("member.removed")) {
      const since = new Date(Math.max(hook.createdAt.getTime(), now.getTime() - AUDIT_WINDOW_MS));
      const changes = await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.workspaceId, hook.workspaceId), inArray(auditLog.action, MEMBERSHIP_ACTIONS), gt(auditLog.createdAt, since)));
      for (const c of changes) {
        const d = c.detail as { accountEmail?: string; email?: string; userName?: string; role?: string; joined?: boolean };
        const role = d.role ?? null;
        if (c.action === "member.removed") event(`audit:${c.id}`, "member.removed", c.createdAt, { userId: c.targetId, email: d.email ?? null, role, via: c.actorKind === "system" ? "identity_provider" : "people" });
        else if (c.action === "invitation.accepted") event(`audit:${c.id}`, "member.added", c.createdAt, { userId: c.actorId, email: d.accountEmail ?? null, role, via: "invitation" });
        else if (c.action === "member.joined_by_domain") event(`audit:${c.id}`, "member.added", c.createdAt, { userId: c.targetId, email: d.email ?? null, role, via: "email_domain" });
        // The identity provider provisioned or reactivated someone: an addition only when it made them a member.
        else if (d.joined) event(`audit:${c.id}`, "member.added", c.createdAt, { userId: c.targetId, email: d.email ?? d.userName ?? null, role, via: "identity_provider" });
      }
    }

    const cursor = items.at(-1)?.seq ?? hook.feedCursor;
    await db.transaction(async (tx) => {
      if (rows.length > 0) {
        const inserted = await tx.insert(webhookDeliveries).values(rows).onConflictDoNothing().returning({ id: webhookDeliveries.id });
        added += inserted.length;
      }
      if (cursor !== hook.feedCursor) {
        // Only forward: another instance that planned the same items has inserted the same rows (ignored above).
        await tx.update(webhooks).set({ feedCursor: sql`greatest(${webhooks.feedCursor}, ${cursor})` }).where(eq(webhooks.id, hook.id));
      }
    });
  }
  return added;
}

const LEASE_MS = 2 * 60_000;
/** Waits after each failed attempt: from 30 seconds to 8 hours, about a day in all; then the message is kept as failed. */
const RETRY_WAITS_MS = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 3600_000, 2 * 3600_000, 4 * 3600_000, 8 * 3600_000, 8 * 3600_000];
export const WEBHOOK_MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;

export interface WebhookReport {
  delivered: number;
  retrying: number;
  failed: number;
}

/** Sends what is due: each row claimed by one sender (skipping locked rows), signed, posted, and its answer kept. */
export async function deliverWebhooks(db: Db, options: { encryptionKey: Buffer; fetchAllow: readonly string[] }, now = new Date()): Promise<WebhookReport> {
  const report: WebhookReport = { delivered: 0, retrying: 0, failed: 0 };
  const due = or(
    and(eq(webhookDeliveries.status, "queued"), lte(webhookDeliveries.dueAt, now)),
    and(eq(webhookDeliveries.status, "sending"), lte(webhookDeliveries.leaseUntil, now)),
  );
  const claimed = await db.transaction(async (tx) => {
    const ids = await tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(due).orderBy(asc(webhookDeliveries.dueAt)).limit(50).for("update", { skipLocked: true });
    if (ids.length === 0) return [];
    return tx
      .update(webhookDeliveries)
      .set({ status: "sending", leaseUntil: new Date(now.getTime() + LEASE_MS), attempts: sql`${webhookDeliveries.attempts} + 1` })
      .where(inArray(webhookDeliveries.id, ids.map((r) => r.id)))
      .returning();
  });
  if (claimed.length === 0) return report;
  const hooks = await db.select().from(webhooks).where(inArray(webhooks.id, [...new Set(claimed.map((c) => c.webhookId))]));

  for (const row of claimed) {
    const hook = hooks.find((h) => h.id === row.webhookId)!;
    const body = JSON.stringify(row.payload);
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const signer = new Signer(decryptSecret(hook.secret, options.encryptionKey));
      const sentAt = new Date();
      const response = await safeFetch(hook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": row.id,
          "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
          "webhook-signature": signer.sign(row.id, sentAt, body),
        },
        body,
        allow: options.fetchAllow,
        maxRedirects: 0,
        maxBytes: 4 * 1024,
        timeoutMs: 15_000,
      });
      status = response.status;
      if (status < 200 || status >= 300) error = `The receiver answered HTTP ${status}.`;
    } catch (e) {
      error =
        e instanceof FetchRefusedError
          ? `Not sent: ${e.message}`
          : e instanceof FetchTimeoutError
            ? "The receiver did not answer within 15 seconds."
            : "The receiver could not be reached.";
      if (!(e instanceof FetchRefusedError)) logError(`A webhook message to ${hook.url} was not delivered`, e);
    }
    const lastDurationMs = Date.now() - started;
    if (!error) {
      await db
        .update(webhookDeliveries)
        .set({ status: "delivered", leaseUntil: null, lastStatus: status, lastDurationMs, lastError: null, deliveredAt: new Date() })
        .where(eq(webhookDeliveries.id, row.id));
      report.delivered += 1;
      continue;
    }
    const last = row.attempts >= WEBHOOK_MAX_ATTEMPTS;
    await db
      .update(webhookDeliveries)
      .set({
        status: last ? "failed" : "queued",
        leaseUntil: null,
        lastStatus: status,
        lastDurationMs,
        lastError: error,
        dueAt: last ? row.dueAt : new Date(now.getTime() + RETRY_WAITS_MS[row.attempts - 1]!),
      })
      .where(eq(webhookDeliveries.id, row.id));
    if (last) report.failed += 1;
    else report.retrying += 1;
  }
  return report;
}

/** Plans and sends, as one sweep step; a failure is logged and tried again on the next sweep. */
export async function runWebhooks(db: Db, options: { encryptionKey: Buffer; fetchAllow: readonly string[]; baseUrl: string }, now = new Date()) {
  try {
    await planWebhookEvents(db, options.baseUrl, now);
    return await deliverWebhooks(db, options, now);
  } catch (error) {
    logError("Webhook messages could not be planned or sent", error);
    return null;
  }
}
