"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { absoluteWhen } from "@/lib/client/format-time";
import { ErrorNotice } from "../ui/error-notice";
import { toast } from "../ui/toaster";
import { useNow } from "../ui/time";
import { timeZoneSchema } from "@/lib/workspaces/workspace-schemas";
import { useApi, useWorkspace } from "../providers";

/** The workspace's time zone: every date and time in it is shown in this zone, and usage days are counted in it. */
export function TimeZoneForm({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const router = useRouter();
  const workspace = useWorkspace();
  const [zone, setZone] = useState(workspace.timeZone);
  const now = useNow(1_000);
  const browserZone = useMemo(() => Intl.DateTimeFormat().resolvedOptions().timeZone, []);
  const zones = useMemo(() => {
    const all = new Set([...Intl.supportedValuesOf("timeZone"), "UTC", workspace.timeZone]);
    return [...all].sort((a, b) => (a === "UTC" ? -1 : b === "UTC" ? 1 : a.localeCompare(b)));
  }, [workspace.timeZone]);
  const save = useMutation({
    mutationFn: () => api("/api/workspace/time-zone", { method: "PUT", body: { timeZone: zone }, schema: timeZoneSchema }),
    onSuccess: ({ timeZone }) => {
      toast.success(`Times are now shown in ${timeZone}.`);
      // The layout hands the zone to every page: read it again.
      router.refresh();
    },
  });
  return (
    <form
      className="card max-w-xl space-y-4 p-4"
      aria-label="Time zone"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <div>
        <label className="label" htmlFor="workspace-time-zone">
          Time zone
        </label>
        <select
          id="workspace-time-zone"
          className="input"
          value={zone}
          disabled={!canEdit}
          aria-describedby="workspace-time-zone-help"
          onChange={(e) => setZone(e.target.value)}
        >
          {zones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
        <p id="workspace-time-zone-help" className="mt-1 text-xs text-slate-600">
          Every date and time in {workspace.name} is shown in this zone, for everyone, and usage is counted in its days. Now there:{" "}
          <span data-testid="time-zone-preview" suppressHydrationWarning>
            {absoluteWhen(new Date(now), { timeZone: zone })}
          </span>
          .
        </p>
      </div>
      {save.isError ? <ErrorNotice error={save.error} fallback="Could not save the time zone." /> : null}
      {canEdit ? (
        <div className="flex flex-wrap items-center gap-3">
          <button type="submit" className="btn-primary" disabled={save.isPending || zone === workspace.timeZone}>
            {save.isPending ? "Saving…" : "Save time zone"}
          </button>
          {browserZone && browserZone !== zone ? (
            <button type="button" className="btn-secondary" onClick={() => setZone(browserZone)}>
              Use this device&apos;s zone ({browserZone})
            </button>
          ) : null}
        </div>
      ) : (
        <p className="text-xs text-slate-500">Managers and owners change the time zone.</p>
      )}
    </form>
  );
}
