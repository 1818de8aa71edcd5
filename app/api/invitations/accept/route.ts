import { z } from "zod";
import { AppError } from "@/lib/errors";
import { created, publicRoute } from "@/lib/http/route";
import {
  acceptAsNewAccountSchema,
  acceptAsSignedInSchema,
  acceptInvitationAsNewAccount,
  acceptInvitationAsUser,
  type AcceptedInvitation,
} from "@/lib/workspaces/invitations";

function answer(accepted: AcceptedInvitation): Response {
  return created({ workspace: accepted.workspace, role: accepted.role, user: accepted.user });
}

const body = z.union([acceptAsNewAccountSchema, acceptAsSignedInSchema.strict()]);

const doc = {
  summary:
    "201: a new account with the password its owner chose, or the signed-in account joins; used, expired, revoked and unknown tokens all get 404 `not_found:invitation`",
  role: "anyone with the token; `{token}` alone needs a signed-in session",
};

/**
 * Accepts an invitation with its token: `{token, name, password}` creates the
 * new person's account with the password they chose; `{token}` alone, from a
 * signed-in session, joins that account. Any unusable token gets one answer.
 */
export const POST = publicRoute({ doc, body }, async ({ db, user, body }) => {
  if ("password" in body) return answer(await acceptInvitationAsNewAccount(db, body));
  if (!user) throw new AppError("unauthorized:session", "Sign in to accept this invitation with your account, or choose a name and password.");
  return answer(await acceptInvitationAsUser(db, user, body.token));
});
