import { and, desc, eq, exists, ilike, inArray, or, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { agentRuns, agents, messages, sessions } from "../db/schema";
import { assertCanWriteChat, type Viewer } from "../access/access";
import { ownChatsWhere } from "../access/reads";
import { runFactsCache } from "../access/run-facts-cache";
import { AppError } from "../errors";
import { truncate } from "../text";
import { getChat, chatColumns, type ChatSummary } from "./chats";

export const TITLE_MAX = 80;
const AUTO_TITLE_MAX = 60;

/** A chat's title from its first message: the first words on one line, cut with an ellipsis. */
export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return truncate(line, AUTO_TITLE_MAX, "…") || "New chat";
}

/** Only the person who started a chat renames it; anyone else gets the same answer as for a chat that does not exist. */
export async function renameChat(db: Db, workspaceId: string, sessionId: string, viewer: Viewer, title: string): Promise<ChatSummary> {
  const session = await getChat(db, workspaceId, sessionId, viewer);
  assertCanWriteChat(viewer, session);
  await db.update(sessions).set({ title, titleChosen: true }).where(eq(sessions.id, session.id));
  return { ...session, title, fresh: false };
}

const ACTIVE_STATES = ["running", "suspended"] as const;

/**
 * Deletes a chat with its messages and runs (the usage ledger keeps its rows).
 * A chat whose reply is still running or waiting for a reviewer is stopped first.
 */
export async function deleteChat(db: Db, workspaceId: string, sessionId: string, viewer: Viewer): Promise<void> {
  const session = await getChat(db, workspaceId, sessionId, viewer);
  assertCanWriteChat(viewer, session);
  const [active] = await db
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(eq(agentRuns.sessionId, session.id), inArray(agentRuns.state, [...ACTIVE_STATES])))
    .limit(1);
  if (active) {
    throw new AppError("conflict:session_active", "This chat still has a reply running or waiting for a reviewer: stop it first, then delete the chat.", {
      details: { runId: active.id },
    });
  }
  // One statement: the chat goes, its runs with it (by the foreign key), and their ids come back (read before the delete).
  const gone = rowsOf<{ id: string }>(
    await db.execute(sql`
      with runs as (select ${agentRuns.id} as id from ${agentRuns} where ${agentRuns.sessionId} = ${session.id}),
           deleted as (delete from ${sessions} where ${sessions.id} = ${session.id} and ${sessions.workspaceId} = ${workspaceId} returning 1)
      select id from runs where exists (select 1 from deleted)`),
  );
  // This process's streams no longer let anyone in to those runs: they do not exist.
  runFactsCache(db).forget(workspaceId, gone.map((r) => r.id));
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The viewer's own chats whose title or any message contains the words, most recent first. */
export async function searchChats(db: Db, workspaceId: string, viewer: Viewer, q: string, limit = 50): Promise<ChatSummary[]> {
  const pattern = likePattern(q);
  const inMessages = db
    .select({ one: sql`1` })
    .from(messages)
    .where(and(eq(messages.sessionId, sessions.id), ilike(messages.content, pattern)));
  return db
    .select(chatColumns)
    .from(sessions)
    .innerJoin(agents, eq(agents.id, sessions.agentId))
    .where(and(eq(sessions.workspaceId, workspaceId), ownChatsWhere(viewer), or(ilike(sessions.title, pattern), exists(inMessages))))
    .orderBy(desc(sessions.updatedAt))
    .limit(limit);
}
