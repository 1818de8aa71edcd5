import type { AgentSummary } from "@/lib/agents/agents";
import type { HistoryMessage, SessionSummary } from "@/lib/runtime/sessions";

/** The JSON shapes of the chat API as the browser receives them (dates arrive as strings). */
export type ChatAgent = AgentSummary;
export type ChatSession = Omit<SessionSummary, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string };
export type ChatMessage = Omit<HistoryMessage, "createdAt"> & { createdAt: string };
export type StoredRun = NonNullable<ChatMessage["run"]>;
export type StoredStep = ChatMessage["steps"][number];

export interface SessionHistory {
  session: ChatSession;
  messages: ChatMessage[];
}

/** Run states in which the reply is still being written (its stored content is empty until the end). */
export const activeRunStates: ReadonlySet<string> = new Set(["queued", "running", "suspended"]);
