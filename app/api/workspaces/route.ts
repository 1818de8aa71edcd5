import { z } from "zod";
import { created, userRoute } from "@/lib/http/route";
import { workspaceCreatedSchema } from "@/lib/workspaces/workspace-schemas";
import { createWorkspace, listWorkspacesForUser, workspaceNameSchema } from "@/lib/workspaces/workspaces";

export const GET = userRoute({ doc: { summary: "your workspaces" } }, async ({ db, user }) => ({ workspaces: await listWorkspacesForUser(db, user.id) }));

const createDoc = { summary: "create one (you become its owner; its time zone is `timeZone` when the server knows it, else UTC)" };

export const POST = userRoute(
  { doc: createDoc, body: z.object({ name: workspaceNameSchema, timeZone: z.string().max(64).optional() }), response: workspaceCreatedSchema },
  async ({ db, user, body }) => created({ workspace: await createWorkspace(db, { name: body.name, ownerId: user.id, timeZone: body.timeZone }) }),
);
