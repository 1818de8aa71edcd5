"use server";

import { AuthError } from "next-auth";
import { redirect } from "next/navigation";
import { isAppError } from "@/lib/errors";
import { currentUser, signIn } from "@/lib/http/auth";
import { getServer } from "@/lib/server";
import { acceptAsNewAccountSchema, acceptInvitationAsNewAccount, acceptInvitationAsUser } from "@/lib/workspaces/invitations";

export interface AcceptState {
  error?: string;
  name?: string;
}

/** A new person: creates their account with the password they chose, signs them in and opens the workspace. */
export async function acceptAsNewAccountAction(token: string, _prev: AcceptState, form: FormData): Promise<AcceptState> {
  const name = String(form.get("name") ?? "");
  const parsed = acceptAsNewAccountSchema.safeParse({ token, name, password: String(form.get("password") ?? "") });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Check the form.", name };
  const { db } = await getServer();
  let slug: string;
  let email: string;
  try {
    const accepted = await acceptInvitationAsNewAccount(db, parsed.data);
    slug = accepted.workspace.slug;
    email = accepted.user.email;
  } catch (error) {
    if (isAppError(error)) return { error: error.message, name };
    throw error;
  }
  try {
    await signIn("credentials", { email, password: parsed.data.password, redirectTo: `/w/${slug}` });
  } catch (error) {
    // Success is a redirect, thrown on purpose; a refused sign-in sends the person to sign in by hand.
    if (error instanceof AuthError) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/w/${slug}`)}`);
    throw error;
  }
  return {};
}

/** A signed-in person joins with their own account. */
export async function joinAction(token: string): Promise<AcceptState> {
  const user = await currentUser();
  if (!user) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`);
  const { db } = await getServer();
  let slug: string;
  try {
    slug = (await acceptInvitationAsUser(db, user, token)).workspace.slug;
  } catch (error) {
    if (isAppError(error)) return { error: error.message };
    throw error;
  }
  redirect(`/w/${slug}`);
}
