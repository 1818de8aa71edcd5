import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, agents, messages, sessions, steps } from "../db/schema";
import { AppError } from "../errors";
import { assertCanReadChat, type Viewer } from "../access/access";
import { creditsForViewer } from "../access/redact";

export interface ChatSummary {
  id: string;
  userId: string | null;
  title: string;
  agent: { id: string; handle: string; name: string; color: string; model: string };
  createdAt: Date;
  updatedAt: Date;
  /** Nothing was sent in it and it was never renamed: starting a chat with its agent again opens this one. */
  fresh: boolean;
}

export async function createChat(db: Db, input: { workspaceId: string; userId: string; agent: { id?: string; handle?: string } }) {
  const [agent] = await db
    .select()
    .from(agents)
    .where(
      and(
        eq(agents.workspaceId, input.workspaceId),
        input.agent.id ? eq(agents.id, input.agent.id) : eq(agents.handle, (input.agent.handle ?? "").replace(/^@/, "").toLowerCase()),
      ),
    );
  if (!agent) throw new AppError("not_found:agent", "There is no such agent in this workspace.");
  if (agent.status === "paused") throw new AppError("conflict:agent_paused", `@${agent.handle} is paused: a new chat with it can start once a manager resumes it.`);
  const [session] = await db
    .insert(sessions)
    .values({ workspaceId: input.workspaceId, agentId: agent.id, userId: input.userId, title: `Chat with ${agent.name}` })
    .returning();
  return session!;
}

export const chatColumns = {
  id: sessions.id,
  userId: sessions.userId,
  title: sessions.title,
  createdAt: sessions.createdAt,
  updatedAt: sessions.updatedAt,
  fresh: sql<boolean>`not ${sessions.titleChosen}`.mapWith(Boolean),
  agent: { id: agents.id, handle: agents.handle, name: agents.name, color: agents.color, model: agents.model },
};

/** The user's chat sessions in a workspace, most recent first. */
export async function listChats(db: Db, workspaceId: string, userId: string, limit = 100): Promise<ChatSummary[]> {
  return db
    .select(chatColumns)
    .from(sessions)
    .innerJoin(agents, eq(agents.id, sessions.agentId))
    .where(and(eq(sessions.workspaceId, workspaceId), eq(sessions.userId, userId)))
    .orderBy(desc(sessions.updatedAt))
    .limit(limit);
}

export type { Viewer };

/**
 * A session the viewer may read (the rule lives in lib/access). Anything
 * else is 404, exactly like a session of another workspace.
 */
export async function getChat(db: Db, workspaceId: string, sessionId: string, viewer: Viewer): Promise<ChatSummary> {
  const [row] = await db
    .select(chatColumns)
    .from(sessions)
    .innerJoin(agents, eq(agents.id, sessions.agentId))
    .where(and(eq(sessions.id, sessionId), eq(sessions.workspaceId, workspaceId)));
  if (!row) throw new AppError("not_found:session");
  assertCanReadChat(viewer, row);
  return row;
}

export interface HistoryMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  createdAt: Date;
  run: {
    id: string;
    state: string;
    error: string | null;
    errorCode: string | null;
    lastSeq: number;
    credits: number | null;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
  } | null;
  steps: {
    id: string;
    callId: string;
    tool: string;
    input: unknown;
    output: unknown;
    status: string;
    error: string | null;
    taint: string[];
    position: number;
  }[];
}

/** Messages of a session with their runs and steps, oldest first. */
export async function getChatHistory(
  db: Db,
  workspaceId: string,
  sessionId: string,
  viewer: Viewer,
): Promise<{ session: ChatSummary; messages: HistoryMessage[] }> {
  const session = await getChat(db, workspaceId, sessionId, viewer);
  const rows = await db.select().from(messages).where(eq(messages.sessionId, sessionId)).orderBy(asc(messages.createdAt), asc(messages.role));
  const runIds = rows.map((m) => m.runId).filter((id): id is string => !!id);
  const runs = runIds.length ? await db.select().from(agentRuns).where(inArray(agentRuns.id, runIds)) : [];
  const messageIds = rows.map((m) => m.id);
  const stepRows = messageIds.length
    ? await db.select().from(steps).where(inArray(steps.messageId, messageIds)).orderBy(asc(steps.position))
    : [];
  const runById = new Map(runs.map((r) => [r.id, r]));
  return {
    session,
    messages: rows.map((m) => {
      const run = m.role === "assistant" && m.runId ? runById.get(m.runId) : undefined;
      return {
        id: m.id,
        role: m.role,
        content: m.content,
        createdAt: m.createdAt,
        run: run
          ? {
              id: run.id,
              state: run.state,
              error: run.error,
              errorCode: run.errorCode,
              lastSeq: run.lastSeq,
              credits: creditsForViewer(viewer, run.credits),
              inputTokens: run.inputTokens,
              outputTokens: run.outputTokens,
              cacheReadTokens: run.cacheReadTokens,
            }
          : null,
        steps: stepRows
          .filter((s) => s.messageId === m.id)
          .map((s) => ({
            id: s.id,
            callId: s.callId,
            tool: s.tool,
            input: s.input,
            output: s.output,
            status: s.status,
            error: s.error,
            taint: s.taint,
            position: s.position,
          })),
      };
    }),
  };
}
