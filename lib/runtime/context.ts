import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { statement } from "../db/statements";
import { memoryReaderOf } from "../access/access";
import { messages, type Agent, type AgentRun } from "../db/schema";
import { EARLIER_REPLIES_HEADING, MEMORIES_HEADING } from "../models/offline";
import type { ModelMessage } from "../models/types";
import { truncate } from "../text";
import { recallMemories, type RecalledMemory } from "../tools/memory";

const HISTORY_LIMIT = 40;

const chatMessages = statement((db) =>
  db
    .select({ id: messages.id, role: messages.role, content: messages.content })
    .from(messages)
    .where(eq(messages.sessionId, sql.placeholder("sessionId")))
    .orderBy(asc(messages.createdAt), asc(messages.role))
    .prepare("chat_messages"),
);

/** The conversation so far as the model sees it: text only, roles alternating, starting with the user. */
export async function loadHistory(db: Database, run: AgentRun): Promise<ModelMessage[]> {
  if (!run.sessionId) return [];
  const rows = await chatMessages(db).execute({ sessionId: run.sessionId });
  const out: ModelMessage[] = [];
  for (const row of rows.slice(-HISTORY_LIMIT * 2)) {
    if (row.id === run.replyMessageId) continue;
    const text = row.content.trim();
    if (!text) continue;
    const last = out[out.length - 1];
    if (last && last.role === row.role) last.content.push({ type: "text", text });
    else if (out.length > 0 || row.role === "user") out.push({ role: row.role, content: [{ type: "text", text }] });
  }
  return out.slice(-HISTORY_LIMIT);
}

/** Notes are what the agent was asked to keep; earlier replies are long, so fewer of them come along. */
const NOTES_LIMIT = 6;
const EARLIER_REPLIES_LIMIT = 3;
const MEMORY_CHARS = 500;

/**
 * The agent's own prompt, plus what it remembers that bears on the question and that this run may recall. Only
 * memories written by untainted runs are put in the prompt: what was remembered after reading a page or another
 * agent's message is never slipped into a later run unseen. The agent reaches it with `memory.recall`, which taints
 * the run from that step with the memory's sources.
 *
 * Notes and earlier replies go under separate headings, so that a model never takes what it once said for a fact it
 * was asked to keep. Replies of this very chat are left out: `loadHistory` already gives them, so they would only
 * cost tokens. Notes of this chat stay: they were written by a tool call, which the text-only history does not carry.
 */
export async function buildSystemPrompt(db: Database, agent: Agent, question: string, run: AgentRun): Promise<string> {
  const recall = (kind: "note" | "reply", limit: number, exceptSessionId: string | null = null) =>
    recallMemories(db, { agentId: agent.id, reader: memoryReaderOf(run), query: question, limit, kind, untaintedOnly: true, exceptSessionId }).catch(() => []);
  const [notes, replies] = await Promise.all([recall("note", NOTES_LIMIT), recall("reply", EARLIER_REPLIES_LIMIT, run.sessionId)]);
  const parts = [
    agent.systemPrompt.trim() || `You are ${agent.name}, an agent of this team.`,
    `Your handle is @${agent.handle}. Use your tools when they help; say plainly when something failed or was refused.`,
  ];
  if (notes.length > 0) parts.push(memorySection(MEMORIES_HEADING, notes));
  if (replies.length > 0) parts.push(memorySection(EARLIER_REPLIES_HEADING, replies));
  return parts.join("\n\n");
}

/** One memory a line, so that a reader of the prompt (the offline model among them) can tell where each ends. */
function memorySection(heading: string, memories: RecalledMemory[]): string {
  return `${heading}\n${memories.map((m) => `- ${truncate(m.content.replace(/\s+/g, " "), MEMORY_CHARS)}`).join("\n")}`;
}
