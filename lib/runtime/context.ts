import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { statement } from "../db/statements";
import { memoryReaderOf } from "../access/access";
import { messages, type Agent, type AgentRun } from "../db/schema";
import { MEMORIES_HEADING } from "../models/offline";
import type { ModelMessage } from "../models/types";
import { truncate } from "../text";
import { recallMemories } from "../tools/memory";

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

/**
 * The agent's own prompt, plus what it remembers that bears on the question and that this run may recall. Only
 * memories written by untainted runs are put in the prompt: what was remembered after reading a page or another
 * agent's message is never slipped into a later run unseen. The agent reaches it with `memory.recall`, which taints
 * the run from that step with the memory's sources.
 */
export async function buildSystemPrompt(db: Database, agent: Agent, question: string, run: AgentRun): Promise<string> {
  const memories = await recallMemories(db, { agentId: agent.id, reader: memoryReaderOf(run), query: question, limit: 6, untaintedOnly: true }).catch(() => []);
  const parts = [
    agent.systemPrompt.trim() || `You are ${agent.name}, an agent of this team.`,
    `Your handle is @${agent.handle}. Use your tools when they help; say plainly when something failed or was refused.`,
  ];
  if (memories.length > 0) {
    parts.push(`${MEMORIES_HEADING}\n${memories.map((m) => `- ${truncate(m.content.replace(/\s+/g, " "), 500)}`).join("\n")}`);
  }
  return parts.join("\n\n");
}
