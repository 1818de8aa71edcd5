import { created, route } from "@/lib/http/route";
import { addMember, addMemberSchema, listMembers } from "@/lib/workspaces/members";

export const GET = route({ role: "manager" }, async ({ db, workspace }) => ({ members: await listMembers(db, workspace.id) }));

export const POST = route({ role: "manager", body: addMemberSchema }, async ({ db, workspace, user, body }) =>
  created({ member: await addMember(db, workspace.id, { userId: user.id, role: workspace.role }, body) }),
);
