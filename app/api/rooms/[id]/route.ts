import { z } from "zod";
import { route } from "@/lib/http/route";
import { getRoomForViewer } from "@/lib/rooms/rooms";

export const GET = route({ params: z.object({ id: z.uuid() }) }, async ({ db, workspace, user, params }) => ({
  room: await getRoomForViewer(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
}));
