import { z } from "zod";
import { created, userRoute } from "@/lib/http/route";
import { workspaceCreatedSchema } from "@/lib/workspaces/workspace-schemas";
import { createWorkspace, listWorkspacesForUser, workspaceNameSchema } from "@/lib/workspaces/workspaces";

export const GET = userRoute({}, async ({ db, user }) => ({ workspaces: await listWorkspacesForUser(db, user.id) }));

export const POST = userRoute({ body: z.object({ name: workspaceNameSchema, timeZone: z.string().max(64).optional() }), response: workspaceCreatedSchema }, async ({ db, user, body }) =>
  created({ workspace: await createWorkspace(db, { name: body.name, ownerId: user.id, timeZone: body.timeZone }) }),
);
