"use server";

import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { signIn, signInWait, SignInNeedsSso, SignInThrottled } from "@/lib/http/auth";
import { safeReturnPath } from "@/lib/http/return-path";
import { getServer } from "@/lib/server";
import { ssoRequiredSentence } from "./sign-in-errors";

export interface SignInState {
  error?: string;
  email?: string;
}

export async function signInAction(_prev: SignInState, form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "");
  const redirectTo = safeReturnPath(form.get("callbackUrl"));
  try {
    await signIn("credentials", { email, password: String(form.get("password") ?? ""), redirectTo });
    return {};
  } catch (error) {
    // Success is a redirect, thrown on purpose; only an authentication failure is answered here.
    if (error instanceof AuthError) {
      // The throttle's own record says whether this was a lockout (the error class may not survive bundling).
      const wait = error instanceof SignInThrottled ? error.retryAfter : await signInWait(email, await headers());
      if (wait > 0) return { error: `Too many attempts, try again in ${wait} s.`, email };
      if ((error as { code?: string }).code === "sso_required") return { error: ssoRequiredSentence((error as SignInNeedsSso).provider ?? null), email };
      return { error: "Wrong email or password.", email };
    }
    throw error;
  }
}

/** A "Sign in with …" button: off to that identity provider, and back to where the person was going. */
export async function ssoSignInAction(form: FormData): Promise<void> {
  const providers = (await getServer()).env.oidcProviders;
  const provider = providers.find((p) => p.id === form.get("provider"));
  if (!provider) return;
  await signIn(provider.id, { redirectTo: safeReturnPath(form.get("callbackUrl")) });
}
