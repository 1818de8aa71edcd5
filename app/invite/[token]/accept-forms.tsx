"use client";

import { useActionState } from "react";
import { acceptAsNewAccountAction, joinAction, type AcceptState } from "./actions";
import { FormSubmit } from "@/components/forms/form-submit";

export function NewAccountForm({ token, email }: { token: string; email: string }) {
  const [state, action, pending] = useActionState<AcceptState, FormData>(acceptAsNewAccountAction.bind(null, token), {});
  return (
    <form action={action} className="space-y-4" aria-label="Create your account">
      <div>
        <label className="label" htmlFor="invite-email">
          Email
        </label>
        <input id="invite-email" className="input bg-slate-50" value={email} readOnly />
      </div>
      <div>
        <label className="label" htmlFor="name">
          Your name
        </label>
        <input id="name" name="name" className="input" required maxLength={100} autoComplete="name" defaultValue={state.name} />
      </div>
      <div>
        <label className="label" htmlFor="password">
          Choose a password
        </label>
        <input id="password" name="password" type="password" className="input" required minLength={8} autoComplete="new-password" />
        <p className="mt-1 text-xs text-slate-500">At least 8 characters. Only you will know it.</p>
      </div>
      <FormSubmit error={state.error} pending={pending} label={"Create account and join"} pendingLabel={"Creating your account…"} />
    </form>
  );
}

export function JoinForm({ token, workspaceName }: { token: string; workspaceName: string }) {
  const [state, action, pending] = useActionState<AcceptState, FormData>(() => joinAction(token), {});
  return (
    <form action={action} className="space-y-4">
      <FormSubmit error={state.error} pending={pending} label={`Join ${workspaceName}`} pendingLabel={"Joining…"} />
    </form>
  );
}
