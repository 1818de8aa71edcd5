"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Role } from "@/lib/db/schema";
import { apiKeyCreatedSchema, apiKeyListSchema, type ApiKeyRow } from "@/lib/api-keys/api-key-schemas";
import { hasRole, roleLabels, roles } from "@/lib/access/role-names";
import { useApi, useWorkspace } from "../providers";
import { Time } from "../ui/time";
import { ErrorNotice } from "../ui/error-notice";
import { ShownOnce } from "../ui/shown-once";

const listKey = (slug: string) => ["api-keys", slug] as const;

function keyState(k: ApiKeyRow): string {
  if (k.revokedAt) return "revoked";
  if (k.expiresAt && new Date(k.expiresAt).getTime() <= Date.now()) return "expired";
  return "active";
}

/** The workspace's API keys, a form to make one (the key shown once, here), and revoking. */
export function ApiKeysPanel() {
  const api = useApi();
  const workspace = useWorkspace();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: listKey(workspace.slug), queryFn: () => api("/api/api-keys", { schema: apiKeyListSchema }) });
  const offered = roles.filter((r) => hasRole(workspace.role, r));
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [expiresAt, setExpiresAt] = useState("");
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: listKey(workspace.slug) });
  const create = useMutation({
    mutationFn: () =>
      api("/api/api-keys", {
        method: "POST",
        body: { name: name.trim(), role, ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}) },
        schema: apiKeyCreatedSchema,
      }),
    onSuccess: (made) => {
      setShown({ name: made.apiKey.name, key: made.key });
      setName("");
      setExpiresAt("");
    },
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: (k: ApiKeyRow) => api(`/api/api-keys/${k.id}`, { method: "DELETE" }),
    onSettled: refresh,
  });
  const keys = list.data?.keys ?? [];

  return (
    <div className="space-y-6">
      {shown ? (
        <ShownOnce label="The new API key" title={`Copy the key “${shown.name}” now`} what="the key" value={shown.key} testId="api-key-value" onDone={() => setShown(null)}>
          <p className="text-slate-700">
            It is shown only this once. Scripts send it as <code>Authorization: Bearer &lt;key&gt;</code>.
          </p>
        </ShownOnce>
      ) : null}

      <section className="card space-y-3 p-4" aria-labelledby="new-api-key-heading">
        <h2 id="new-api-key-heading" className="text-sm font-semibold">
          Make a key
        </h2>
        <form
          className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="flex min-w-0 flex-col text-sm sm:flex-1">
            Name
            <input className="input min-w-0" value={name} onChange={(e) => setName(e.target.value)} required maxLength={60} placeholder="nightly report" />
          </label>
          <label className="flex min-w-0 flex-col text-sm">
            Role
            <select className="input" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {offered.map((r) => (
                <option key={r} value={r}>
                  {roleLabels[r]}
                </option>
              ))}
            </select>
          </label>
          <label className="flex min-w-0 flex-col text-sm">
            Expires (optional)
            <input className="input min-w-0" type="datetime-local" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />
          </label>
          <button className="btn-primary self-start sm:self-auto" disabled={create.isPending || !name.trim()}>
            Make key
          </button>
        </form>
        <p className="text-xs text-slate-600">
          A key acts on your behalf, with the role you choose here (never more than yours). It stops working when it is revoked, when it expires, or when
          you leave the workspace. It cannot make what would outlive it (keys, invitations, door tokens, webhooks, credentials) or change
          sign-in settings.
        </p>
        {create.isError ? <ErrorNotice error={create.error} fallback="The key could not be made." /> : null}
      </section>

      <section className="card space-y-3 p-4" aria-labelledby="api-keys-heading">
        <h2 id="api-keys-heading" className="text-sm font-semibold">
          Keys
        </h2>
        {list.isError ? <ErrorNotice error={list.error} fallback="The keys could not be loaded." /> : null}
        {revoke.isError ? <ErrorNotice error={revoke.error} fallback="The key could not be revoked." /> : null}
        {keys.length === 0 ? (
          <p className="text-sm text-slate-600">{list.isPending ? "Loading…" : "No API keys yet: no script can use the API."}</p>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm">
            {keys.map((k) => (
              <li key={k.id} className="flex flex-wrap items-center justify-between gap-2 py-2" data-testid="api-key-row">
                <span className="min-w-0 wrap-anywhere">
                  <strong>{k.name}</strong> <code className="text-xs">{k.prefix}…</code> · {roleLabels[k.role].toLowerCase()} · {keyState(k)} · made by{" "}
                  {k.createdBy.name} <Time at={k.createdAt} /> · last used {k.lastUsedAt ? <Time at={k.lastUsedAt} /> : "never"}
                  {k.expiresAt && !k.revokedAt ? (
                    <>
                      {" · expires "}
                      <Time at={k.expiresAt} upcoming />
                    </>
                  ) : null}
                </span>
                {k.revokedAt ? null : confirming === k.id ? (
                  <span className="flex flex-wrap items-center gap-2" role="group" aria-label={`Revoke ${k.name}?`}>
                    <span className="text-xs text-slate-700">Scripts using it are refused from their next request.</span>
                    <button className="btn-danger py-1 text-xs" disabled={revoke.isPending} onClick={() => revoke.mutate(k, { onSettled: () => setConfirming(null) })}>
                      Revoke “{k.name}”
                    </button>
                    <button className="btn-secondary py-1 text-xs" onClick={() => setConfirming(null)}>
                      Keep it
                    </button>
                  </span>
                ) : (
                  <button className="btn-secondary py-1 text-xs" onClick={() => setConfirming(k.id)}>
                    Revoke…
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
