import type { Env } from "@/lib/env";
import { originPolicyFromEnv } from "@/lib/http/origin";
import { created, route } from "@/lib/http/route";
import { logError } from "@/lib/log";
import { mailFailure } from "@/lib/mail/mailer";
import { invitationMail } from "@/lib/workspaces/invitation-mail";
import { invitationCreatedSchema, invitationListSchema } from "@/lib/workspaces/workspace-schemas";
import { createInvitation, createInvitationSchema, limitInvitations, listPendingInvitations } from "@/lib/workspaces/invitations";

export const GET = route({ doc: { summary: "pending invitations (never their tokens)" }, can: "members.manage", response: invitationListSchema }, async ({ db, workspace }) => ({
  invitations: await listPendingInvitations(db, workspace.id),
}));

/**
 * The site's address for the link: the configured origin when there is one;
 * else the address the inviter reached us at (a route handler's own URL names
 * the bind address), reading forwarded headers only behind a trusted proxy.
 */
function publicOrigin(req: Request, env: Env): string {
  const configured = originPolicyFromEnv(env).origins[0];
  if (configured) return configured;
  const own = new URL(req.url);
  const trusted = env.CLAWDECK_TRUSTED_PROXIES > 0;
  const first = (name: string) => req.headers.get(name)?.split(",")[0]?.trim();
  const host = (trusted ? first("x-forwarded-host") : undefined) ?? first("host") ?? own.host;
  const proto = (trusted ? first("x-forwarded-proto") : undefined) ?? own.protocol.replace(":", "");
  if (!/^https?$/.test(proto) || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return own.origin;
  return `${proto}://${host}`;
}

const inviteDoc = {
  summary:
    "201 `{id, url, token, emailed, emailError}`: the link and token are shown this once; with `CLAWDECK_SMTP_URL` set the link is also emailed to the address (`emailed`; a failed send is said in `emailError` and changes nothing else); the same answer whether or not the email has an account; an address with a pending invitation gets 409 `conflict:invitation` (`details: {invitationId, role, expiresAt}`) unless `replace: true`, which revokes that one and makes this one; at most `CLAWDECK_INVITATIONS_PER_HOUR` per person, then 429",
  role: "manager (owner to invite an owner)",
};

/** The token comes back once, here, for the inviter to pass on; only its hash is kept. */
export const POST = route(
  { apiKeys: false, doc: inviteDoc, can: "members.manage", body: createInvitationSchema, response: invitationCreatedSchema },
  async ({ req, server, db, workspace, user, body }) => {
    await limitInvitations(server.db, user.id, server.env.CLAWDECK_INVITATIONS_PER_HOUR);
    const { invitation, token } = await createInvitation(db, workspace.id, { userId: user.id, role: workspace.role }, body);
    const url = `${publicOrigin(req, server.env)}/invite/${token}`;
    // Emailed too when the operator configured a mail server; a failed send leaves the invitation and its link as they are.
    let emailed = false;
    let emailError: string | null = null;
    if (server.mailer) {
      try {
        await server.mailer.send(invitationMail({ to: invitation.email, inviter: user, workspaceName: workspace.name, role: invitation.role, url, expiresAt: invitation.expiresAt }));
        emailed = true;
      } catch (error) {
        emailError = mailFailure(error);
        logError("The invitation email was not sent", error);
      }
    }
    return created({ id: invitation.id, url, token, emailed, emailError, invitation });
  },
);
