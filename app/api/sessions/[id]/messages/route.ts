import { z } from "zod";
import { accepted, route } from "@/lib/http/route";
import { chatRunStartedSchema } from "@/lib/runtime/session-schemas";
import { limitRunStart } from "@/lib/runtime/run-limit";
import { assertSessionOwner, getSession } from "@/lib/runtime/sessions";
import { titleFrom } from "@/lib/runtime/session-edits";

export const POST = route(
  { params: z.object({ id: z.uuid() }), body: z.object({ text: z.string().trim().min(1, "Write a message").max(20_000) }), response: chatRunStartedSchema },
  async ({ server, workspace, user, params, body }) => {
    const viewer = { userId: user.id, role: workspace.role };
    const session = await getSession(server.db, workspace.id, params.id, viewer);
    assertSessionOwner(session, viewer);
    await limitRunStart(server, user.id);
    // The chat is named after its first message in the run's own transaction.
    const { runId } = await server.runtime.startChatRun({
      workspaceId: workspace.id,
      sessionId: session.id,
      userId: user.id,
      text: body.text,
      title: titleFrom(body.text),
    });
    return accepted({ runId });
  },
);
