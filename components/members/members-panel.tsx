"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Role } from "@/lib/db/schema";
import { errorMessage } from "@/lib/errors";
import { roleDescriptions, roleLabels, roles } from "@/lib/workspaces/roles";
import { useApi, useWorkspace } from "../providers";

interface MemberRow {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: string;
}

function errorText(error: unknown): string {
  return errorMessage(error, "Something went wrong.");
}

export function MembersPanel({ currentUserId }: { currentUserId: string }) {
  const api = useApi();
  const workspace = useWorkspace();
  const queryClient = useQueryClient();
  const key = ["members", workspace.slug];
  const members = useQuery({ queryKey: key, queryFn: () => api<{ members: MemberRow[] }>("/api/members") });
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
  const assignable = roles.filter((r) => r !== "owner" || workspace.role === "owner");
  const rowError = changeRole.error ?? remove.error;

  return (
    <div className="space-y-6">
      <AddMemberForm assignable={assignable} onAdded={invalidate} />
      <section className="card overflow-hidden" aria-label="Members">
        {members.isPending ? (
          <p className="p-4 text-sm text-slate-500">Loading members…</p>
        ) : members.isError ? (
          <p className="p-4 text-sm text-rose-700">{errorText(members.error)}</p>
        ) : (
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Name</th>
                <th className="px-4 py-2 font-medium">Email</th>
                <th className="px-4 py-2 font-medium">Role</th>
                <th className="px-4 py-2" />
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {members.data.members.map((m) => {
                const locked = m.role === "owner" && workspace.role !== "owner";
                return (
                  <tr key={m.userId} data-testid={`member-${m.email}`}>
                    <td className="px-4 py-2 font-medium">
                      {m.name}
                      {m.userId === currentUserId ? <span className="ml-2 text-xs text-slate-400">(you)</span> : null}
                    </td>
                    <td className="px-4 py-2 text-slate-600">{m.email}</td>
                    <td className="px-4 py-2">
                      <select
                        aria-label={`Role of ${m.email}`}
                        className="input w-36 py-1"
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
                    <td className="px-4 py-2 text-right">
                      <button
                        className="btn-danger py-1 text-xs"
                        disabled={locked || remove.isPending}
                        onClick={() => {
                          if (window.confirm(`Remove ${m.name} (${m.email}) from ${workspace.name}?`)) remove.mutate(m.userId);
                        }}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {rowError ? (
          <p role="alert" className="border-t border-rose-100 bg-rose-50 px-4 py-2 text-sm text-rose-700">
            {errorText(rowError)}
          </p>
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

function AddMemberForm({ assignable, onAdded }: { assignable: readonly Role[]; onAdded: () => void }) {
  const api = useApi();
  const [form, setForm] = useState({ email: "", name: "", password: "", role: "member" as Role });
  const add = useMutation({
    mutationFn: () => api("/api/members", { method: "POST", body: form }),
    onSuccess: () => {
      setForm({ email: "", name: "", password: "", role: "member" });
      onAdded();
    },
  });
  const set = (field: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setForm((f) => ({ ...f, [field]: e.target.value }));

  return (
    <form
      className="card grid gap-3 p-4 sm:grid-cols-[1fr_1fr_1fr_auto_auto] sm:items-end"
      aria-label="Add a member"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate();
      }}
    >
      <div>
        <label className="label" htmlFor="member-email">
          Email
        </label>
        <input id="member-email" className="input" type="email" required value={form.email} onChange={set("email")} />
      </div>
      <div>
        <label className="label" htmlFor="member-name">
          Name
        </label>
        <input id="member-name" className="input" required maxLength={100} value={form.name} onChange={set("name")} />
      </div>
      <div>
        <label className="label" htmlFor="member-password">
          Initial password
        </label>
        <input
          id="member-password"
          className="input"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={form.password}
          onChange={set("password")}
        />
      </div>
      <div>
        <label className="label" htmlFor="member-role">
          Role
        </label>
        <select id="member-role" className="input" value={form.role} onChange={set("role")}>
          {assignable.map((r) => (
            <option key={r} value={r}>
              {roleLabels[r]}
            </option>
          ))}
        </select>
      </div>
      <button className="btn-primary" disabled={add.isPending}>
        {add.isPending ? "Adding…" : "Add member"}
      </button>
      {add.isError ? (
        <p role="alert" className="text-sm text-rose-700 sm:col-span-5">
          {errorText(add.error)}
        </p>
      ) : null}
      {add.isSuccess ? (
        <p role="status" className="text-sm text-emerald-700 sm:col-span-5">
          Member added. Share the initial password with them privately; an existing account keeps its own password.
        </p>
      ) : null}
    </form>
  );
}
