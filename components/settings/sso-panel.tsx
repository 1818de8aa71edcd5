"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { domainRoleSchema, ssoStateSchema, type SsoBody } from "@/lib/auth/sso-schemas";
import { roleDescriptions, roleLabels } from "@/lib/access/role-names";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { toast } from "../ui/toaster";

type DomainRole = SsoBody["domains"][number]["role"];
const domainRoles = domainRoleSchema.options;

/** Require single sign-on, and the email domains whose people join at their first sign-in (owners). */
export function SsoPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = ["sso", slug] as const;
  const state = useQuery({ queryKey: key, queryFn: () => api("/api/workspace/sso", { schema: ssoStateSchema }) });
  const [draft, setDraft] = useState<SsoBody | null>(null);
  const [domain, setDomain] = useState("");
  const [role, setRole] = useState<DomainRole>("member");
  const save = useMutation({
    mutationFn: (body: SsoBody) => api("/api/workspace/sso", { method: "PUT", body, schema: ssoStateSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, saved);
      setDraft(null);
      toast.success("Single sign-on settings saved.");
    },
  });

  if (state.isError) return <ErrorNotice error={state.error} fallback="The single sign-on settings could not be loaded." />;
  if (!state.data) return <p className="text-sm text-slate-600">Loading…</p>;
  const { providers, linked } = state.data;
  const current: SsoBody = draft ?? { required: state.data.required, domains: state.data.domains };
  const change = (next: Partial<SsoBody>) => setDraft({ ...current, ...next });
  const names = providers.map((p) => p.label).join(", ");

  return (
    <form
      className="space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(current);
      }}
    >
      <section className="card space-y-2 p-4" aria-label="Identity providers">
        <h2 className="text-sm font-semibold">Identity providers</h2>
        <p className="text-sm text-slate-700">
          {providers.length > 0
            ? `This server offers sign-in with ${names}. ${linked ? "You have signed in through it." : "You have not signed in through it yet."}`
            : "This server offers no identity provider yet: the server's operator adds one in its settings (see the README)."}
        </p>
      </section>

      <section className="card space-y-3 p-4" aria-label="Require single sign-on">
        <label className="flex items-start gap-3 text-sm">
          <input type="checkbox" className="mt-1" checked={current.required} onChange={(e) => change({ required: e.target.checked })} />
          <span>
            <span className="font-medium">Require single sign-on</span>
            <span className="block text-slate-600">
              People of this workspace sign in through the identity provider; their passwords are refused. Owners keep their password for emergencies,
              and each such sign-in is recorded in the audit log. Someone who also belongs to another workspace signs in through the provider there too.
            </span>
          </span>
        </label>
        {current.required && !linked && providers.length > 0 ? (
          <p className="text-sm text-amber-700">Sign out and sign in once with {names} before requiring it, so that you cannot lock yourself out.</p>
        ) : null}
      </section>

      <section className="card space-y-3 p-4" aria-label="Email domains">
        <h2 className="text-sm font-semibold">Email domains</h2>
        <p className="text-sm text-slate-600">
          Someone whose identity provider confirms an address at one of these domains joins this workspace the first time they sign in, with the
          role you choose here. Invitations work as well, with the invitation&apos;s role. The identity provider&apos;s SCIM (Settings → Directory) provisions only people of these domains.
        </p>
        {current.domains.length === 0 ? <p className="text-sm text-slate-600">No domains: only invited people join.</p> : null}
        <ul className="space-y-2" aria-label="Domains">
          {current.domains.map((d) => (
            <li key={d.domain} className="flex flex-wrap items-center gap-2 text-sm">
              <span className="min-w-0 flex-1 break-all font-medium">{d.domain}</span>
              <RoleSelect
                label={`Role for ${d.domain}`}
                value={d.role}
                onChange={(next) => change({ domains: current.domains.map((x) => (x.domain === d.domain ? { ...x, role: next } : x)) })}
              />
              <button type="button" className="btn-secondary py-1 text-xs" onClick={() => change({ domains: current.domains.filter((x) => x.domain !== d.domain) })}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <div className="flex flex-wrap items-end gap-2">
          <label className="min-w-48 flex-1 space-y-1 text-sm">
            <span className="label">Domain</span>
            <input className="input" placeholder="example.com" value={domain} onChange={(e) => setDomain(e.target.value)} />
          </label>
          <RoleSelect label="Role for the new domain" value={role} onChange={setRole} />
          <button
            type="button"
            className="btn-secondary"
            disabled={domain.trim() === "" || current.domains.some((d) => d.domain === domain.trim().toLowerCase())}
            onClick={() => {
              change({ domains: [...current.domains, { domain: domain.trim().toLowerCase(), role }] });
              setDomain("");
            }}
          >
            Add domain
          </button>
        </div>
      </section>

      {save.isError ? <ErrorNotice error={save.error} fallback="The single sign-on settings were not saved." /> : null}
      <button type="submit" className="btn-primary" disabled={save.isPending || draft === null}>
        {save.isPending ? "Saving…" : "Save"}
      </button>
    </form>
  );
}

function RoleSelect({ label, value, onChange }: { label: string; value: DomainRole; onChange: (role: DomainRole) => void }) {
  return (
    <select className="input w-auto" aria-label={label} value={value} onChange={(e) => onChange(domainRoleSchema.parse(e.target.value))}>
      {domainRoles.map((r) => (
        <option key={r} value={r} title={roleDescriptions[r]}>
          {roleLabels[r]}
        </option>
      ))}
    </select>
  );
}
