import { created, route } from "@/lib/http/route";
import { createRoom, listRooms, roomInputSchema } from "@/lib/rooms/rooms";
import { roomCreatedSchema, roomListSchema } from "@/lib/rooms/room-schemas";

export const GET = route({ doc: { summary: "rooms and their member agents" }, response: roomListSchema }, async ({ db, workspace }) => ({
  rooms: await listRooms(db, workspace.id),
}));

export const POST = route(
  { doc: { summary: "create one (201 `{room}`)" }, can: "rooms.create", body: roomInputSchema, response: roomCreatedSchema },
  async ({ db, workspace, user, body }) => created({ room: await createRoom(db, workspace.id, user.id, body) }),
);
