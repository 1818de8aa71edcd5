import { z } from "zod";
import { accepted, route } from "@/lib/http/route";
import { chatRunStartedSchema } from "@/lib/runtime/session-schemas";
import { limitRunStart } from "@/lib/runtime/run-limit";
import { titleFrom } from "@/lib/runtime/session-edits";

export const POST = route(
  { params: z.object({ id: z.uuid() }), body: z.object({ text: z.string().trim().min(1, "Write a message").max(20_000) }), response: chatRunStartedSchema },
  async ({ server, workspace, user, params, body }) => {
    // Every attempt counts toward the person's limit, refused ones included.
    await limitRunStart(server, user.id);
    // One statement checks that the chat is this person's, writes the message and starts the run; the chat is named
    // after its first message in it.
    const { runId } = await server.runtime.startChatRun({
      workspaceId: workspace.id,
      sessionId: params.id,
      userId: user.id,
      role: workspace.role,
      text: body.text,
      title: titleFrom(body.text),
    });
    return accepted({ runId });
  },
);
