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

/** A zone's offset from UTC at `now`, as "UTC+01:00" (or "UTC" itself). */
function offsetOf(zone: string, now: number): string {
  const name = new Intl.DateTimeFormat("en-GB", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(new Date(now)).find((p) => p.type === "timeZoneName")?.value;
  return !name || name === "GMT" ? "UTC" : name.replace("GMT", "UTC");
}

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
  const known = zones.includes(zone);
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
        {/* Typed to search ("Berl" finds Europe/Berlin); each choice shows its offset from UTC now. */}
        <input
          id="workspace-time-zone"
          className="input"
          list="workspace-time-zones"
          value={zone}
          disabled={!canEdit}
          autoComplete="off"
          spellCheck={false}
          aria-describedby="workspace-time-zone-help"
          aria-invalid={known ? undefined : true}
          onChange={(e) => setZone(e.target.value)}
          onFocus={(e) => e.currentTarget.select()}
        />
        <datalist id="workspace-time-zones">
          {zones.map((z) => (
            <option key={z} value={z}>
              {offsetOf(z, now)}
            </option>
          ))}
        </datalist>
        <p id="workspace-time-zone-help" className="mt-1 text-xs text-slate-600">
          Every date and time in {workspace.name} is shown in this zone, for everyone, and usage is counted in its days.{" "}
          {known ? (
            <>
              Now there:{" "}
              <span data-testid="time-zone-preview" suppressHydrationWarning>
                {absoluteWhen(new Date(now), { timeZone: zone })}
              </span>
              .
            </>
          ) : (
            <span className="text-rose-700">Type part of a place, such as Berlin, and pick the zone from the list.</span>
          )}
        </p>
      </div>
      {save.isError ? <ErrorNotice error={save.error} fallback="Could not save the time zone." /> : null}
      {canEdit ? (
        <div className="flex flex-wrap items-center gap-3">
          <button type="submit" className="btn-primary" disabled={save.isPending || zone === workspace.timeZone || !known}>
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
