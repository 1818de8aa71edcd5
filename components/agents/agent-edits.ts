import type { AgentSummary } from "@/lib/agents/agent-schemas";
import { isAppError } from "@/lib/errors";

/** The body of a pause or resume: the status alone, from the version shown, never other cached fields. */
export function statusChange(agent: Pick<AgentSummary, "version">, status: AgentSummary["status"]) {
  return { status, version: agent.version };
}

/** An edit refused because someone else saved the agent after this page loaded it. */
export const isStaleEdit = (error: unknown) => isAppError(error) && error.code === "conflict:stale";

export const STALE_AGENT_NOTICE = "Someone else changed this agent while you had it open, so your change was not saved. This page now shows their version.";
