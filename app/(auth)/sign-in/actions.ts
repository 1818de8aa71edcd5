"use server";

import { AuthError } from "next-auth";
import { signIn } from "@/lib/http/auth";

export interface SignInState {
  error?: string;
  email?: string;
}

export async function signInAction(_prev: SignInState, form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "");
  try {
    await signIn("credentials", { email, password: String(form.get("password") ?? ""), redirectTo: "/" });
    return {};
  } catch (error) {
    // Success is a redirect, thrown on purpose; only an authentication failure is answered here.
    if (error instanceof AuthError) return { error: "Wrong email or password.", email };
    throw error;
  }
}
