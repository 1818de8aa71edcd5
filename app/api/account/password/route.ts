import { changeOwnPassword, changePasswordSchema } from "@/lib/auth/password-change";
import { sessionIdFromRequest } from "@/lib/http/auth";
import { userRoute } from "@/lib/http/route";
import { passwordChangedSchema } from "@/lib/workspaces/workspace-schemas";

/** Changes the signed-in person's password; their other sessions end. */
export const POST = userRoute(
  { doc: { summary: "change your password; your other sessions end" }, body: changePasswordSchema, response: passwordChangedSchema },
  async ({ req, db, user, body }) => changeOwnPassword(db, user, body, await sessionIdFromRequest(req)),
);
