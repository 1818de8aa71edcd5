"use client";

import { can } from "@/lib/access/capabilities";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { isAppError } from "@/lib/errors";
import { useState } from "react";
import type { Role } from "@/lib/db/schema";
import { roleDescriptions, roleLabels, roles } from "@/lib/access/role-names";
import { ConfirmDialog } from "../ui/alert-dialog";
import { settingsKeys } from "@/lib/client/query-keys";
import { invitationCreatedSchema, invitationListSchema, memberListSchema } from "@/lib/workspaces/workspace-schemas";
import { useApi, useWorkspace } from "../providers";
import { Time } from "../ui/time";
import { ErrorNotice } from "../ui/error-notice";

export function MembersPanel({ currentUserId }: { currentUserId: string }) {
  const api = useApi();
  const workspace = useWorkspace();
  const queryClient = useQueryClient();
  const key = settingsKeys.members(workspace.slug);
  const invitationsKey = settingsKeys.invitations(workspace.slug);
  const members = useQuery({ queryKey: key, queryFn: () => api("/api/members", { schema: memberListSchema }) });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: key });

  const changeRole = useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) =>
      api(`/api/members/${userId}`, { method: "PATCH", body: { role } }),
    onSettled: invalidate,
  });
  const remove = useMutation({
    mutationFn: (userId: string) => api(`/api/members/${userId}`, { method: "DELETE" }),
    onSettled: invalidate,
  });
  const assignable = roles.filter((r) => r !== "owner" || can(workspace.role, "owners.manage"));
  const rowError = changeRole.error ?? remove.error;

  return (
    <div className="space-y-6">
      <InviteForm assignable={assignable} onInvited={() => queryClient.invalidateQueries({ queryKey: invitationsKey })} />
      <PendingInvitations queryKey={invitationsKey} />
      <section className="card overflow-hidden" aria-label="Members">
        {members.isPending ? (
          <p className="p-4 text-sm text-slate-500">Loading members…</p>
        ) : members.isError ? (
          <ErrorNotice className="p-4" error={members.error} fallback="Could not load the members." />
        ) : (
          <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-2 py-2 font-medium sm:px-4">Name</th>
                <th className="hidden px-4 py-2 font-medium sm:table-cell">Email</th>
                <th className="px-2 py-2 font-medium sm:px-4">Role</th>
                <th className="px-2 py-2 sm:px-4">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {members.data.members.map((m, _, all) => {
                // The only owner can neither leave nor be made something else: a workspace keeps at least one owner.
                const onlyOwner = m.role === "owner" && all.filter((x) => x.role === "owner").length === 1;
                const locked = (m.role === "owner" && !can(workspace.role, "owners.manage")) || onlyOwner;
                return (
                  <tr key={m.userId} data-testid={`member-${m.email}`}>
                    <td className="px-2 py-2 font-medium wrap-anywhere sm:px-4">
                      {m.name}
                      {m.userId === currentUserId ? <span className="ml-2 text-xs text-slate-500">(you)</span> : null}
                      {onlyOwner ? (
                        <span className="ml-2 text-xs font-normal text-slate-600" data-testid="only-owner">
                          the only owner: make someone else an owner to change this
                        </span>
                      ) : null}
                      <span className="block text-xs font-normal wrap-anywhere text-slate-600 sm:hidden">{m.email}</span>
                    </td>
                    <td className="hidden px-4 py-2 text-slate-600 wrap-anywhere sm:table-cell">{m.email}</td>
                    <td className="px-2 py-2 sm:px-4">
                      <select
                        aria-label={`Role of ${m.email}`}
                        className="input w-28 py-1 sm:w-36"
                        value={m.role}
                        disabled={locked || changeRole.isPending}
                        onChange={(e) => changeRole.mutate({ userId: m.userId, role: e.target.value as Role })}
                      >
                        {(locked ? roles : assignable).map((r) => (
                          <option key={r} value={r}>
                            {roleLabels[r]}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td className="px-2 py-2 text-right sm:px-4">
                      <ConfirmDialog
                        trigger={
                          <button className="btn-danger py-1 text-xs" disabled={locked || remove.isPending}>
                            Remove
                          </button>
                        }
                        title={`Remove ${m.name}?`}
                        description={`${m.name} (${m.email}) loses access to ${workspace.name} at once. You can invite them again later.`}
                        confirmLabel="Remove"
                        onConfirm={() => remove.mutate(m.userId)}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          </div>
        )}
        {rowError ? (
          <ErrorNotice error={rowError} fallback="Something went wrong." className="border-t border-rose-100 bg-rose-50 px-4 py-2" />
        ) : null}
      </section>
      <section className="text-xs text-slate-500">
        <ul className="grid gap-1 sm:grid-cols-2">
          {roles.map((r) => (
            <li key={r}>
              <span className="font-medium text-slate-700">{roleLabels[r]}</span>: {roleDescriptions[r]}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

/**
 * Invites by email and role. The link comes back once: it is shown here to
 * copy and pass on privately, and cannot be shown again (only its hash is kept).
 */
function InviteForm({ assignable, onInvited }: { assignable: readonly Role[]; onInvited: () => void }) {
  const api = useApi();
  // The pending invitations of the address are replaced only by someone who may grant each of their roles.
  const mayReplace = (details: unknown) => {
    const waiting = (details as { roles?: Role[] } | undefined)?.roles ?? [];
    return waiting.every((r) => assignable.includes(r));
  };
  const [form, setForm] = useState({ email: "", role: "member" as Role });
  const [link, setLink] = useState<{ email: string; url: string; emailed: boolean; emailError: string | null } | null>(null);
  const [copied, setCopied] = useState(false);
  const invite = useMutation({
    mutationFn: (replace: boolean) => api("/api/invitations", { method: "POST", body: { ...form, ...(replace ? { replace } : {}) }, schema: invitationCreatedSchema }),
    onSuccess: (res) => {
      setLink({ email: form.email, url: res.url, emailed: res.emailed ?? false, emailError: res.emailError ?? null });
      setCopied(false);
      setForm({ email: "", role: "member" });
      onInvited();
    },
  });
  const set = (field: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setForm((f) => ({ ...f, [field]: e.target.value }));

  return (
    <section className="card space-y-3 p-4">
      <form
        className="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end"
        aria-label="Invite someone"
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate(false);
        }}
      >
        <div>
          <label className="label" htmlFor="invite-email">
            Email
          </label>
          <input id="invite-email" className="input" type="email" required value={form.email} onChange={set("email")} />
        </div>
        <div>
          <label className="label" htmlFor="invite-role">
            Role
          </label>
          <select id="invite-role" className="input" value={form.role} onChange={set("role")}>
            {assignable.map((r) => (
              <option key={r} value={r}>
                {roleLabels[r]}
              </option>
            ))}
          </select>
        </div>
        <button className="btn-primary" disabled={invite.isPending}>
          {invite.isPending ? "Inviting…" : "Create invitation link"}
        </button>
        {invite.isError && isAppError(invite.error) && invite.error.code === "conflict:invitation" ? (
          // The address is already invited: one tap makes a new link in its place (the old one stops working).
          <div role="alert" className="space-y-2 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900 sm:col-span-3" data-testid="invitation-exists">
            <p>{invite.error.message}</p>
            {mayReplace(invite.error.details) ? (
              <button type="button" className="btn-secondary py-1 text-xs" disabled={invite.isPending} onClick={() => invite.mutate(true)}>
                Make a new link as {roleLabels[form.role]}
              </button>
            ) : (
              <p className="text-xs">An owner invitation is waiting: only an owner can replace it.</p>
            )}
          </div>
        ) : invite.isError ? (
          <ErrorNotice error={invite.error} fallback="Something went wrong." className="sm:col-span-3" />
        ) : null}
      </form>
      {link ? (
        <div role="status" className="space-y-2 rounded-md bg-emerald-50 p-3 text-sm text-emerald-900">
          {link.emailed ? (
            <p data-testid="invitation-emailed">
              Emailed to {link.email}. The link works once, for 7 days: the person chooses their own password when they open it. It is
              also here, this once, to pass on another way.
            </p>
          ) : (
            <p>
              {link.emailError ? `Not emailed: ${link.emailError} ` : ""}Send this link to {link.email} privately. It works once, for 7
              days, and is shown only now: the person chooses their own password when they open it.
            </p>
          )}
          <div className="flex gap-2">
            <input
              aria-label="Invitation link"
              className="input flex-1 font-mono text-xs"
              readOnly
              value={link.url}
              onFocus={(e) => e.currentTarget.select()}
            />
            <button
              type="button"
              className="btn-secondary"
              onClick={async (e) => {
                // The clipboard API exists only on secure pages (https or localhost); elsewhere select the link to copy by hand.
                if (navigator.clipboard) {
                  await navigator.clipboard.writeText(link.url);
                  setCopied(true);
                } else {
                  (e.currentTarget.previousElementSibling as HTMLInputElement | null)?.select();
                }
              }}
            >
              {copied ? "Copied" : "Copy link"}
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}

function PendingInvitations({ queryKey }: { queryKey: readonly unknown[] }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const pending = useQuery({ queryKey, queryFn: () => api("/api/invitations", { schema: invitationListSchema }) });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/api/invitations/${id}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
  if (pending.isPending) return null;
  if (pending.isError) return <ErrorNotice error={pending.error} fallback="Could not load the invitations." />;
  if (pending.data.invitations.length === 0) return null;
  return (
    <section className="card overflow-hidden" aria-label="Pending invitations">
      <h2 className="border-b border-slate-100 px-4 py-2 text-sm font-semibold">Pending invitations</h2>
      <ul className="divide-y divide-slate-100 text-sm">
        {pending.data.invitations.map((inv) => (
          <li key={inv.id} data-testid={`invitation-${inv.email}`} className="flex items-center gap-3 px-4 py-2">
            <span className="flex-1">
              <span className="font-medium">{inv.email}</span>
              <span className="ml-2 text-slate-500">
                {roleLabels[inv.role]} · expires <Time at={inv.expiresAt} upcoming />
                {inv.invitedBy ? ` · invited by ${inv.invitedBy}` : ""}
              </span>
            </span>
            <button className="btn-danger py-1 text-xs" disabled={revoke.isPending} onClick={() => revoke.mutate(inv.id)}>
              Revoke
            </button>
          </li>
        ))}
      </ul>
      {revoke.isError ? (
        <ErrorNotice error={revoke.error} fallback="Something went wrong." className="border-t border-rose-100 bg-rose-50 px-4 py-2" />
      ) : null}
    </section>
  );
}
