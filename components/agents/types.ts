import { AppError } from "@/lib/errors";

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

export const agentKeys = {
  list: (slug: string) => ["agents", slug] as const,
  detail: (slug: string, id: string) => ["agent", slug, id] as const,
};

export function errorText(error: unknown, fallback = "Something went wrong."): string {
  return error instanceof AppError ? error.message : fallback;
}

export function shortWhen(iso: string): string {
  const date = new Date(iso);
  const today = date.toDateString() === new Date().toDateString();
  return today
    ? date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString("en-GB", { day: "numeric", month: "short" }) + " " + date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
}

/** What each tool lets an agent do, said for people (the registry's descriptions are written for models). */
export const toolBlurbs: Record<string, string> = {
  "http.fetch": "Reads web pages. What it reads is untrusted: passing it on then needs a person.",
  "chat.send": "Messages another agent or posts in a room; the recipients answer.",
  "slack.post": "Posts to a Slack channel, after a reviewer approves.",
  "memory.remember": "Keeps notes in its own memory.",
  "memory.recall": "Searches its own memory.",
};

/**
 * The agent fields the update API fills with defaults when they are left out
 * (its partial schema keeps the create schema's defaults): every PATCH sends
 * their current values so that changing one thing never resets the others.
 */
export function keepDefaultedFields(agent: Pick<AgentDetail["agent"], "description" | "systemPrompt" | "tools" | "color">) {
  return { description: agent.description, systemPrompt: agent.systemPrompt, tools: agent.tools, color: agent.color };
}
