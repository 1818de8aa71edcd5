import { isAppError } from "@/lib/errors";
import { errorLine } from "@/lib/error-sentences";

/** The JSON shapes of the agents API as the browser receives them. */
export interface AgentItem {
  id: string;
  handle: string;
  name: string;
  description: string;
  model: string;
  tools: string[];
  color: string;
  status: "active" | "paused";
  /** Sent back with every edit: the server refuses an edit made from an older version (409 conflict:stale). */
  version: number;
}

export interface AgentDetail {
  agent: AgentItem & { systemPrompt: string; createdAt: string; updatedAt: string };
  runs: {
    id: string;
    trigger: string;
    state: string;
    sessionId: string | null;
    error: string | null;
    /** Null for viewers who may not see spend. */
    credits: number | null;
    createdAt: string;
    finishedAt: string | null;
  }[];
  messages: {
    id: string;
    body: string;
    fromAgentId: string | null;
    toAgentId: string | null;
    roomId: string | null;
    runId: string | null;
    createdAt: string;
  }[];
  /** Null for viewers who may not see spend. */
  spend30d: { credits: number; calls: number } | null;
}

/** What a manager may pick from, given the server's configuration. */
export interface ModelChoice {
  spec: string;
  label: string;
}

export interface ToolChoice {
  name: string;
  description: string;
}

/** An error as one line of words with its code, for places that hold only text (see `ErrorNotice` for the full form). */
export function errorText(error: unknown, fallback = "Something went wrong."): string {
  return errorLine(error, fallback);
}

/** What each tool lets an agent do, said for people (the registry's descriptions are written for models). */
export const toolBlurbs: Record<string, string> = {
  "http.fetch": "Reads web pages. What it reads is untrusted: passing it on then needs a person.",
  "chat.send": "Messages another agent or posts in a room; the recipients answer.",
  "slack.post": "Posts to a Slack channel, after a reviewer approves.",
  "memory.remember": "Keeps notes in its own memory.",
  "memory.recall": "Searches its own memory.",
};

/** The body of a pause or resume: the status alone, from the version shown, never other cached fields. */
export function statusChange(agent: Pick<AgentItem, "version">, status: AgentItem["status"]) {
  return { status, version: agent.version };
}

/** An edit refused because someone else saved the agent after this page loaded it. */
export const isStaleEdit = (error: unknown) => isAppError(error) && error.code === "conflict:stale";

export const STALE_AGENT_NOTICE = "Someone else changed this agent while you had it open, so your change was not saved. This page now shows their version.";
