import { created, route } from "@/lib/http/route";
import { createRoom, listRooms, roomInputSchema } from "@/lib/rooms/rooms";

export const GET = route({}, async ({ db, workspace }) => ({ rooms: await listRooms(db, workspace.id) }));

export const POST = route({ role: "manager", body: roomInputSchema }, async ({ db, workspace, user, body }) =>
  created({ room: await createRoom(db, workspace.id, user.id, body) }),
);
