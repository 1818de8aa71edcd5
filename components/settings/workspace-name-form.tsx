"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ErrorNotice } from "../ui/error-notice";
import { toast } from "../ui/toaster";
import { workspaceNameReplySchema } from "@/lib/workspaces/workspace-schemas";
import { useApi, useWorkspace } from "../providers";

/** The workspace's name, as everyone in it sees it; its address (the slug) stays as it is. */
export function WorkspaceNameForm({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const router = useRouter();
  const workspace = useWorkspace();
  const [name, setName] = useState(workspace.name);
  const save = useMutation({
    mutationFn: () => api("/api/workspace/name", { method: "PUT", body: { name }, schema: workspaceNameReplySchema }),
    onSuccess: (saved) => {
      toast.success(`The workspace is now called ${saved.name}.`);
      // The sidebar, the switcher and every heading read the name from the layout: read it again.
      router.refresh();
    },
  });
  const unchanged = name.trim() === workspace.name;
  return (
    <form
      className="card max-w-xl space-y-3 p-4"
      aria-label="Workspace name"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}>
      <div>
        <label className="label" htmlFor="workspace-name">
          Name
        </label>
        <input
          id="workspace-name"
          className="input"
          value={name}
          maxLength={80}
          required
          disabled={!canEdit}
          aria-describedby="workspace-name-help"
          onChange={(e) => setName(e.target.value)}
        />
        <p id="workspace-name-help" className="mt-1 text-xs text-slate-600">
          Its address stays <code>/w/{workspace.slug}</code>, so links already shared keep working.
        </p>
      </div>
      {save.isError ? <ErrorNotice error={save.error} fallback="Could not rename the workspace." /> : null}
      {canEdit ? (
        <button type="submit" className="btn-primary" disabled={save.isPending || unchanged || !name.trim()}>
          {save.isPending ? "Saving…" : "Save name"}
        </button>
      ) : (
        <p className="text-xs text-slate-500">Managers and owners rename the workspace.</p>
      )}
    </form>
  );
}
