"use client";

import { useActionState } from "react";
import { signInAction, type SignInState } from "./actions";
import { FormSubmit } from "@/components/forms/form-submit";

export function SignInForm({ returnTo }: { returnTo: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="callbackUrl" value={returnTo} />
      <div>
        <label className="label" htmlFor="email">
          Email
        </label>
        <input id="email" name="email" type="email" autoComplete="email" required defaultValue={state.email} className="input" />
      </div>
      <div>
        <label className="label" htmlFor="password">
          Password
        </label>
        <input id="password" name="password" type="password" autoComplete="current-password" required className="input" />
      </div>
      <FormSubmit error={state.error} pending={pending} label={"Sign in"} pendingLabel={"Signing in…"} />
    </form>
  );
}
