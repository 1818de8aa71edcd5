import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Viewer } from "../access/access";
import { runFactsByIds } from "../access/run-facts-cache";
import { runLinkForViewer } from "../access/redact";
import type { Db } from "../db/client";
import { agentMessages, agents, roomMembers, rooms, users } from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";
import { recordAudit } from "../audit";
import { recordFeed } from "../feed/feed";
import type { EventBus } from "../db/bus";
import { pausedFeedItems } from "../messaging/delivery";
import type { Runtime } from "../runtime/runtime";

export const roomInputSchema = z.object({
  name: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) => v.replace(/^#/, ""))
    .pipe(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "letters, digits, - and _")),
  subject: z.string().trim().max(300).default(""),
  agentIds: z.array(z.uuid()).min(1, "Pick at least one agent").max(50),
});

export async function listRooms(db: Db, workspaceId: string) {
  const list = await db.select().from(rooms).where(eq(rooms.workspaceId, workspaceId)).orderBy(asc(rooms.name));
  const members = list.length
    ? await db
        .select({ roomId: roomMembers.roomId, id: agents.id, handle: agents.handle, name: agents.name, color: agents.color })
        .from(roomMembers)
        .innerJoin(agents, eq(agents.id, roomMembers.agentId))
        .where(inArray(roomMembers.roomId, list.map((r) => r.id)))
    : [];
  return list.map((r) => ({ id: r.id, name: r.name, subject: r.subject, createdAt: r.createdAt, members: members.filter((m) => m.roomId === r.id).map(({ roomId: _r, ...m }) => m) }));
}

export async function createRoom(db: Db, workspaceId: string, actorId: string, input: z.infer<typeof roomInputSchema>) {
  return db.transaction(async (tx) => {
    const found = await tx.select({ id: agents.id }).from(agents).where(and(eq(agents.workspaceId, workspaceId), inArray(agents.id, input.agentIds)));
    if (found.length !== new Set(input.agentIds).size) throw new AppError("unprocessable:room", "Every member must be an agent of this workspace.");
    let room;
    try {
      [room] = await tx.insert(rooms).values({ workspaceId, name: input.name, subject: input.subject, createdByUserId: actorId }).returning();
    } catch (error) {
      if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AppError("conflict:room", `#${input.name} already exists.`);
      throw error;
    }
    await tx.insert(roomMembers).values(found.map((a) => ({ roomId: room!.id, agentId: a.id })));
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: actorId }, action: "room.created", target: { type: "room", id: room!.id }, detail: { name: room!.name, agents: found.length } });
    return room!;
  });
}

export async function getRoom(db: Db, workspaceId: string, roomId: string) {
  const [room] = (await listRooms(db, workspaceId)).filter((r) => r.id === roomId);
  if (!room) throw new AppError("not_found:room");
  const recent = await db
    .select({
      id: agentMessages.id,
      body: agentMessages.body,
      createdAt: agentMessages.createdAt,
      runId: agentMessages.runId,
      fromAgent: agents.handle,
      fromUser: users.name,
    })
    .from(agentMessages)
    .leftJoin(agents, eq(agents.id, agentMessages.fromAgentId))
    .leftJoin(users, eq(users.id, agentMessages.fromUserId))
    .where(eq(agentMessages.roomId, roomId))
    .orderBy(desc(agentMessages.createdAt))
    .limit(100);
  return { ...room, messages: recent.reverse() };
}

/** A room as one person sees it: links to runs they may not open are left out. */
export async function getRoomForViewer(db: Db, workspaceId: string, roomId: string, viewer: Viewer) {
  const room = await getRoom(db, workspaceId, roomId);
  const runs = await runFactsByIds(db, workspaceId, room.messages.map((m) => m.runId));
  return { ...room, messages: room.messages.map((m) => ({ ...m, runId: runLinkForViewer(viewer, m.runId, m.runId ? runs.get(m.runId) : undefined) })) };
}

/**
 * A person posts into a room: every member agent that is not paused gets a
 * turn, acting on behalf of that person; the post shows in the feed, and so
 * does each paused member that will not answer.
 */
export async function postToRoom(
  deps: { db: Db; bus: EventBus; wake: Runtime["wake"] },
  input: { workspaceId: string; roomId: string; user: { id: string; name: string }; text: string },
) {
  const room = await getRoom(deps.db, input.workspaceId, input.roomId);
  const [message] = await deps.db
    .insert(agentMessages)
    .values({ workspaceId: input.workspaceId, roomId: room.id, fromUserId: input.user.id, body: input.text, hop: 0 })
    .returning({ id: agentMessages.id });
  await recordFeed(deps.db, deps.bus, [
    {
      workspaceId: input.workspaceId,
      kind: "room_post",
      roomId: room.id,
      payload: { messageId: message!.id, fromUser: input.user.name, room: room.name, recipients: room.members.map((m) => m.handle), text: input.text, hop: 0 },
    },
  ]);
  const { runIds, paused } = await deps.wake({
    workspaceId: input.workspaceId,
    agentIds: room.members.map((m) => m.id),
    trigger: "room_post",
    threadId: null,
    roomId: room.id,
    sourceMessageId: message!.id,
    inputText: `Message from ${input.user.name} in #${room.name}: ${input.text}`,
    hop: 0,
    chain: { onBehalfOfUserId: input.user.id, via: [], originSessionId: null, originRoomId: room.id },
  });
  await recordFeed(deps.db, deps.bus, pausedFeedItems({ workspaceId: input.workspaceId, roomId: room.id, from: input.user.name }, paused));
  return {
    messageId: message!.id,
    runIds,
    paused: paused.map((p) => p.handle),
    ...(paused.length ? { notice: `${paused.map((p) => `@${p.handle}`).join(", ")} ${paused.length === 1 ? "is" : "are"} paused and will not answer.` } : {}),
  };
}
