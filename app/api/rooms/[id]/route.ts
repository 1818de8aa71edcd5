import { z } from "zod";
import { route } from "@/lib/http/route";
import { getRoomForViewer } from "@/lib/rooms/rooms";
import { roomDetailSchema } from "@/lib/rooms/room-schemas";

export const GET = route({ doc: { summary: "a room with its messages" }, params: z.object({ id: z.uuid() }), response: roomDetailSchema }, async ({ db, workspace, user, params }) => ({
  room: await getRoomForViewer(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
}));
