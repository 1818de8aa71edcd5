/**
 * The email about a waiting request: the same facts as its card (what the agent wants to do, who asked and for whom,
 * the untrusted content that reached the run, the time left) and a link that opens the card. The link decides
 * nothing by itself (mail scanners follow links): the person decides in Clawdeck, signed in.
 */
import type { Mail } from "../mail/mailer";
import { taintNoun } from "../safety/taint";
import type { NotificationStep } from "../db/schema";
import { isCapRequest } from "../billing/cap-words";

export interface RequestFacts {
  id: string;
  workspaceId: string;
  agentHandle: string;
  tool: string;
  preview: { title: string; fields: { label: string; value: string }[]; body?: string };
  requestedBy: string | null;
  onBehalfOf: string | null;
  via: string[];
  taintSources: { source: string }[];
  createdAt: Date;
  expiresAt: Date;
  workspaceName: string;
  workspaceSlug: string;
  timeZone: string;
}

/** "42 minutes", "2 hours 5 minutes", "less than a minute". */
export function durationWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "less than a minute";
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const m = `${rest} ${rest === 1 ? "minute" : "minutes"}`;
  if (hours === 0) return m;
  const h = `${hours} ${hours === 1 ? "hour" : "hours"}`;
  return rest === 0 ? h : `${h} ${m}`;
}

function clockAt(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" }).format(at);
}

/**
 * What is asked, as a sentence: "@herald asks to post to Slack", or a spending question as it is worded ("@forge's run
 * has spent … ; continue with another …?").
 */
export function askedSentence(facts: Pick<RequestFacts, "agentHandle" | "tool" | "preview">): string {
  if (isCapRequest(facts)) return facts.preview.title;
  return `@${facts.agentHandle} asks to ${facts.preview.title.charAt(0).toLowerCase()}${facts.preview.title.slice(1)}`;
}

export const requestUrl = (baseUrl: string, facts: Pick<RequestFacts, "id" | "workspaceSlug">) =>
  `${baseUrl.replace(/\/$/, "")}/w/${facts.workspaceSlug}/approvals?approval=${facts.id}`;

/** Why this message is sent, as its first line. */
export function stepLine(step: NotificationStep, facts: RequestFacts, now: Date, escalateAfterMinutes: number): string {
  switch (step) {
    case "asked":
      return isCapRequest(facts) ? `@${facts.agentHandle} waits for a decision.` : `@${facts.agentHandle} asks to do this and waits for a decision.`;
    case "escalated_managers":
    case "escalated_owners":
      return `Nobody has decided this in ${durationWords(now.getTime() - facts.createdAt.getTime())}, so it is passed on to ${step === "escalated_managers" ? "the managers" : "the owners"} (the workspace passes a request on after ${escalateAfterMinutes} minutes).`;
    case "reminder_half":
    case "reminder_late":
      return `Still waiting for a decision, with ${durationWords(facts.expiresAt.getTime() - now.getTime())} left.`;
  }
}

/** The facts of one request, as lines of text. */
function requestLines(facts: RequestFacts, now: Date, baseUrl: string): string[] {
  const lines = [facts.preview.title];
  for (const f of facts.preview.fields) lines.push(`  ${f.label}: ${f.value}`);
  if (facts.preview.body) lines.push("", ...facts.preview.body.split("\n").slice(0, 20).map((l) => `  ${l}`));
  lines.push("");
  const who = facts.onBehalfOf ?? facts.requestedBy;
  const through = facts.via.length > 0 ? `, through ${facts.via.map((h) => `@${h}`).join(" and ")}` : "";
  lines.push(who ? `Asked by @${facts.agentHandle} for ${who}${through}.` : `Asked by @${facts.agentHandle}, with nobody recorded behind it${through}.`);
  lines.push(
    facts.taintSources.length > 0
      ? `Untrusted content reached this run: ${facts.taintSources.map((t) => taintNoun(t.source)).join("; ")}.`
      : "No untrusted content reached this run.",
  );
  lines.push(`Time left: ${durationWords(facts.expiresAt.getTime() - now.getTime())} (until ${clockAt(facts.expiresAt, facts.timeZone)}).`);
  lines.push("", "Open it to decide:", requestUrl(baseUrl, facts));
  return lines;
}

const FOOTER = [
  "",
  "The link only opens the request; nothing is decided until you choose in Clawdeck, signed in.",
  "You get this because you may decide requests in this workspace. Choose what reaches you in Settings → Notifications.",
];

export function requestMail(input: { to: string; step: NotificationStep; facts: RequestFacts; now: Date; baseUrl: string; escalateAfterMinutes: number }): Mail {
  const { facts, step } = input;
  const prefix = step === "asked" ? "Waiting for you" : step.startsWith("escalated") ? "Passed on to you" : "Reminder";
  return {
    to: input.to,
    subject: `${prefix}: ${askedSentence(facts)} (${facts.workspaceName})`,
    text: [stepLine(step, facts, input.now, input.escalateAfterMinutes), "", ...requestLines(facts, input.now, input.baseUrl), ...FOOTER].join("\n"),
  };
}

/** Several requests in one message, for a person who chose a digest. */
export function digestMail(input: { to: string; items: { step: NotificationStep; facts: RequestFacts }[]; now: Date; baseUrl: string; escalateAfterMinutes: number }): Mail {
  const workspace = input.items[0]!.facts.workspaceName;
  const n = input.items.length;
  const text: string[] = [`${n} ${n === 1 ? "request waits" : "requests wait"} for a decision in ${workspace}.`];
  input.items.forEach(({ step, facts }, i) => {
    text.push("", `${i + 1}. ${stepLine(step, facts, input.now, input.escalateAfterMinutes)}`, "", ...requestLines(facts, input.now, input.baseUrl));
  });
  return { to: input.to, subject: `${n} ${n === 1 ? "request waits" : "requests wait"} for you (${workspace})`, text: [...text, ...FOOTER].join("\n") };
}
