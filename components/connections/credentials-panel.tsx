"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { settingsKeys } from "@/lib/client/query-keys";
import { credentialListSchema } from "@/lib/connections/connection-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { Time } from "../ui/time";

/**
 * Named credentials agents use through `http.request`: each is bound to the hosts it may go to, and its value is
 * written once and never shown again.
 */
export function CredentialsPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = settingsKeys.credentials(slug);
  const list = useQuery({ queryKey: key, queryFn: () => api("/api/credentials", { schema: credentialListSchema }) });
  const [name, setName] = useState("");
  const [hosts, setHosts] = useState("");
  const [value, setValue] = useState("");
  const save = useMutation({
    mutationFn: () =>
      api("/api/credentials", {
        method: "POST",
        body: { name, hosts: hosts.split(/[\s,]+/).filter(Boolean), value },
      }),
    onSuccess: () => {
      setName("");
      setHosts("");
      setValue("");
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/credentials/${id}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });

  return (
    <section className="card space-y-4 p-5" aria-labelledby="credentials-heading">
      <div>
        <h2 id="credentials-heading" className="font-semibold">
          Credentials for APIs
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          An agent with the <span className="font-mono">http.request</span> tool names a credential; the server attaches it, and only to the hosts you list. The
          agent never sees it, and what it sends with one waits for a reviewer.
        </p>
      </div>
      {list.data && list.data.credentials.length > 0 ? (
        <ul aria-label="Credentials" className="divide-y divide-slate-100 rounded-md ring-1 ring-slate-200">
          {list.data.credentials.map((c) => (
            <li key={c.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-sm">
              <span className="font-mono font-medium">{c.name}</span>
              <span className="min-w-0 text-slate-600">
                sent only to <span className="font-mono break-all">{c.hosts.join(", ")}</span> · added <Time at={c.createdAt} />
              </span>
              <button type="button" className="btn-danger ml-auto py-1 text-xs" disabled={remove.isPending} onClick={() => remove.mutate(c.id)} aria-label={`Delete the credential ${c.name}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : list.data ? (
        <p className="text-sm text-slate-500">No credentials yet.</p>
      ) : null}
      <form
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <div>
          <label className="label" htmlFor="credential-name">
            Name
          </label>
          <input id="credential-name" className="input" required pattern="[a-zA-Z0-9][a-zA-Z0-9_\-]{0,39}" title="1 to 40 letters, digits, dashes or underscores" placeholder="github" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div>
          <label className="label" htmlFor="credential-hosts">
            Hosts it may be sent to
          </label>
          <input id="credential-hosts" className="input" required placeholder="api.github.com" value={hosts} onChange={(e) => setHosts(e.target.value)} />
        </div>
        <div className="sm:col-span-2">
          <label className="label" htmlFor="credential-value">
            Value (sent as Authorization: Bearer …)
          </label>
          <input id="credential-value" className="input" type="password" autoComplete="off" required value={value} onChange={(e) => setValue(e.target.value)} />
        </div>
        {save.isError ? (
          <div className="sm:col-span-2">
            <ErrorNotice error={save.error} fallback="Could not save the credential." />
          </div>
        ) : null}
        <div>
          <button className="btn-primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save credential"}
          </button>
        </div>
      </form>
    </section>
  );
}
