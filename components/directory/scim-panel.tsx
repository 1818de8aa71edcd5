"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { roleLabels } from "@/lib/access/role-names";
import { groupRoleValues, scimSettingsSchema, scimTokenCreatedSchema, type GroupRole, type ScimSettings } from "@/lib/scim/scim-schemas";
import { CopyButton } from "../ui/copy-button";
import { ShownOnce } from "../ui/shown-once";
import { useApi, useWorkspace } from "../providers";
import { ConfirmDialog } from "../ui/alert-dialog";
import { ErrorNotice } from "../ui/error-notice";
import { Time } from "../ui/time";
import { toast } from "../ui/toaster";

const key = (slug: string) => ["scim", slug] as const;

/** The directory (SCIM) settings: the address and token for the identity provider, and which groups give which roles. */
export function ScimPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: key(slug), queryFn: () => api("/api/workspace/scim", { schema: scimSettingsSchema }) });
  const [token, setToken] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: key(slug) });
  const make = useMutation({
    mutationFn: () => api("/api/workspace/scim-token", { method: "POST", schema: scimTokenCreatedSchema }),
    onSuccess: (made) => setToken(made.token),
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: () => api("/api/workspace/scim-token", { method: "DELETE" }),
    onSuccess: () => {
      setToken(null);
      toast.success("The token was revoked: the identity provider can no longer change anything here.");
    },
    onSettled: refresh,
  });
  if (settings.isError) return <ErrorNotice error={settings.error} fallback="The directory settings could not be loaded." />;
  const data = settings.data;
  const live = data?.token ?? null;

  return (
    <div className="space-y-6">
      <section className="card space-y-2 p-4" aria-label="Address for the identity provider">
        <h2 className="text-sm font-semibold">Address for the identity provider</h2>
        <p className="text-sm text-slate-700">Paste this as the SCIM base URL (Okta), tenant URL (Entra ID) or endpoint of your identity provider.</p>
        {data ? (
          <div className="flex flex-wrap items-center gap-2">
            <code className="min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1 text-sm text-slate-900" data-testid="scim-base-url">
              {data.baseUrl}
            </code>
            <CopyButton text={data.baseUrl} what="the SCIM address" />
          </div>
        ) : null}
      </section>

      {token ? (
        <ShownOnce label="The new SCIM token" title="Copy the token now" what="the token" value={token} testId="scim-token" onDone={() => setToken(null)}>
          <p className="text-slate-700">It is shown only this once. Give it to the identity provider as its bearer token (API token, secret token).</p>
        </ShownOnce>
      ) : null}

      <section className="card space-y-3 p-4" aria-label="Token">
        <h2 className="text-sm font-semibold">Token</h2>
        {data && !live ? <p className="text-sm text-slate-600">No token: the identity provider cannot change anything here.</p> : null}
        {live ? (
          <p className="text-sm text-slate-700 wrap-anywhere">
            A token starting <code>{live.prefix}…</code> was made <Time at={live.createdAt} />;{" "}
            {live.lastUsedAt ? (
              <>
                the identity provider last used it <Time at={live.lastUsedAt} />.
              </>
            ) : (
              "the identity provider has not used it yet."
            )}
          </p>
        ) : null}
        {make.isError ? <ErrorNotice error={make.error} fallback="The token was not made." /> : null}
        {revoke.isError ? <ErrorNotice error={revoke.error} fallback="The token was not revoked." /> : null}
        <div className="flex flex-wrap gap-2">
          {live ? (
            <>
              <ConfirmDialog
                trigger={
                  <button type="button" className="btn-secondary" disabled={make.isPending}>
                    Make a new token
                  </button>
                }
                title="Make a new token?"
                description="The current token stops working at once: the identity provider needs the new one before it can provision anyone again."
                confirmLabel="Make a new token"
                destructive={false}
                onConfirm={() => make.mutate()}
              />
              <ConfirmDialog
                trigger={
                  <button type="button" className="btn-danger" disabled={revoke.isPending}>
                    Revoke
                  </button>
                }
                title="Revoke the token?"
                description="The identity provider can no longer add, change or remove anyone here. People it added stay members."
                confirmLabel="Revoke"
                onConfirm={() => revoke.mutate()}
              />
            </>
          ) : (
            <button type="button" className="btn-primary" disabled={make.isPending || !data} onClick={() => make.mutate()}>
              {make.isPending ? "Making…" : "Make a token"}
            </button>
          )}
        </div>
      </section>

      {data ? <GroupRolesForm settings={data} onSaved={refresh} /> : null}
    </div>
  );
}

type Row = { name: string; role: GroupRole };

/** Group name → role, edited as rows and saved together. */
function GroupRolesForm({ settings, onSaved }: { settings: ScimSettings; onSaved: () => void }) {
  const api = useApi();
  const [rows, setRows] = useState<Row[]>(() => Object.entries(settings.groupRoles).map(([name, role]) => ({ name, role })));
  const save = useMutation({
    mutationFn: () =>
      api("/api/workspace/scim", {
        method: "PUT",
        body: { groupRoles: Object.fromEntries(rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.role])) },
        schema: scimSettingsSchema,
      }),
    onSuccess: (saved) => {
      setRows(Object.entries(saved.groupRoles).map(([name, role]) => ({ name, role })));
      toast.success("Saved: everyone the identity provider added now has the role their groups give.");
      onSaved();
    },
  });
  const change = (i: number, row: Partial<Row>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...row } : r)));

  return (
    <form
      className="card space-y-3 p-4"
      aria-label="Roles from groups"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}>
      <h2 className="text-sm font-semibold">Roles from groups</h2>
      <p className="text-sm text-slate-700">
        A person the identity provider adds gets the highest role among their groups below, or Member. Owners stay owners; only an owner makes another owner, under
        Members.
      </p>
      {rows.length === 0 ? <p className="text-sm text-slate-600">No group gives a role yet: everyone added is a Member.</p> : null}
      <ul className="space-y-2">
        {rows.map((row, i) => (
          <li key={i} className="flex flex-wrap items-end gap-2" data-testid="group-role">
            <label className="min-w-40 flex-1 space-y-1 text-sm">
              <span className="label">Group name</span>
              <input className="input" required maxLength={200} placeholder="clawdeck-reviewers" value={row.name} onChange={(e) => change(i, { name: e.target.value })} />
            </label>
            <label className="space-y-1 text-sm">
              <span className="label">Role</span>
              <select className="input" value={row.role} onChange={(e) => change(i, { role: e.target.value as GroupRole })}>
                {groupRoleValues.map((role) => (
                  <option key={role} value={role}>
                    {roleLabels[role]}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="btn-secondary" aria-label={`Remove the group ${row.name || "without a name"}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {save.isError ? <ErrorNotice error={save.error} fallback="The roles were not saved." /> : null}
      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn-secondary" onClick={() => setRows([...rows, { name: "", role: "reviewer" }])}>
          Add a group
        </button>
        <button type="submit" className="btn-primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save roles"}
        </button>
      </div>
    </form>
  );
}
