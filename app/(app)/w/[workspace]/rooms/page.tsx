import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { RoomsList } from "@/components/rooms/rooms-list";

export const metadata: Metadata = { title: "Rooms" };

export default async function RoomsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  return <RoomsList canCreate={can(workspace.role, "rooms.create")} />;
}
