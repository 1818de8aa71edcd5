import { z } from "zod";
import { created, route } from "@/lib/http/route";
import { chatListSchema } from "@/lib/chats/chat-schemas";
import { createdIdSchema } from "@/lib/shared-schemas";
import { createChat, listChats } from "@/lib/chats/chats";
import { searchChats } from "@/lib/chats/chat-edits";

const createBody = z.union([z.object({ agentId: z.uuid() }), z.object({ agentHandle: z.string().trim().min(1).max(41) })]);

const listQuery = z.object({ q: z.string().trim().max(200).optional() });

const listDoc = { summary: "your chats (with `q`: those whose title or any message contains the words; only your own, whatever your role)" };

/** The person's own chats; with `q`, only those whose title or messages contain it. */
export const GET = route({ doc: listDoc, query: listQuery, response: chatListSchema }, async ({ db, workspace, user, query }) => ({
  sessions: query.q ? await searchChats(db, workspace.id, { userId: user.id, role: workspace.role }, query.q) : await listChats(db, workspace.id, user.id),
}));

export const POST = route({ doc: { summary: "start one (201 `{id}`)" }, body: createBody, response: createdIdSchema }, async ({ db, workspace, user, body }) => {
  const session = await createChat(db, {
    workspaceId: workspace.id,
    userId: user.id,
    agent: "agentId" in body ? { id: body.agentId } : { handle: body.agentHandle },
  });
  return created({ id: session.id });
});
