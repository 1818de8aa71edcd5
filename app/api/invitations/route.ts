import { created, route } from "@/lib/http/route";
import { createInvitation, createInvitationSchema, listPendingInvitations } from "@/lib/workspaces/invitations";

export const GET = route({ role: "manager" }, async ({ db, workspace }) => ({ invitations: await listPendingInvitations(db, workspace.id) }));

/** The token comes back once, here, for the inviter to pass on; only its hash is kept. */
export const POST = route({ role: "manager", body: createInvitationSchema }, async ({ req, db, workspace, user, body }) => {
  const { invitation, token } = await createInvitation(db, workspace.id, { userId: user.id, role: workspace.role }, body);
  const url = new URL(`/invite/${token}`, req.url).toString();
  return created({ id: invitation.id, url, token, invitation });
});
