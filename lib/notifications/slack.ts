/**
 * Slack as a channel to reviewers: the workspace's Slack app (its bot token and signing secret, both sealed like every
 * credential), the Web API calls made with it, and the Block Kit message about a waiting request: the same facts as
 * its card, with Approve, Reject and Open buttons, updated in place to say who decided and when.
 */
import crypto from "node:crypto";
import { and, asc, eq, isNotNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { connections, type NotificationStep } from "../db/schema";
import { decryptSecret } from "../crypto";
import { providerBaseUrl } from "../connections/connections";
import { FetchHeaderError, FetchRefusedError, safeFetch } from "../net/safe-fetch";
import { decisionChannelWords, type DecisionChannel } from "../decision-channels";
import { taintNoun } from "../safety/taint";
import { askedSentence, durationWords, requestUrl, stepLine, type RequestFacts } from "./approval-mail";

export interface SlackApp {
  connectionId: string;
  token: string;
  signingSecret: string;
}

/** The workspace's Slack app, when one is connected with its signing secret (without it, buttons could not be trusted). */
export async function slackApp(db: Db, workspaceId: string, encryptionKey: Buffer): Promise<SlackApp | null> {
  const [row] = await db
    .select({ id: connections.id, secret: connections.secret, signingSecret: connections.signingSecret })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, "slack"), isNotNull(connections.signingSecret)))
    .orderBy(asc(connections.label))
    .limit(1);
  if (!row) return null;
  return { connectionId: row.id, token: decryptSecret(row.secret, encryptionKey), signingSecret: decryptSecret(row.signingSecret!, encryptionKey) };
}

/** Every Slack app connected on this server, to find which one signed an incoming request. */
export async function allSlackApps(db: Db, encryptionKey: Buffer): Promise<(SlackApp & { workspaceId: string })[]> {
  const rows = await db
    .select({ id: connections.id, workspaceId: connections.workspaceId, secret: connections.secret, signingSecret: connections.signingSecret })
    .from(connections)
    .where(and(eq(connections.provider, "slack"), isNotNull(connections.signingSecret)));
  return rows.flatMap((row) => {
    try {
      return [{ connectionId: row.id, workspaceId: row.workspaceId, token: decryptSecret(row.secret, encryptionKey), signingSecret: decryptSecret(row.signingSecret!, encryptionKey) }];
    } catch {
      return [];
    }
  });
}

export class SlackFailure extends Error {}

/** Slack's error codes a person can act on, in words; anything else is named as Slack's refusal. */
const slackErrorWords: Record<string, string> = {
  invalid_auth: "Slack refused the bot token. A manager must connect the Slack app again under Settings → Connections.",
  not_authed: "Slack refused the bot token. A manager must connect the Slack app again under Settings → Connections.",
  account_inactive: "The Slack app's token no longer works (the app was removed or its account deactivated).",
  token_revoked: "The Slack app's token was revoked. A manager must connect the Slack app again.",
  channel_not_found: "Slack could not find where to post (the app may not be able to message this person).",
  user_not_found: "Slack does not know that member ID.",
  users_not_found: "Slack has no member with that email address.",
  missing_scope: "The Slack app lacks a permission it needs (chat:write, users:read.email or im:write).",
  ratelimited: "Slack asked to slow down; it will be tried again.",
  message_not_found: "The Slack message was deleted.",
  expired_trigger_id: "The Slack button was pressed too long ago. Press it again.",
};

export function slackFailureWords(code: string | undefined, status: number): string {
  if (code && slackErrorWords[code]) return slackErrorWords[code]!;
  return code ? `Slack refused the request (it answered “${code.slice(0, 60)}”).` : `Slack answered with HTTP ${status}.`;
}

/** A Web API call with the bot token, to the operator's Slack address only. Throws `SlackFailure` in words. */
export async function slackCall<T extends Record<string, unknown>>(
  method: string,
  token: string,
  body: Record<string, unknown>,
  fetchAllow: readonly string[],
): Promise<T & { ok: true }> {
  let response;
  try {
    response = await safeFetch(`${providerBaseUrl("slack")}/api/${method}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(body),
      allow: fetchAllow,
      maxRedirects: 0,
      maxBytes: 256 * 1024,
      timeoutMs: 10_000,
    });
  } catch (error) {
    if (error instanceof FetchHeaderError) throw new SlackFailure("The Slack bot token cannot be sent in a request header. A manager must save it again.");
    if (error instanceof FetchRefusedError) throw new SlackFailure(`Slack could not be reached: ${error.message}`);
    throw new SlackFailure("Slack could not be reached.");
  }
  let parsed: { ok?: boolean; error?: string } = {};
  try {
    parsed = JSON.parse(response.body) as typeof parsed;
  } catch {
    // The status says what happened.
  }
  if (response.status < 200 || response.status >= 300 || parsed.ok !== true) throw new SlackFailure(slackFailureWords(parsed.error, response.status));
  return parsed as T & { ok: true };
}

/** Slack's mrkdwn treats these three as markup; everything a person or an agent wrote is escaped. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function clockAt(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" }).format(at);
}

/** How a request ended, for the message's last line once it no longer waits. */
export interface RequestOutcome {
  status: "approved" | "rejected" | "expired" | "withdrawn" | "stopped";
  by?: string | null;
  via?: DecisionChannel | null;
  at?: Date | null;
  reason?: string | null;
}

export function outcomeWords(outcome: RequestOutcome, timeZone: string): string {
  const when = outcome.at ? ` at ${clockAt(outcome.at, timeZone)}` : "";
  const where = outcome.via ? ` ${decisionChannelWords[outcome.via]}` : "";
  switch (outcome.status) {
    case "approved":
      return `Approved by ${outcome.by ?? "someone"}${where}${when}.`;
    case "rejected":
      return `Rejected by ${outcome.by ?? "someone"}${where}${when}${outcome.reason ? `: “${clip(outcome.reason, 300)}”` : "."}`;
    case "expired":
      return `Nobody decided in time: it expired${when}.`;
    case "withdrawn":
      return `Withdrawn${outcome.reason ? `: ${clip(outcome.reason, 300)}` : "."}`;
    case "stopped":
      return "No longer waiting: the run that asked was stopped or has ended.";
  }
}

export const SLACK_ACTIONS = { approve: "approval.approve", reject: "approval.reject", open: "approval.open", link: "slack.link" } as const;
export const SLACK_REJECT_VIEW = "approval.reject_reason";

type Block = Record<string, unknown>;

/**
 * The message about a request: what the agent wants to do, who asked and for whom, the untrusted content that reached
 * the run and the time left, then the buttons (while it waits and the person may decide it) or how it ended.
 */
export function requestMessage(input: {
  facts: RequestFacts;
  step: NotificationStep;
  now: Date;
  baseUrl: string;
  escalateAfterMinutes: number;
  outcome?: RequestOutcome;
  /** For the workspace's channel, seen by people who may not decide: no buttons that decide. */
  shared?: boolean;
}): { text: string; blocks: Block[] } {
  const { facts, now } = input;
  const url = requestUrl(input.baseUrl, facts);
  const who = facts.onBehalfOf ?? facts.requestedBy;
  const through = facts.via.length > 0 ? `, through ${facts.via.map((h) => `@${h}`).join(" and ")}` : "";
  const lines = [
    input.outcome ? `@${facts.agentHandle} asked to do this.` : stepLine(input.step, facts, now, input.escalateAfterMinutes),
    "",
    `*${slackEscape(facts.preview.title)}*`,
    ...facts.preview.fields.map((f) => `${slackEscape(f.label)}: ${slackEscape(clip(f.value, 300))}`),
  ];
  const blocks: Block[] = [{ type: "section", text: { type: "mrkdwn", text: clip(lines.join("\n"), 2900) } }];
  if (facts.preview.body) {
    const body = facts.preview.body.split("\n").slice(0, 20).join("\n").replace(/```/g, "'''");
    blocks.push({ type: "section", text: { type: "mrkdwn", text: `\`\`\`${slackEscape(clip(body, 2800))}\`\`\`` } });
  }
  const context = [
    who ? `Asked by @${facts.agentHandle} for ${slackEscape(who)}${through}.` : `Asked by @${facts.agentHandle}, with nobody recorded behind it${through}.`,
    facts.taintSources.length > 0
      ? `Untrusted content reached this run: ${slackEscape(facts.taintSources.map((t) => taintNoun(t.source)).join("; "))}.`
      : "No untrusted content reached this run.",
  ];
  if (!input.outcome) context.push(`Time left: ${durationWords(facts.expiresAt.getTime() - now.getTime())} (until ${clockAt(facts.expiresAt, facts.timeZone)}).`);
  blocks.push({ type: "context", elements: context.map((text) => ({ type: "mrkdwn", text })) });
  if (input.outcome || input.shared) {
    if (input.outcome) blocks.push({ type: "section", text: { type: "mrkdwn", text: `*${slackEscape(outcomeWords(input.outcome, facts.timeZone))}*` } });
    else blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: "The people who may decide it are asked in their direct messages from this app, and in Clawdeck." }] });
    blocks.push({ type: "actions", elements: [{ type: "button", action_id: SLACK_ACTIONS.open, text: { type: "plain_text", text: "Open in Clawdeck" }, url }] });
  } else {
    blocks.push({
      type: "actions",
      block_id: `approval:${facts.id}`,
      elements: [
        { type: "button", action_id: SLACK_ACTIONS.approve, style: "primary", value: facts.id, text: { type: "plain_text", text: "Approve" } },
        { type: "button", action_id: SLACK_ACTIONS.reject, style: "danger", value: facts.id, text: { type: "plain_text", text: "Reject…" } },
        { type: "button", action_id: SLACK_ACTIONS.open, url, text: { type: "plain_text", text: "Open (to edit first)" } },
      ],
    });
  }
  const text = input.outcome
    ? `${facts.preview.title}: ${outcomeWords(input.outcome, facts.timeZone)}`
    : `${askedSentence(facts)} (${facts.workspaceName})`;
  return { text: clip(text, 300), blocks };
}

/** The modal that asks for a rejection's reason (a rejection must say why: the agent is told). */
export function rejectReasonView(approvalId: string, title: string): Block {
  return {
    type: "modal",
    callback_id: SLACK_REJECT_VIEW,
    private_metadata: approvalId,
    title: { type: "plain_text", text: "Reject the request" },
    submit: { type: "plain_text", text: "Reject" },
    close: { type: "plain_text", text: "Cancel" },
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*${slackEscape(clip(title, 200))}*` } },
      {
        type: "input",
        block_id: "reason",
        label: { type: "plain_text", text: "Why? The agent is told." },
        element: { type: "plain_text_input", action_id: "reason", multiline: true, min_length: 1, max_length: 2000 },
      },
    ],
  };
}

/** The message that asks a person to confirm, from Slack itself, that this Slack account is theirs. */
export function linkMessage(input: { code: string; personName: string; email: string; workspaceName: string }): { text: string; blocks: Block[] } {
  const text = `Link this Slack account to ${input.personName} (${input.email}) in the Clawdeck workspace ${input.workspaceName}?`;
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${slackEscape(text)}\nIf you did not ask for this from Clawdeck's Settings → Notifications, ignore this message.` } },
      { type: "actions", elements: [{ type: "button", action_id: SLACK_ACTIONS.link, style: "primary", value: input.code, text: { type: "plain_text", text: "Link my account" } }] },
    ],
  };
}

export const hashCode = (code: string) => crypto.createHash("sha256").update(code).digest("hex");
