"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { doorKeys } from "@/lib/client/query-keys";
import { doorTokenCreatedSchema, doorTokenListSchema, type DoorTokenRow } from "@/lib/door/door-schemas";
import { useApi, useWorkspace } from "../providers";
import { Time } from "../ui/time";
import { ErrorNotice } from "../ui/error-notice";
import { DoorSetup } from "./door-setup";
import { ShownOnce } from "../ui/shown-once";

function tokenState(t: DoorTokenRow): string {
  if (t.revokedAt) return "revoked";
  if (t.expiresAt && new Date(t.expiresAt).getTime() <= Date.now()) return "expired";
  return "active";
}

/**
 * Door tokens: one agent's (with a form to make one) or, without `agentId`,
 * every token of the workspace. A new token is shown once, here.
 */
export function DoorTokensPanel({ agentId }: { agentId?: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = doorKeys.tokens(slug, agentId);
  const url = agentId ? `/api/agents/${agentId}/door-tokens` : "/api/door-tokens";
  const list = useQuery({ queryKey: key, queryFn: () => api(url, { schema: doorTokenListSchema }) });
  const [name, setName] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: doorKeys.all(slug) });
  const create = useMutation({
    mutationFn: () =>
      api(url, {
        method: "POST",
        body: { name, ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}) },
        schema: doorTokenCreatedSchema,
      }),
    onSuccess: (made) => {
      setShown({ name, token: made.token });
      setName("");
      setExpiresAt("");
    },
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: (t: DoorTokenRow) => api(`/api/agents/${t.agentId}/door-tokens/${t.id}`, { method: "DELETE" }),
    onSettled: refresh,
  });
  const tokens = list.data?.tokens ?? [];

  return (
    <section className="card space-y-3 p-4" aria-labelledby="door-tokens-heading" data-testid="door-tokens">
      <h2 id="door-tokens-heading" className="font-semibold">
        Door tokens
      </h2>
      <p className="text-sm text-slate-600">
        An agent outside Clawdeck (Claude Code, Cursor, a script) connects to the door with a token and acts as
        {agentId ? " this agent" : " its agent"}, under the same policy and approvals.
      </p>
      {shown ? (
        <div data-testid="door-token-shown" className="space-y-2">
          <ShownOnce label="The new door token" title={`Copy the token “${shown.name}” now: it is not shown again.`} what="the token" value={shown.token} testId="door-token-value" onDone={() => setShown(null)} doneText="Done">
            <DoorSetup token={shown.token} />
          </ShownOnce>
        </div>
      ) : (
        <details className="text-sm">
          <summary className="cursor-pointer text-indigo-700">How to connect a client</summary>
          <div className="mt-2">
            <DoorSetup />
          </div>
        </details>
      )}
      {agentId ? (
        // Stacked on a phone, where the date field alone nearly fills the width; side by side from `sm` up.
        <form
          className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="flex min-w-0 flex-col text-sm sm:flex-1">
            Name
            <input className="input min-w-0" value={name} onChange={(e) => setName(e.target.value)} required maxLength={60} placeholder="laptop-claude-code" />
          </label>
          <label className="flex min-w-0 flex-col text-sm">
            Expires (optional)
            <input className="input min-w-0" type="datetime-local" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />
          </label>
          <button className="btn-primary self-start sm:self-auto" disabled={create.isPending || !name.trim()}>
            Create token
          </button>
        </form>
      ) : null}
      {revoke.isError ? <ErrorNotice error={revoke.error} fallback="The token could not be revoked." /> : null}
      {create.isError ? (
        <ErrorNotice error={create.error} fallback="The token could not be made." />
      ) : null}
      {tokens.length === 0 ? (
        <p className="text-sm text-slate-500">{list.isPending ? "Loading…" : "No door tokens yet."}</p>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm">
          {tokens.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center justify-between gap-2 py-2" data-testid="door-token-row">
              <span className="min-w-0 break-words">
                <strong>{t.name}</strong> <code className="text-xs">{t.prefix}…</code>
                {agentId ? "" : ` · @${t.agentHandle}`} · {tokenState(t)} · {t.callCount} {t.callCount === 1 ? "call" : "calls"} · last used{" "}
                {t.lastUsedAt ? <Time at={t.lastUsedAt} /> : "never"}
                {t.expiresAt ? (
                  <>
                    {" · expires "}
                    <Time at={t.expiresAt} upcoming />
                  </>
                ) : null}
                {t.createdBy ? ` · made by ${t.createdBy}` : ""}
              </span>
              {t.revokedAt ? null : confirming === t.id ? (
                <span className="flex flex-wrap items-center gap-2" role="group" aria-label={`Revoke ${t.name}?`}>
                  <span className="text-xs text-slate-700">Clients using it stop at their next call.</span>
                  <button
                    className="btn-danger py-1 text-xs"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate(t, { onSettled: () => setConfirming(null) })}>
                    Revoke “{t.name}”
                  </button>
                  <button className="btn-secondary py-1 text-xs" onClick={() => setConfirming(null)}>
                    Keep it
                  </button>
                </span>
              ) : (
                <button className="btn-secondary py-1 text-xs" onClick={() => setConfirming(t.id)}>
                  Revoke…
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
