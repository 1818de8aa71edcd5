import { z } from "zod";
import { route } from "@/lib/http/route";
import { getRoom } from "@/lib/rooms/rooms";

export const GET = route({ params: z.object({ id: z.uuid() }) }, async ({ db, workspace, params }) => ({ room: await getRoom(db, workspace.id, params.id) }));
