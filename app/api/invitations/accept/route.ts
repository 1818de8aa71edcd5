import { AppError } from "@/lib/errors";
import { userFromRequest } from "@/lib/http/auth";
import { errorResponse } from "@/lib/http/errors";
import { created } from "@/lib/http/route";
import { getServer } from "@/lib/server";
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

/**
 * Accepts an invitation with its token: `{token, name, password}` creates the
 * new person's account with the password they chose; `{token}` alone, from a
 * signed-in session, joins that account. Any unusable token gets one answer.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    if (!(req.headers.get("content-type") ?? "").includes("application/json")) {
      throw new AppError("bad_request:content_type", "Send the body as application/json.");
    }
    const raw: unknown = await req.json().catch(() => {
      throw new AppError("bad_request:json", "The body is not valid JSON.");
    });
    const { db } = await getServer();
    const asNew = acceptAsNewAccountSchema.safeParse(raw);
    if (asNew.success) return answer(await acceptInvitationAsNewAccount(db, asNew.data));
    const asUser = acceptAsSignedInSchema.strict().safeParse(raw);
    if (!asUser.success) {
      const issues = (asNew.error ?? asUser.error).issues;
      throw new AppError("bad_request:body", `Invalid body: ${issues[0]?.message ?? "bad value"}`, {
        details: issues.map((i) => ({ path: i.path.join("."), message: i.message })),
      });
    }
    const user = await userFromRequest(req);
    if (!user) throw new AppError("unauthorized:session", "Sign in to accept this invitation with your account, or choose a name and password.");
    return answer(await acceptInvitationAsUser(db, user, asUser.data.token));
  } catch (error) {
    return errorResponse(error);
  }
}
