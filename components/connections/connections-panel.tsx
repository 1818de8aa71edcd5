"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, useSyncExternalStore } from "react";
import { settingsKeys } from "@/lib/client/query-keys";
import { connectionListSchema } from "@/lib/connections/connection-schemas";
import { useApi, useWorkspace } from "../providers";
import { Time } from "../ui/time";
import { ErrorNotice } from "../ui/error-notice";

export function ConnectionsPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = settingsKeys.connections(slug);
  const list = useQuery({ queryKey: key, queryFn: () => api("/api/connections", { schema: connectionListSchema }) });
  const [secret, setSecret] = useState("");
  const [signingSecret, setSigningSecret] = useState("");
  const save = useMutation({
    mutationFn: () =>
      api("/api/connections", {
        method: "POST",
        body: { provider: "slack", label: "default", ...(secret.trim() ? { secret: secret.trim() } : {}), ...(signingSecret.trim() ? { signingSecret: signingSecret.trim() } : {}) },
      }),
    onSuccess: () => {
      setSecret("");
      setSigningSecret("");
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/connections/${id}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const slack = list.data?.connections.find((c) => c.provider === "slack");
  const origin = useSyncExternalStore(
    () => () => undefined,
    () => window.location.origin,
    () => "",
  );
  const interactionsUrl = `${origin}/api/integrations/slack/interactions`;

  return (
    <section className="card space-y-4 p-5" aria-label="Slack connection">
      <div className="flex items-center justify-between">
        <h2 className="font-semibold">Slack</h2>
        {slack ? (
          <span className="rounded bg-emerald-50 px-2 py-0.5 text-xs text-emerald-700">Connected</span>
        ) : (
          <span className="rounded bg-slate-100 px-2 py-0.5 text-xs text-slate-600">Not connected: messages go to the Outbox</span>
        )}
      </div>
      {slack ? (
        <div className="flex items-center justify-between rounded-md bg-slate-50 px-3 py-2 text-sm">
          <span>
            Token saved · sent only to {slack.baseUrl} · updated <Time at={slack.updatedAt} />
            <br />
            {slack.hasSigningSecret
              ? "Signing secret saved: requests can reach reviewers in Slack with Approve and Reject buttons."
              : "No signing secret: agents can post, but requests do not reach reviewers in Slack until one is saved."}
          </span>
          <button className="btn-danger py-1 text-xs" disabled={remove.isPending} onClick={() => remove.mutate(slack.id)}>
            Disconnect
          </button>
        </div>
      ) : null}
      <form
        className="grid gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <div>
          <label className="label" htmlFor="slack-token">
            {slack ? "Replace the bot token (optional)" : "Bot token"}
          </label>
          <input
            id="slack-token"
            className="input"
            type="password"
            autoComplete="off"
            required={!slack}
            minLength={8}
            pattern="xoxb-[A-Za-z0-9\-]+"
            title="A Slack bot token starts with xoxb- and has only letters, digits and hyphens."
            placeholder="xoxb-…"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
        </div>
        <div>
          <label className="label" htmlFor="slack-signing-secret">
            {slack?.hasSigningSecret ? "Replace the signing secret (optional)" : "Signing secret (for Approve and Reject buttons in Slack)"}
          </label>
          <input
            id="slack-signing-secret"
            className="input"
            type="password"
            autoComplete="off"
            pattern="[0-9a-fA-F]{32}"
            title="A Slack signing secret is 32 letters and digits (0–9, a–f), on the app's Basic Information page."
            placeholder="From Basic Information"
            value={signingSecret}
            onChange={(e) => setSigningSecret(e.target.value)}
          />
          <p className="mt-1 text-xs text-slate-600">
            In the Slack app&apos;s settings, set the Interactivity request URL to <code className="break-all">{interactionsUrl}</code>. The app needs the{" "}
            <code>chat:write</code>, <code>im:write</code> and <code>users:read.email</code> permissions.
          </p>
        </div>
        {save.isError ? (
          <ErrorNotice error={save.error} fallback="Could not save." />
        ) : null}
        <div>
          <button className="btn-primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save connection"}
          </button>
        </div>
      </form>
    </section>
  );
}
