"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { passwordChangedSchema } from "@/lib/workspaces/workspace-schemas";
import { useApi } from "../providers";
import { ErrorNotice } from "../ui/error-notice";

/** Changes the signed-in person's password; their other browsers are signed out, this one stays. */
export function ChangePasswordForm() {
  const api = useApi();
  const [form, setForm] = useState({ currentPassword: "", newPassword: "" });
  const change = useMutation({
    mutationFn: () => api("/api/account/password", { method: "POST", body: form, schema: passwordChangedSchema }),
    onSuccess: () => setForm({ currentPassword: "", newPassword: "" }),
  });
  return (
    <form
      className="card max-w-md space-y-4 p-4"
      aria-label="Change password"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate();
      }}
    >
      <div>
        <label className="label" htmlFor="current-password">
          Current password
        </label>
        <input
          id="current-password"
          type="password"
          className="input"
          required
          autoComplete="current-password"
          value={form.currentPassword}
          onChange={(e) => setForm((f) => ({ ...f, currentPassword: e.target.value }))}
        />
      </div>
      <div>
        <label className="label" htmlFor="new-password">
          New password
        </label>
        <input
          id="new-password"
          type="password"
          className="input"
          required
          minLength={8}
          autoComplete="new-password"
          value={form.newPassword}
          onChange={(e) => setForm((f) => ({ ...f, newPassword: e.target.value }))}
        />
      </div>
      {change.isError ? (
        <ErrorNotice error={change.error} fallback="Something went wrong." />
      ) : null}
      {change.isSuccess ? (
        <p role="status" className="text-sm text-emerald-700">
          Password changed. {change.data.endedSessions > 0 ? `Signed out ${change.data.endedSessions} other session(s).` : ""}
        </p>
      ) : null}
      <button className="btn-primary" disabled={change.isPending}>
        {change.isPending ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
