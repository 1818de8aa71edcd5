import { listAgents } from "../agents/agents";
import { agentListSchema } from "../agents/agent-schemas";
import { agentKeys, chatKeys } from "../client/query-keys";
import type { Db } from "../db/client";
import type { Role } from "../db/schema";
import { getChatHistory, listChats } from "../chats/chats";
import { chatHistorySchema, chatListSchema } from "../chats/chat-schemas";
import { prefetch, type Prefetch } from "./prefetch";
import { chatBudgetStop } from "../billing/budgets";
import { getUserById } from "../workspaces/users";

/**
 * A chat as GET /api/sessions/:id answers: its history, why its agent cannot answer now (if it cannot), and, for a
 * reviewer reading someone else's chat, whose chat it is.
 */
export async function readChatView(db: Db, workspaceId: string, sessionId: string, viewer: { userId: string; role: Role }) {
  const history = await getChatHistory(db, workspaceId, sessionId, viewer);
  const ownerId = history.session.userId;
  const [budgetStop, owner] = await Promise.all([
    chatBudgetStop(db, workspaceId, sessionId),
    ownerId && ownerId !== viewer.userId ? getUserById(db, ownerId) : null,
  ]);
  return { ...history, budgetStop, ownerName: owner?.name ?? null };
}

/**
 * What the chat pages show first, read as the API routes read it: the
 * person's own chats (GET /api/sessions), the agents to chat with
 * (GET /api/agents) and, on a chat's page, its history (GET /api/sessions/:id,
 * which refuses a chat the viewer may not read).
 */
export function chatPrefetches(
  db: Db,
  workspace: { id: string; slug: string; role: Role },
  user: { id: string },
  sessionId?: string,
): Prefetch[] {
  const viewer = { userId: user.id, role: workspace.role };
  return [
    prefetch(chatKeys.sessions(workspace.slug), chatListSchema, async () => ({ sessions: await listChats(db, workspace.id, user.id) })),
    prefetch(agentKeys.list(workspace.slug), agentListSchema, async () => ({ agents: await listAgents(db, workspace.id) })),
    ...(sessionId ? [prefetch(chatKeys.session(workspace.slug, sessionId), chatHistorySchema, () => readChatView(db, workspace.id, sessionId, viewer))] : []),
  ];
}
