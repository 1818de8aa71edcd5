"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { settingsKeys } from "@/lib/client/query-keys";
import { governorReplySchema, governorViewSchema, type Governor, type GovernorMode } from "@/lib/safety/governor-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";


const categories: { key: string; label: string }[] = [
  { key: "external_send", label: "Sends outside" },
  { key: "data_write", label: "Changes data" },
  { key: "code_exec", label: "Runs code" },
  { key: "spend", label: "Spends money" },
  { key: "tainted_egress", label: "Passes on untrusted content" },
];
const modeLabels: Record<GovernorMode, string> = { people: "People decide", judge_then_people: "Judge first, then people", judge: "Judge decides" };

/** Who decides gated requests per category: people, the judge then people, or the judge. */
export function GovernorPanel({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = settingsKeys.governor(slug);
  const current = useQuery({ queryKey: key, queryFn: () => api("/api/governor", { schema: governorViewSchema }) });
  // Unsaved edits; null shows what is saved.
  const [edits, setEdits] = useState<Governor | null>(null);
  const save = useMutation({
    mutationFn: (body: Governor) => api("/api/governor", { method: "PUT", body, schema: governorReplySchema }),
    onSuccess: () => setEdits(null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const draft = edits ?? current.data?.governor;
  if (!draft) return null;
  const set = (patch: Partial<Governor>) => setEdits({ ...draft, ...patch });

  return (
    <section className="card space-y-3 p-4" aria-labelledby="governor-heading" data-testid="governor-panel">
      <h2 id="governor-heading" className="font-semibold">
        Governor
      </h2>
      <p className="text-sm text-slate-600">
        A judge model can refuse gated requests, or decide them, instead of a person. When it gives no verdict the request is
        refused (judge decides) or goes to people (judge first).
      </p>
      <div className="grid gap-2 sm:grid-cols-2">
        {categories.map((c) => (
          <label key={c.key} className="flex min-w-0 flex-col text-sm">
            {c.label}
            <select
              className="input min-w-0"
              disabled={!canEdit}
              value={draft.modes[c.key] ?? "people"}
              onChange={(e) => set({ modes: { ...draft.modes, [c.key]: e.target.value as GovernorMode } })}
            >
              {(Object.keys(modeLabels) as GovernorMode[]).map((m) => (
                <option key={m} value={m}>
                  {modeLabels[m]}
                </option>
              ))}
            </select>
          </label>
        ))}
        <label className="flex min-w-0 flex-col text-sm">
          Judge model (empty: the strongest configured)
          <input className="input min-w-0" disabled={!canEdit} value={draft.judgeModel ?? ""} onChange={(e) => set({ judgeModel: e.target.value.trim() || null })} />
        </label>
        <label className="flex min-w-0 flex-col text-sm">
          Door wait for a decision, seconds (empty: {current.data?.defaults.doorWaitSeconds ?? 120})
          <input
            className="input min-w-0"
            type="number"
            inputMode="numeric"
            min={1}
            max={600}
            disabled={!canEdit}
            value={draft.doorWaitSeconds ?? ""}
            onChange={(e) => set({ doorWaitSeconds: e.target.value === "" ? null : Math.trunc(Number(e.target.value)) })}
          />
        </label>
      </div>
      <label className="flex items-start gap-2 text-sm">
        <input type="checkbox" disabled={!canEdit} checked={draft.failOpen} onChange={(e) => set({ failOpen: e.target.checked })} />
        <span>Fail open: when the judge gives no verdict, let “judge decides” requests through.</span>
      </label>
      {draft.failOpen ? (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Warning: with fail open, an outage or a broken judge model lets gated actions run with nobody deciding.
        </p>
      ) : null}
      {save.isError ? (
        <ErrorNotice error={save.error} fallback="The governor could not be saved." />
      ) : null}
      {canEdit ? (
        <button className="btn-primary" disabled={save.isPending} onClick={() => save.mutate(draft)}>
          Save governor
        </button>
      ) : null}
    </section>
  );
}
