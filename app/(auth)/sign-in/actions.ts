"use server";

import { AuthError } from "next-auth";
import { signIn, SignInThrottled } from "@/lib/http/auth";
import { safeReturnPath } from "@/lib/http/return-path";

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
    if (error instanceof SignInThrottled) return { error: `Too many attempts, try again in ${error.retryAfter} s.`, email };
    if (error instanceof AuthError) return { error: "Wrong email or password.", email };
    throw error;
  }
}
