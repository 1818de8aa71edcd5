"use client";

import { useActionState } from "react";
import { acceptAsNewAccountAction, joinAction, type AcceptState } from "./actions";

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
      {state.error ? (
        <p role="alert" className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700">
          {state.error}
        </p>
      ) : null}
      <button type="submit" className="btn-primary w-full" disabled={pending}>
        {pending ? "Creating your account…" : "Create account and join"}
      </button>
    </form>
  );
}

export function JoinForm({ token, workspaceName }: { token: string; workspaceName: string }) {
  const [state, action, pending] = useActionState<AcceptState, FormData>(() => joinAction(token), {});
  return (
    <form action={action} className="space-y-4">
      {state.error ? (
        <p role="alert" className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700">
          {state.error}
        </p>
      ) : null}
      <button type="submit" className="btn-primary w-full" disabled={pending}>
        {pending ? "Joining…" : `Join ${workspaceName}`}
      </button>
    </form>
  );
}
