"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../ui/toaster";
import { useState } from "react";
import { isAppError } from "@/lib/errors";
import { settingsKeys } from "@/lib/client/query-keys";
import { policyReplySchema, type PolicyView } from "@/lib/safety/policy-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { stacked, stackedCell } from "../ui/stacked-table";
import { categoryLabels } from "../approvals/approval-text";

type Mode = "ask" | "allow" | "deny";

const modeLabel: Record<string, string> = { "": "Default", ask: "Always ask", allow: "Allow", deny: "Deny" };

/** What a tool's declared effects mean, said for a person (the code is in the tooltip). */
const effectWords: Record<string, string> = {
  reads_workspace: "Reads the workspace",
  writes_memory: "Remembers notes",
  writes_workspace: "Changes workspace data",
  reads_external: "Reads from outside the workspace",
  sends_internal: "Messages other agents",
  sends_externally: "Sends something outside the workspace",
  spends_money: "Spends money",
  executes_code: "Runs code",
  writes_computer: "Changes files in its own computer",
};

/** What happens to a call, in words: `allow`, `deny` or `ask: <category>` as the API says it. */
function decisionWords(value: string): string {
  if (value === "allow") return "Runs";
  if (value === "deny") return "Refused";
  const category = value.startsWith("ask: ") ? value.slice("ask: ".length) : "";
  return category === "tainted_egress" ? "Asks a person (passes on untrusted content)" : `Asks a person${categoryLabels[category] ? ` (${categoryLabels[category]!.toLowerCase()})` : ""}`;
}

function Decision({ value }: { value: string }) {
  const style = value === "allow" ? "bg-emerald-50 text-emerald-700" : value === "deny" ? "bg-rose-50 text-rose-700" : "bg-amber-50 text-amber-800";
  return (
    <span className={`rounded px-1.5 py-0.5 text-xs ${style}`} title={value}>
      {decisionWords(value)}
    </span>
  );
}

export function PolicyPanel({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({ queryKey: settingsKeys.policy(slug), queryFn: () => api("/api/policy", { schema: policyReplySchema }) });
  const queryClient = useQueryClient();
  const [stale, setStale] = useState(false);
  const [reloads, setReloads] = useState(0);
  // Someone else saved in between: load their policy, then start the draft again from it.
  const reloadAfterStale = async () => {
    await queryClient.refetchQueries({ queryKey: settingsKeys.policy(slug) });
    setReloads((n) => n + 1);
    setStale(true);
  };
  if (!query.data) return <p className="text-sm text-slate-500">{query.isError ? "Could not load the policy." : "Loading…"}</p>;
  return (
    <>
      {stale ? (
        <p role="alert" className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="policy-stale">
          Someone else changed the policy while you had it open, so your changes were not saved. This page now shows their version.
        </p>
      ) : null}
      <PolicyEditor key={reloads} view={query.data.policy} canEdit={canEdit} onStale={() => void reloadAfterStale()} onSaved={() => setStale(false)} />
    </>
  );
}

function PolicyEditor({ view, canEdit, onStale, onSaved }: { view: PolicyView; canEdit: boolean; onStale: () => void; onSaved: () => void }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Pick<PolicyView, "overrides" | "fourEyesCategories" | "approvalTtlSeconds">>(() => ({
    overrides: view.overrides,
    fourEyesCategories: view.fourEyesCategories,
    approvalTtlSeconds: view.approvalTtlSeconds,
  }));
  const save = useMutation({
    mutationFn: () => api("/api/policy", { method: "PUT", body: { ...draft, version: view.version }, schema: policyReplySchema }),
    onSuccess: (data) => {
      onSaved();
      const withdrawn = data.withdrawn ?? 0;
      toast.success(
        withdrawn > 0
          ? `Policy saved. ${withdrawn === 1 ? "One waiting request is" : `${withdrawn} waiting requests are`} now denied, so ${withdrawn === 1 ? "it was" : "they were"} withdrawn.`
          : "Policy saved. It applies to the next call and to requests still waiting.",
      );
      queryClient.setQueryData(settingsKeys.policy(slug), data);
    },
    onError: (error) => {
      if (isAppError(error) && error.code === "conflict:stale") onStale();
    },
  });

  const setTool = (name: string, mode: string) =>
    setDraft((d) => {
      const tools = { ...d.overrides.tools };
      if (mode) tools[name] = mode as Mode;
      else delete tools[name];
      return { ...d, overrides: { ...d.overrides, tools } };
    });
  const setCategory = (id: string, mode: string) =>
    setDraft((d) => {
      const categories = { ...d.overrides.categories };
      if (mode) categories[id] = mode as Mode;
      else delete categories[id];
      return { ...d, overrides: { ...d.overrides, categories } };
    });

  return (
    <div className="space-y-6">
      <section className="card overflow-x-auto" aria-label="Tools">
        <table className={stacked.table}>
          <thead className={stacked.head}>
            <tr>
              <th className="px-4 py-2">Tool</th>
              <th className="px-4 py-2">What it does</th>
              <th className="px-4 py-2">By default</th>
              <th className="px-4 py-2">After untrusted content</th>
              <th className="px-4 py-2">Override</th>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {view.tools.map((t) => (
              <tr key={t.name} className={stacked.row} data-testid={`policy-tool-${t.name}`}>
                <td className={stacked.title}>
                  <div className="font-mono font-medium">{t.name}</div>
                  <div className="max-w-xs text-xs text-slate-500">{t.description}</div>
                </td>
                <td data-label="What it does" className={stackedCell({ className: "text-xs text-slate-600" })}>
                  <span title={t.effects.join(", ")}>{t.effects.map((e) => effectWords[e] ?? e).join("; ")}</span>
                </td>
                <td data-label="By default" className={stackedCell()}>
                  <Decision value={t.defaultDecision} />
                </td>
                <td data-label="After untrusted content" className={stackedCell()}>
                  <Decision value={t.taintedDecision} />
                </td>
                <td data-label="Override" className={stackedCell()}>
                  <select aria-label={`Override for ${t.name}`} className="input w-32 py-1" disabled={!canEdit} value={draft.overrides.tools[t.name] ?? ""} onChange={(e) => setTool(t.name, e.target.value)}>
                    {Object.entries(modeLabel).map(([v, l]) => (
                      <option key={v} value={v}>
                        {l}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="card overflow-x-auto" aria-label="Categories">
        <table className={stacked.table}>
          <thead className={stacked.head}>
            <tr>
              <th className="px-4 py-2">Category</th>
              <th className="px-4 py-2">Override</th>
              <th className="px-4 py-2">Four eyes (the requester may not approve)</th>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {view.categories.map((c) => (
              <tr key={c.id} className={stacked.row}>
                <td className={stacked.title}>
                  <div className="font-medium" title={c.id}>
                    {c.label}
                  </div>
                </td>
                <td data-label="Override" className={stackedCell()}>
                  <select aria-label={`Override for ${c.id}`} className="input w-32 py-1" disabled={!canEdit} value={draft.overrides.categories[c.id] ?? ""} onChange={(e) => setCategory(c.id, e.target.value)}>
                    {Object.entries(modeLabel).map(([v, l]) => (
                      <option key={v} value={v} disabled={c.id === "tainted_egress" && v === "allow"}>
                        {l}
                      </option>
                    ))}
                  </select>
                </td>
                <td data-label="Four eyes (the requester may not approve)" className={stackedCell()}>
                  <input
                    type="checkbox"
                    aria-label={`Four eyes for ${c.id}`}
                    disabled={!canEdit}
                    checked={draft.fourEyesCategories.includes(c.id)}
                    onChange={(e) =>
                      setDraft((d) => ({
                        ...d,
                        fourEyesCategories: e.target.checked ? [...d.fourEyesCategories, c.id] : d.fourEyesCategories.filter((x) => x !== c.id),
                      }))
                    }
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500">
          A run that has read untrusted content (a web page, a call through the door, a message from another agent, with
          whatever had reached that agent) always needs approval before it passes anything on; no override loosens that.
        </p>
      </section>

      <section className="card flex flex-wrap items-end gap-4 p-4">
        <div>
          <label className="label" htmlFor="ttl">
            Approvals expire after (hours)
          </label>
          <input
            id="ttl"
            type="number"
            min={1}
            max={720}
            className="input w-28"
            disabled={!canEdit}
            value={Math.round(draft.approvalTtlSeconds / 3600)}
            onChange={(e) => setDraft((d) => ({ ...d, approvalTtlSeconds: Math.max(1, Number(e.target.value) || 1) * 3600 }))}
          />
        </div>
        {canEdit ? (
          <button className="btn-primary" disabled={save.isPending} onClick={() => save.mutate()}>
            {save.isPending ? "Saving…" : "Save policy"}
          </button>
        ) : (
          <p className="text-sm text-slate-500">Only owners and managers change the policy.</p>
        )}
        {save.isError && !(isAppError(save.error) && save.error.code === "conflict:stale") ? (
          <ErrorNotice error={save.error} fallback="Not saved." />
        ) : null}
      </section>
    </div>
  );
}
