import { z } from "zod";
import { accepted, route } from "@/lib/http/route";
import { roomPostSchema } from "@/lib/rooms/room-schemas";
import { limitRunStart } from "@/lib/runtime/run-limit";
import { postToRoom } from "@/lib/rooms/rooms";

const doc = { summary: "a person's post wakes every member agent (202 `{messageId, runIds}`; 429 `rate_limited:runs` past the per-person limit)" };

export const POST = route(
  { doc, params: z.object({ id: z.uuid() }), body: z.object({ text: z.string().trim().min(1).max(8000) }), response: roomPostSchema },
  async ({ server, workspace, user, params, body }) => {
    await limitRunStart(server, user.id);
    const result = await postToRoom({ db: server.db, bus: server.bus, wake: (w) => server.runtime.wake(w) }, { workspaceId: workspace.id, roomId: params.id, user, text: body.text });
    return accepted(result);
  },
);
