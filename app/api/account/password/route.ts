import { changeOwnPassword, changePasswordSchema } from "@/lib/auth/password-change";
import { sessionIdFromRequest } from "@/lib/http/auth";
import { userRoute } from "@/lib/http/route";

/** Changes the signed-in person's password; their other sessions end. */
export const POST = userRoute({ body: changePasswordSchema }, async ({ req, db, user, body }) =>
  changeOwnPassword(db, user, body, await sessionIdFromRequest(req)),
);
