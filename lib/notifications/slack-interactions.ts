/**
 * What comes back from Slack: button presses and the rejection modal, sent by Slack to
 * `POST /api/integrations/slack/interactions`. Nothing in them is believed before the request's signature is checked
 * against a connected app's signing secret (`v0` HMAC over the timestamp and the raw body, the timestamp within five
 * minutes), and each signed request is acted on once. The Slack user is mapped to a person only through a link that
 * person confirmed from Slack itself; the decision then goes through the same decision function as every other, under
 * the same rules (role, four eyes, expiry, single use), and the message is updated in every place it was posted.
 */
import crypto from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import type { EventBus } from "../db/bus";
import { approvals, memberships, slackLinks, slackReplays, users, workspaces } from "../db/schema";
import { recordAudit } from "../audit";
import { AppError, isAppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";
import { sentenceFor } from "../error-sentences";
import { logError } from "../log";
import { decideApproval } from "../safety/approvals";
import type { ToolRegistry } from "../tools/registry";
import { closeSlackMessages, type NotificationChannels } from "./outbox";
import { allSlackApps, hashCode, linkMessage, rejectReasonView, SLACK_ACTIONS, SLACK_REJECT_VIEW, slackApp, slackCall, SlackFailure, type SlackApp } from "./slack";

/** How old a signed request may be: Slack's own rule, which also bounds how long signatures must be remembered. */
export const SLACK_SIGNATURE_WINDOW_SECONDS = 5 * 60;

export interface SlackInteractionDeps {
  db: Db;
  bus: EventBus;
  tools: ToolRegistry;
  channels: NotificationChannels;
  encryptionKey: Buffer;
  baseUrl: string;
  /** Carries a decided run on (the sweeper does it too, if this process dies first). */
  resumeRun(runId: string): Promise<unknown>;
}

const AUDIT_EVERY_MS = 60_000;
const refusals = new Map<string, { since: number; held: number }>();

/** How many refusals of this kind to record now (0: held, to be counted in the next entry). */
function refusalsToAudit(key: string, now: Date): number {
  const seen = refusals.get(key);
  if (seen && now.getTime() - seen.since < AUDIT_EVERY_MS) {
    seen.held += 1;
    return 0;
  }
  if (refusals.size > 10_000) refusals.clear();
  refusals.set(key, { since: now.getTime(), held: 0 });
  return 1 + (seen?.held ?? 0);
}

/** The signature Slack puts on a request: `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<body>`. */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${crypto.createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
}

function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/**
 * Finds the connected app that signed a request, or refuses it: 401 for a missing, malformed, old or wrong
 * signature (audited in every workspace with a Slack app: any of them may be the target), 409 for one already used.
 */
export async function verifySlackRequest(
  deps: Pick<SlackInteractionDeps, "db" | "encryptionKey">,
  headers: Headers,
  rawBody: string,
  now = new Date(),
): Promise<WorkspaceApp[]> {
  const timestamp = headers.get("x-slack-request-timestamp") ?? "";
  const signature = headers.get("x-slack-signature") ?? "";
  const apps = await allSlackApps(deps.db, deps.encryptionKey);
  const refuse = async (why: string) => {
    const targets = apps.length > 0 ? [...new Set(apps.map((a) => a.workspaceId))] : [null];
    for (const workspaceId of targets) {
      // Anyone can send these: each kind of refusal is audited at most once a minute per workspace and process, with
      // how many were refused since, so a flood cannot fill the log.
      const refused = refusalsToAudit(`${workspaceId}|${why}`, now);
      if (refused > 0) await recordAudit(deps.db, { workspaceId, actor: { kind: "system" }, action: "slack.request_refused", detail: { why, refused } });
    }
    return new AppError("unauthorized:slack_signature", `Refused: ${why}.`);
  };
  if (!/^\d{1,12}$/.test(timestamp) || !/^v0=[0-9a-f]{64}$/.test(signature)) throw await refuse("the request has no Slack signature");
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_SECONDS) throw await refuse("the signature is more than five minutes old");
  // Several workspaces may connect the same Slack app: each of them is a candidate until the payload names a request.
  const signers = apps.filter((a) => sameSignature(slackSignature(a.signingSecret, timestamp, rawBody), signature));
  if (signers.length === 0) throw await refuse("the signature does not match any connected Slack app");
  try {
    await deps.db.insert(slackReplays).values({ signature });
  } catch (error) {
    if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error;
    for (const app of signers) {
      await recordAudit(deps.db, { workspaceId: app.workspaceId, actor: { kind: "system" }, action: "slack.replay_refused", detail: { connectionId: app.connectionId } });
    }
    throw new AppError("conflict:slack_replay", "Slack sent this request before; it was acted on once and is not acted on again.");
  }
  return signers;
}

type WorkspaceApp = SlackApp & { workspaceId: string };

/** The connected app of the workspace a request belongs to, among those that signed (null: none of theirs). */
async function appOfRequest(db: Db, signers: WorkspaceApp[], approvalId: string | undefined): Promise<WorkspaceApp | null> {
  const [request] = await db.select({ workspaceId: approvals.workspaceId }).from(approvals).where(eq(approvals.id, uuidOr(approvalId)));
  return signers.find((a) => a.workspaceId === request?.workspaceId) ?? null;
}

/** The parts of Slack's interaction payloads that are read (everything else is ignored). */
const payloadSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("block_actions"),
    user: z.object({ id: z.string().max(40) }),
    trigger_id: z.string().max(200).optional(),
    channel: z.object({ id: z.string().max(40) }).optional(),
    actions: z.array(z.object({ action_id: z.string().max(100), value: z.string().max(200).optional() })).min(1),
  }),
  z.object({
    type: z.literal("view_submission"),
    user: z.object({ id: z.string().max(40) }),
    view: z.object({
      callback_id: z.string().max(100),
      private_metadata: z.string().max(200),
      state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().max(4000).nullish() }).loose())) }),
    }),
  }),
]);

/** What the interactions endpoint answers Slack with: nothing (200), or the modal's field errors. */
export type SlackAnswer = { status: 200; body?: Record<string, unknown> };

/** Acts on one verified interaction. */
export async function handleSlackInteraction(deps: SlackInteractionDeps, signers: WorkspaceApp[], rawBody: string): Promise<SlackAnswer> {
  const form = new URLSearchParams(rawBody);
  let parsed: z.infer<typeof payloadSchema>;
  try {
    parsed = payloadSchema.parse(JSON.parse(form.get("payload") ?? ""));
  } catch {
    // Interactions this app does not offer (shortcuts, message actions) are acknowledged and ignored.
    return { status: 200 };
  }
  const slackUserId = parsed.user.id;
  const tell = (text: string, channel?: string, app = signers[0]!) =>
    channel
      ? slackCall("chat.postEphemeral", app.token, { channel, user: slackUserId, text }, deps.channels.slack?.fetchAllow ?? []).catch((error: unknown) =>
          logError("A Slack reply could not be posted", error),
        )
      : Promise.resolve();

  if (parsed.type === "view_submission") {
    if (parsed.view.callback_id !== SLACK_REJECT_VIEW) return { status: 200 };
    const app = await appOfRequest(deps.db, signers, parsed.view.private_metadata);
    if (!app) return { status: 200, body: { response_action: "errors", errors: { reason: notHereWords } } };
    const reason = Object.values(parsed.view.state.values.reason ?? {})[0]?.value?.trim() ?? "";
    const refused = await decideFromSlack(deps, app, slackUserId, parsed.view.private_metadata, "reject", reason);
    // The modal says why nothing was decided, under its field; a decision closes it.
    return refused ? { status: 200, body: { response_action: "errors", errors: { reason: refused.slice(0, 150) } } } : { status: 200 };
  }

  const action = parsed.actions[0]!;
  const channel = parsed.channel?.id;
  if (action.action_id === SLACK_ACTIONS.link) {
    let answer = "";
    for (const app of signers) {
      answer = await confirmLink(deps, app, slackUserId, action.value ?? "");
      if (answer === linkedWords) break;
    }
    await tell(answer, channel);
    return { status: 200 };
  }
  if (action.action_id !== SLACK_ACTIONS.approve && action.action_id !== SLACK_ACTIONS.reject) return { status: 200 };
  const app = await appOfRequest(deps.db, signers, action.value);
  if (!app) {
    await tell(notHereWords, channel);
    return { status: 200 };
  }
  if (action.action_id === SLACK_ACTIONS.approve) {
    const refused = await decideFromSlack(deps, app, slackUserId, action.value ?? "", "approve");
    if (refused) await tell(refused, channel, app);
    return { status: 200 };
  }
  if (action.action_id === SLACK_ACTIONS.reject) {
    // The reason is asked in a modal; the person must be able to decide at all before it is shown.
    const person = await linkedPerson(deps.db, app.workspaceId, slackUserId);
    if (!person) {
      await tell(notLinkedWords, channel, app);
      return { status: 200 };
    }
    const [request] = await deps.db
      .select({ preview: approvals.preview })
      .from(approvals)
      .where(and(eq(approvals.id, uuidOr(action.value)), eq(approvals.workspaceId, app.workspaceId)));
    if (!request || !parsed.trigger_id) {
      await tell(notHereWords, channel, app);
      return { status: 200 };
    }
    await slackCall("views.open", app.token, { trigger_id: parsed.trigger_id, view: rejectReasonView(action.value!, (request.preview as { title?: string }).title ?? "A request") }, deps.channels.slack?.fetchAllow ?? []).catch(
      async (error: unknown) => tell(error instanceof Error ? error.message : "The reason could not be asked in Slack. Open the request in Clawdeck instead.", channel, app),
    );
  }
  return { status: 200 };
}

const notHereWords = "That request is not in a Clawdeck workspace this Slack app is connected to (any more).";
const linkedWords = "Linked. Requests you may decide in this workspace can now reach you here, with Approve and Reject buttons.";
const notLinkedWords = "Your Slack account is not linked to a Clawdeck account in this workspace. Link it in Clawdeck under Settings → Notifications, then press the button again.";
const NIL_UUID = "00000000-0000-0000-0000-000000000000";
const uuidOr = (value: string | undefined) => (value && z.uuid().safeParse(value).success ? value : NIL_UUID);

/** The person a Slack user is, through a confirmed link, with their role in the workspace now. */
async function linkedPerson(db: Db, workspaceId: string, slackUserId: string) {
  const [person] = await db
    .select({ userId: users.id, name: users.name, role: memberships.role })
    .from(slackLinks)
    .innerJoin(users, eq(users.id, slackLinks.userId))
    .innerJoin(memberships, and(eq(memberships.userId, slackLinks.userId), eq(memberships.workspaceId, slackLinks.workspaceId)))
    .where(and(eq(slackLinks.workspaceId, workspaceId), eq(slackLinks.slackUserId, slackUserId), isNotNull(slackLinks.verifiedAt)));
  return person ?? null;
}

/**
 * Decides as the linked person, through the decision function. Returns why it was not decided, in words (null when
 * it was). Every message about the request is updated right after.
 */
async function decideFromSlack(
  deps: SlackInteractionDeps,
  app: SlackApp & { workspaceId: string },
  slackUserId: string,
  approvalId: string,
  decision: "approve" | "reject",
  reason?: string,
): Promise<string | null> {
  const person = await linkedPerson(deps.db, app.workspaceId, slackUserId);
  if (!person) return notLinkedWords;
  try {
    const decided = await decideApproval(deps.db, deps.bus, deps.tools, {
      workspaceId: app.workspaceId,
      approvalId: uuidOr(approvalId),
      decider: { userId: person.userId, role: person.role, name: person.name },
      decision,
      ...(reason ? { reason } : {}),
      via: "slack",
    });
    await deps.resumeRun(decided.runId).catch((error: unknown) => logError(`Could not resume run ${decided.runId}`, error));
    await closeSlackMessages(deps.db, deps.channels, deps.baseUrl, new Date(), [decided.id]);
    return decided.status === "withdrawn" ? `Not approved: the request was withdrawn. ${decided.reason ?? ""}`.trim() : null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    await recordAudit(deps.db, {
      workspaceId: app.workspaceId,
      actor: { kind: "user", id: person.userId },
      action: "slack.decision_refused",
      target: { type: "approval", id: uuidOr(approvalId) },
      detail: { decision, code: error.code },
    });
    // Already decided elsewhere: the message is brought up to date as well.
    await closeSlackMessages(deps.db, deps.channels, deps.baseUrl, new Date(), [uuidOr(approvalId)]);
    return `Not ${decision === "approve" ? "approved" : "rejected"}: ${error.message === "" ? sentenceFor(error.code) : error.message}`;
  }
}

/** Confirms a pending link when the Slack user who pressed the button is the one the link names and the code matches. */
async function confirmLink(deps: SlackInteractionDeps, app: SlackApp & { workspaceId: string }, slackUserId: string, code: string): Promise<string> {
  const [confirmed] = await deps.db
    .update(slackLinks)
    .set({ verifiedAt: new Date(), pendingCodeHash: null })
    .where(and(eq(slackLinks.workspaceId, app.workspaceId), eq(slackLinks.slackUserId, slackUserId), eq(slackLinks.pendingCodeHash, hashCode(code))))
    .returning({ userId: slackLinks.userId });
  if (!confirmed) return "This link request is not valid any more (it was replaced, already used, or made for another Slack account). Start again from Clawdeck's Settings → Notifications.";
  await recordAudit(deps.db, { workspaceId: app.workspaceId, actor: { kind: "user", id: confirmed.userId }, action: "slack.linked", target: { type: "user", id: confirmed.userId }, detail: { slackUserId } });
  return linkedWords;
}

export const slackLinkBodySchema = z.object({
  /** The person's Slack member ID (U…); without it, Slack is asked for the member with the person's email address. */
  slackUserId: z
    .string()
    .trim()
    .regex(/^[UW][A-Z0-9]{2,20}$/, "A Slack member ID looks like U012AB3CD (in Slack: your profile, ⋯, Copy member ID)")
    .optional(),
});

export type SlackLinkState = { status: "none" } | { status: "pending" | "linked"; slackUserId: string; since: Date };

export async function slackLinkState(db: Db, workspaceId: string, userId: string): Promise<SlackLinkState> {
  const [link] = await db.select().from(slackLinks).where(and(eq(slackLinks.workspaceId, workspaceId), eq(slackLinks.userId, userId)));
  if (!link) return { status: "none" };
  return { status: link.verifiedAt ? "linked" : "pending", slackUserId: link.slackUserId, since: link.verifiedAt ?? link.createdAt };
}

/**
 * Starts linking a person's Slack account: finds it (by the member ID given, else by the person's email address),
 * keeps the link pending with a one-time code, and sends that Slack user a direct message whose button confirms it.
 * The link holds only once the button is pressed by that Slack user, in a request Slack signed.
 */
export async function startSlackLink(
  deps: Pick<SlackInteractionDeps, "db" | "encryptionKey" | "channels">,
  input: { workspaceId: string; userId: string; slackUserId?: string },
): Promise<SlackLinkState> {
  const app = await slackApp(deps.db, input.workspaceId, deps.encryptionKey);
  if (!app) throw new AppError("unprocessable:slack_link", "This workspace has no Slack app connected yet. A manager connects it under Settings → Connections.");
  const fetchAllow = deps.channels.slack?.fetchAllow ?? [];
  const [person] = await deps.db
    .select({ name: users.name, email: users.email, workspaceName: workspaces.name })
    .from(users)
    .innerJoin(workspaces, eq(workspaces.id, input.workspaceId))
    .where(eq(users.id, input.userId));
  let slackUserId = input.slackUserId;
  try {
    if (!slackUserId) {
      const found = await slackCall<{ user: { id: string } }>("users.lookupByEmail", app.token, { email: person!.email }, fetchAllow);
      slackUserId = found.user.id;
    }
    const code = crypto.randomBytes(24).toString("base64url");
    await deps.db.transaction(async (tx) => {
      await tx.delete(slackLinks).where(and(eq(slackLinks.workspaceId, input.workspaceId), eq(slackLinks.userId, input.userId)));
      // Someone else's pending (unconfirmed) claim on this Slack account gives way; a confirmed link does not.
      await tx.delete(slackLinks).where(and(eq(slackLinks.workspaceId, input.workspaceId), eq(slackLinks.slackUserId, slackUserId!), isNotNull(slackLinks.pendingCodeHash)));
      await tx.insert(slackLinks).values({ workspaceId: input.workspaceId, userId: input.userId, slackUserId: slackUserId!, pendingCodeHash: hashCode(code) });
    });
    await slackCall("chat.postMessage", app.token, { channel: slackUserId, ...linkMessage({ code, personName: person!.name, email: person!.email, workspaceName: person!.workspaceName }) }, fetchAllow);
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AppError("unprocessable:slack_link", "That Slack account is already linked to someone else in this workspace.");
    if (error instanceof SlackFailure) {
      await deps.db.delete(slackLinks).where(and(eq(slackLinks.workspaceId, input.workspaceId), eq(slackLinks.userId, input.userId), isNotNull(slackLinks.pendingCodeHash)));
      throw new AppError("unprocessable:slack_link", `Your Slack account could not be found or messaged: ${error.message}`);
    }
    throw error;
  }
  return slackLinkState(deps.db, input.workspaceId, input.userId);
}

export async function removeSlackLink(db: Db, workspaceId: string, userId: string): Promise<void> {
  const gone = await db.delete(slackLinks).where(and(eq(slackLinks.workspaceId, workspaceId), eq(slackLinks.userId, userId))).returning({ slackUserId: slackLinks.slackUserId });
  if (gone.length > 0) await recordAudit(db, { workspaceId, actor: { kind: "user", id: userId }, action: "slack.unlinked", target: { type: "user", id: userId }, detail: { slackUserId: gone[0]!.slackUserId } });
}
