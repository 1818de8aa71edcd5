import { created, route } from "@/lib/http/route";
import { createInvitation, createInvitationSchema, listPendingInvitations } from "@/lib/workspaces/invitations";

export const GET = route({ role: "manager" }, async ({ db, workspace }) => ({ invitations: await listPendingInvitations(db, workspace.id) }));

/** The address the inviter reached us at (a route handler's own URL names the server's bind address, not the site). */
function publicOrigin(req: Request): string {
  const own = new URL(req.url);
  const first = (name: string) => req.headers.get(name)?.split(",")[0]?.trim();
  const host = first("x-forwarded-host") ?? first("host") ?? own.host;
  const proto = first("x-forwarded-proto") ?? own.protocol.replace(":", "");
  if (!/^https?$/.test(proto) || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return own.origin;
  return `${proto}://${host}`;
}

/** The token comes back once, here, for the inviter to pass on; only its hash is kept. */
export const POST = route({ role: "manager", body: createInvitationSchema }, async ({ req, db, workspace, user, body }) => {
  const { invitation, token } = await createInvitation(db, workspace.id, { userId: user.id, role: workspace.role }, body);
  const url = `${publicOrigin(req)}/invite/${token}`;
  return created({ id: invitation.id, url, token, invitation });
});
