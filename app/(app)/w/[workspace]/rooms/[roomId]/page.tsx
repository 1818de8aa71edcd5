import type { Metadata } from "next";
import { and, eq } from "drizzle-orm";
import { notFound } from "next/navigation";
import { z } from "zod";
import { rooms } from "@/lib/db/schema";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";
import { RoomView } from "@/components/rooms/room-view";

export const metadata: Metadata = { title: "Room" };

export default async function RoomPage({ params }: { params: Promise<{ workspace: string; roomId: string }> }) {
  const { workspace: slug, roomId } = await params;
  const { workspace } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(roomId).success) notFound();
  const { db } = await getServer();
  const [room] = await db
    .select({ id: rooms.id })
    .from(rooms)
    .where(and(eq(rooms.id, roomId), eq(rooms.workspaceId, workspace.id)));
  if (!room) notFound();
  return <RoomView roomId={roomId} />;
}
