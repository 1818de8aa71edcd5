import { z } from "zod";
import { route } from "@/lib/http/route";
import { chatHistorySchema, chatRenamedSchema } from "@/lib/chats/chat-schemas";
import { readChatView } from "@/lib/http/chat-prefetch";
import { deleteChat, renameChat, TITLE_MAX } from "@/lib/chats/chat-edits";

const idParams = z.object({ id: z.uuid() });

const owner = "the chat's owner";

export const GET = route(
  {
    doc: { summary: "history with runs and steps, and `budgetStop`: why the agent cannot answer now (a spent monthly budget), or null; `ownerName`: whose chat it is, for a reader who is not its owner (null for the owner)", role: `${owner}, reviewers and up` },
    params: idParams,
    response: chatHistorySchema,
  },
  async ({ db, workspace, user, params }) => readChatView(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
);

const renameBody = z.object({ title: z.string().trim().min(1, "Give the chat a title").max(TITLE_MAX) });

const renameDoc = { summary: "rename (a chat is named after its first message until then)", role: owner };

/** Renames one's own chat. */
export const PATCH = route({ doc: renameDoc, params: idParams, body: renameBody, response: chatRenamedSchema }, async ({ db, workspace, user, params, body }) => {
  const session = await renameChat(db, workspace.id, params.id, { userId: user.id, role: workspace.role }, body.title);
  return { id: session.id, title: session.title };
});

const deleteDoc = {
  summary: "delete with its messages and runs (204; 409 `conflict:session_active` while a reply runs or waits for a reviewer)",
  role: owner,
};

/** Deletes one's own chat, its messages and its runs. */
export const DELETE = route({ doc: deleteDoc, params: idParams }, async ({ db, workspace, user, params }) => {
  await deleteChat(db, workspace.id, params.id, { userId: user.id, role: workspace.role });
  return new Response(null, { status: 204 });
});
