"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiFetch } from "@/lib/client/api";
import { errorLine } from "@/lib/error-sentences";
import { workspaceCreatedCheck } from "@/lib/workspaces/workspace-created";
import type { WorkspaceInfo } from "../providers";

export function WorkspaceSwitcher({ current, workspaces }: { current: Omit<WorkspaceInfo, "timeZone">; workspaces: Omit<WorkspaceInfo, "timeZone">[] }) {
  const router = useRouter();
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function create(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { workspace } = await apiFetch("/api/workspaces", { method: "POST", body: { name, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }, schema: workspaceCreatedCheck });
      setCreating(false);
      setName("");
      router.push(`/w/${workspace.slug}`);
      router.refresh();
    } catch (e) {
      setError(errorLine(e, "Could not create the workspace."));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="space-y-2">
      <label htmlFor="workspace-switcher" className="block text-[11px] font-medium uppercase tracking-wide text-sidebar-muted">
        Workspace
      </label>
      <select
        id="workspace-switcher"
        className="w-full rounded-md border border-sidebar-border bg-sidebar-accent px-2 py-2 text-sm text-white md:py-1.5"
        value={current.slug}
        onChange={(e) => {
          if (e.target.value === "__new") setCreating(true);
          else router.push(`/w/${e.target.value}`);
        }}
      >
        {workspaces.map((w) => (
          <option key={w.slug} value={w.slug}>
            {w.name}
          </option>
        ))}
        <option value="__new">+ New workspace…</option>
      </select>
      {creating ? (
        <form onSubmit={create} className="space-y-2 rounded-md bg-sidebar-accent p-2">
          <input
            autoFocus
            aria-label="New workspace name"
            className="w-full rounded border border-sidebar-border bg-sidebar px-2 py-1 text-sm text-white"
            placeholder="Workspace name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={80}
          />
          {error ? <p className="text-xs text-rose-300">{error}</p> : null}
          <div className="flex gap-2">
            <button className="btn bg-indigo-600 px-2 py-1 text-xs text-white" disabled={busy}>
              Create
            </button>
            <button type="button" className="btn px-2 py-1 text-xs text-[#dbe3ee]" onClick={() => setCreating(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
