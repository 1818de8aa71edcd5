import { and, desc, eq, isNull, ne, or, sql } from "drizzle-orm";
import { z } from "zod";
import { memoryReaderOf, memoryScopeOf, type MemoryReader, type MemoryScope } from "../access/access";
import type { Db } from "../db/client";
import { agentMemories } from "../db/schema";
import { ToolError, type ToolDefinition } from "./types";

export interface RecalledMemory {
  content: string;
  kind: "note" | "reply";
  createdAt: string;
  /** The untrusted sources that had reached the run that wrote it: whoever reads it is tainted by them. */
  taint: string[];
}

/**
 * Stores a memory with its scope (`memoryScopeOf(run)`) and the taint of the
 * writing run at that moment, so that content laundered through memory still
 * taints whoever reads it back.
 */
export async function rememberMemory(
  db: Db,
  input: {
    workspaceId: string;
    agentId: string;
    runId: string | null;
    content: string;
    kind?: "note" | "reply";
    scope: MemoryScope;
    ownerUserId: string | null;
    sessionId: string | null;
    taint: readonly string[];
  },
): Promise<void> {
  await db.insert(agentMemories).values({
    workspaceId: input.workspaceId,
    agentId: input.agentId,
    runId: input.runId,
    content: input.content,
    kind: input.kind ?? "note",
    scope: input.scope,
    ownerUserId: input.ownerUserId,
    sessionId: input.sessionId,
    taint: [...new Set(input.taint)],
  });
}

/** The SQL form of `canRecallMemory`: shared memories, plus the reader's own private ones. */
function recallableBy(reader: MemoryReader) {
  const shared = eq(agentMemories.scope, "shared");
  return reader.ownerUserId === null ? shared : or(shared, and(eq(agentMemories.scope, "private"), eq(agentMemories.ownerUserId, reader.ownerUserId)));
}

/** Memories written anywhere but in the given chat; those written outside any chat always count. */
function writtenOutside(sessionId: string) {
  return or(isNull(agentMemories.sessionId), ne(agentMemories.sessionId, sessionId));
}

/**
 * The agent's memories that best match a query, by full-text rank, among
 * those the run may recall (`reader`, from `memoryReaderOf(run)`). `websearch_to_tsquery`
 * never fails on user text; words joined with OR so one matching word is enough.
 * `exceptSessionId` leaves out what was written in that chat, for a caller that already has the chat itself.
 */
export async function recallMemories(
  db: Db,
  input: {
    agentId: string;
    reader: MemoryReader;
    query: string;
    limit?: number;
    kind?: "note" | "reply";
    untaintedOnly?: boolean;
    exceptSessionId?: string | null;
  },
): Promise<RecalledMemory[]> {
  const terms = (input.query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).slice(0, 20);
  if (terms.length === 0) return [];
  const query = sql`websearch_to_tsquery('english', ${terms.join(" or ")})`;
  const rows = await db
    .select({ content: agentMemories.content, kind: agentMemories.kind, createdAt: agentMemories.createdAt, taint: agentMemories.taint })
    .from(agentMemories)
    .where(
      and(
        eq(agentMemories.agentId, input.agentId),
        recallableBy(input.reader),
        sql`${agentMemories.search} @@ ${query}`,
        input.kind ? eq(agentMemories.kind, input.kind) : undefined,
        input.untaintedOnly ? sql`${agentMemories.taint} = '[]'::jsonb` : undefined,
        input.exceptSessionId ? writtenOutside(input.exceptSessionId) : undefined,
      ),
    )
    .orderBy(desc(sql`ts_rank(${agentMemories.search}, ${query})`), desc(agentMemories.createdAt))
    .limit(input.limit ?? 5);
  return rows.map((r) => ({ content: r.content, kind: r.kind, createdAt: r.createdAt.toISOString(), taint: r.taint }));
}

const rememberInput = z.object({
  text: z.string().trim().min(1).max(4000).describe("What to remember, as a self-contained sentence."),
  shared: z
    .boolean()
    .optional()
    .describe("In a person's private chat, true makes this memory available in everyone's chats with you; by default it stays with that person."),
});

export const memoryRememberTool: ToolDefinition<z.infer<typeof rememberInput>, { remembered: string; summary: string }> = {
  name: "memory.remember",
  description: "Store a fact in your long-term memory so you can recall it in later conversations.",
  input: rememberInput,
  effects: ["writes_memory"],
  taint: () => null,
  preview: (input) => ({ title: "Remember", fields: [], body: input.text }),
  async execute(ctx, input) {
    const scope = memoryScopeOf(ctx, input.shared);
    // A page or a message read in a private chat must not be able to publish that chat into everyone's recall.
    // Elsewhere a tainted run may share what it remembers: the memory keeps the run's taint, and so taints every reader.
    if (input.shared && ctx.sessionId && ctx.taint.length > 0) {
      throw new ToolError(
        `Untrusted content (${ctx.taint.join(", ")}) reached this chat, so what is remembered here stays private to its person. Ask again in a new chat to share it.`,
        { refused: true },
      );
    }
    await rememberMemory(ctx.db, { workspaceId: ctx.workspaceId, agentId: ctx.agentId, runId: ctx.runId, content: input.text, ...scope, taint: ctx.taint });
    return { remembered: input.text, summary: `Noted. I'll remember: “${input.text}”` };
  },
};

const recallInput = z.object({ query: z.string().trim().min(1).max(500).describe("Words to search your memory for.") });

export const memoryRecallTool: ToolDefinition<z.infer<typeof recallInput>, { query: string; memories: RecalledMemory[]; summary: string }> = {
  name: "memory.recall",
  description: "Search your long-term memory. Returns the best-matching things you remembered, newest first among equals.",
  input: recallInput,
  effects: ["reads_workspace"],
  // What was remembered after reading a page or another agent's message is as untrusted as that content was.
  taint: (_input, output) => output.memories.flatMap((m) => m.taint),
  preview: (input) => ({ title: "Recall", fields: [{ label: "Query", value: input.query }] }),
  async execute(ctx, input) {
    const memories = await recallMemories(ctx.db, { agentId: ctx.agentId, reader: memoryReaderOf(ctx), query: input.query, kind: "note" });
    const summary =
      memories.length === 0
        ? `I don't remember anything about “${input.query}”.`
        : `Here is what I remember about “${input.query}”:\n\n${memories.map((m) => `- ${m.content}`).join("\n")}`;
    return { query: input.query, memories, summary };
  },
};
