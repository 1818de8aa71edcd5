import { eq } from "drizzle-orm";
import type { Db } from "../../lib/db/client";
import { memberships, type Role } from "../../lib/db/schema";
import { createUser, getUserByEmail, type PublicUser } from "../../lib/workspaces/users";
import { createWorkspace, type WorkspaceMembership } from "../../lib/workspaces/workspaces";
import { OWNER_EMAIL } from "./server";

let counter = 0;

/** A new user with a unique email, optionally made a member of a workspace with a role. */
export async function makeUser(db: Db, workspaceId?: string, role: Role = "member"): Promise<PublicUser> {
  counter += 1;
  const user = await createUser(db, { email: `user${counter}-${Date.now()}@test.local`, name: `User ${counter}`, password: "password-123" });
  if (workspaceId) await db.insert(memberships).values({ workspaceId, userId: user.id, role });
  return user;
}

export async function makeWorkspace(db: Db, name: string, owner: PublicUser): Promise<WorkspaceMembership> {
  return createWorkspace(db, { name, ownerId: owner.id });
}

export async function demoOwner(db: Db): Promise<PublicUser & { workspaceId: string }> {
  const user = await getUserByEmail(db, OWNER_EMAIL);
  if (!user) throw new Error("The demo owner is missing");
  const [membership] = await db.select().from(memberships).where(eq(memberships.userId, user.id));
  return { id: user.id, email: user.email, name: user.name, workspaceId: membership!.workspaceId };
}
