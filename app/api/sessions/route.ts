import { z } from "zod";
import { created, route } from "@/lib/http/route";
import { createSession, listSessions } from "@/lib/runtime/sessions";

const createBody = z.union([z.object({ agentId: z.uuid() }), z.object({ agentHandle: z.string().trim().min(1).max(41) })]);

export const GET = route({}, async ({ db, workspace, user }) => ({ sessions: await listSessions(db, workspace.id, user.id) }));

export const POST = route({ body: createBody }, async ({ db, workspace, user, body }) => {
  const session = await createSession(db, {
    workspaceId: workspace.id,
    userId: user.id,
    agent: "agentId" in body ? { id: body.agentId } : { handle: body.agentHandle },
  });
  return created({ id: session.id });
});
