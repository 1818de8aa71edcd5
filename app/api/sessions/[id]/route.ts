import { z } from "zod";
import { route } from "@/lib/http/route";
import { sessionHistorySchema, sessionRenamedSchema } from "@/lib/runtime/session-schemas";
import { getSessionHistory } from "@/lib/runtime/sessions";
import { deleteSession, renameSession, TITLE_MAX } from "@/lib/runtime/session-edits";

const idParams = z.object({ id: z.uuid() });

export const GET = route({ params: idParams, response: sessionHistorySchema }, async ({ db, workspace, user, params }) =>
  getSessionHistory(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
);

const renameBody = z.object({ title: z.string().trim().min(1, "Give the chat a title").max(TITLE_MAX) });

/** Renames one's own chat. */
export const PATCH = route({ params: idParams, body: renameBody, response: sessionRenamedSchema }, async ({ db, workspace, user, params, body }) => {
  const session = await renameSession(db, workspace.id, params.id, { userId: user.id, role: workspace.role }, body.title);
  return { id: session.id, title: session.title };
});

/** Deletes one's own chat, its messages and its runs. */
export const DELETE = route({ params: idParams }, async ({ db, workspace, user, params }) => {
  await deleteSession(db, workspace.id, params.id, { userId: user.id, role: workspace.role });
  return new Response(null, { status: 204 });
});
