import { notFound, redirect } from "next/navigation";
import { getServer } from "../server";
import { getWorkspaceMembership, listWorkspacesForUser, markWorkspaceOpened, type WorkspaceMembership } from "../workspaces/workspaces";
import type { PublicUser } from "../workspaces/users";
import { getWorkspaceTimeZone } from "../workspaces/time-zone";
import { currentUser } from "./auth";

export async function requireUser(): Promise<PublicUser> {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  return user;
}

export interface WorkspacePage {
  user: PublicUser;
  /** With the zone every date of the workspace is shown in. */
  workspace: WorkspaceMembership & { timeZone: string };
  workspaces: WorkspaceMembership[];
}

/**
 * The signed-in user inside the workspace named by the URL. A workspace the
 * user does not belong to answers 404, the same as one that does not exist.
 * Opening it makes it the user's default workspace.
 */
export async function requireWorkspacePage(slug: string): Promise<WorkspacePage> {
  const user = await requireUser();
  const { db } = await getServer();
  const workspace = await getWorkspaceMembership(db, user.id, { slug });
  if (!workspace) notFound();
  await markWorkspaceOpened(db, user.id, workspace.id);
  const timeZone = await getWorkspaceTimeZone(db, workspace.id);
  return { user, workspace: { ...workspace, timeZone }, workspaces: await listWorkspacesForUser(db, user.id) };
}
