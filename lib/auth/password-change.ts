import { z } from "zod";
import type { Db } from "../db/client";
import { recordAudit } from "../audit";
import { AppError } from "../errors";
import { generatePassword } from "../workspaces/passwords";
import { revokeUserSessions } from "./sessions";
import { signInThrottle } from "./throttle";
import { getUserByEmail, passwordSchema, setPassword, verifyCredentials, type PublicUser } from "../workspaces/users";

export const changePasswordSchema = z.object({ currentPassword: z.string().min(1).max(200), newPassword: passwordSchema });

/**
 * A signed-in person changes their own password. The current password is
 * checked under the sign-in throttle (a stolen session cannot guess it at
 * will); every other session of theirs ends, the one making the change stays.
 */
export async function changeOwnPassword(
  db: Db,
  user: PublicUser,
  input: z.infer<typeof changePasswordSchema>,
  currentSessionId: string | undefined,
): Promise<{ endedSessions: number }> {
  const throttle = signInThrottle(db);
  const keys = { email: user.email };
  const wait = await throttle.retryAfter(keys);
  if (wait > 0) throw new AppError("rate_limited:sign_in", `Too many attempts. Try again in ${wait} s.`, { details: { retryAfterSeconds: wait } });
  if (!(await verifyCredentials(db, user.email, input.currentPassword))) {
    await throttle.recordFailure(keys);
    throw new AppError("forbidden:password", "The current password is not right.");
  }
  await throttle.recordSuccess(keys);
  return db.transaction(async (tx) => {
    await setPassword(tx, user.id, input.newPassword);
    const endedSessions = await revokeUserSessions(tx, user.id, "password_changed", { except: currentSessionId });
    await recordAudit(tx, {
      workspaceId: null,
      actor: { kind: "user", id: user.id },
      action: "user.password_changed",
      target: { type: "user", id: user.id },
      detail: { endedSessions },
    });
    return { endedSessions };
  });
}

/**
 * The operator's reset from the shell: sets a new password (the given one or
 * a generated one), ends every session of that person, clears their sign-in
 * lock and records it. Returns the password only when it was generated.
 */
export async function resetPassword(
  db: Db,
  email: string,
  password?: string,
): Promise<{ user: PublicUser; generated?: string; endedSessions: number }> {
  const user = await getUserByEmail(db, email);
  if (!user) throw new AppError("not_found:user", `No account has the email ${email}.`);
  const chosen = password ?? generatePassword();
  const checked = passwordSchema.safeParse(chosen);
  if (!checked.success) throw new AppError("bad_request:password", checked.error.issues[0]?.message ?? "Not a valid password.");
  const result = await db.transaction(async (tx) => {
    await setPassword(tx, user.id, chosen);
    const endedSessions = await revokeUserSessions(tx, user.id, "password_reset");
    await recordAudit(tx, {
      workspaceId: null,
      actor: { kind: "system" },
      action: "user.password_reset",
      target: { type: "user", id: user.id },
      detail: { email: user.email, endedSessions, generated: password === undefined },
    });
    return endedSessions;
  });
  await signInThrottle(db).recordSuccess({ email: user.email });
  return { user: { id: user.id, email: user.email, name: user.name }, generated: password === undefined ? chosen : undefined, endedSessions: result };
}
