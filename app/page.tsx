import { redirect } from "next/navigation";
import { getServer } from "@/lib/server";
import { requireUser } from "@/lib/http/page";
import { defaultWorkspaceForUser } from "@/lib/workspaces/workspaces";
import { NoWorkspace } from "@/components/shell/no-workspace";

export const dynamic = "force-dynamic";

export default async function Home() {
  const user = await requireUser();
  const { db } = await getServer();
  const last = await defaultWorkspaceForUser(db, user.id);
  if (last) redirect(`/w/${last.slug}`);
  return <NoWorkspace name={user.name} />;
}
