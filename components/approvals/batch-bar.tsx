"use client";

import { useState } from "react";
import { isAppError } from "@/lib/errors";
import { batchResultsSchema, type ApprovalItem, type BatchResults } from "@/lib/safety/approval-schemas";
import { useApi } from "../providers";
import { toast } from "../ui/toaster";
import { ErrorCode } from "../ui/error-notice";

/** Every request a picked line stands for: identical requests shown as one are decided together. */
export function idsOf(item: ApprovalItem): string[] {
  return item.identical?.ids ?? [item.id];
}

/** The requests like `item`: the same tool asked for by the same agent (said by the preview's title, "Post to Slack"). */
export function alike(items: readonly ApprovalItem[], item: ApprovalItem): ApprovalItem[] {
  return items.filter((other) => other.tool === item.tool && other.agent.id === item.agent.id);
}

/** The box that ticks a request for deciding it with others (on its card, and on its line on a wide screen). */
export function PickBox({ item, picked, disabled, onPick, className }: { item: ApprovalItem; picked: boolean; disabled: boolean; onPick: () => void; className: string }) {
  return (
    <input
      type="checkbox"
      className={`size-4 shrink-0 accent-indigo-600 ${className}`}
      checked={picked}
      disabled={disabled}
      onChange={onPick}
      aria-label={`Select “${item.preview.title}” by @${item.agent.handle} to decide with others`}
    />
  );
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Deciding several requests together: what is picked, "select all like this", approve or reject them all (a rejection
 * asks for one reason, told to every agent). Each request is decided on its own rules; the outcome says how many were
 * decided and, for each one that was not, why.
 */
export function BatchBar({ items, picked, focused, onPick, onDecided }: {
  items: readonly ApprovalItem[];
  picked: ReadonlySet<string>;
  /** The request the keys and the detail pane are on: "like this" means like it. */
  focused: ApprovalItem | null;
  onPick: (ids: string[], on: boolean) => void;
  onDecided: (decidedIds: string[]) => void;
}) {
  const api = useApi();
  const [mode, setMode] = useState<"idle" | "reject">("idle");
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; code: string | null } | null>(null);
  const [outcome, setOutcome] = useState<{ decided: number; decision: "approve" | "reject"; refused: { title: string; message: string }[] } | null>(null);

  const chosen = items.filter((item) => picked.has(item.id));
  const ids = chosen.flatMap(idsOf);
  const like = focused ? alike(items, focused) : [];
  const likeCount = like.reduce((n, item) => n + idsOf(item).length, 0);

  async function decide(decision: "approve" | "reject") {
    if (decision === "reject" && !reason.trim()) {
      setError({ message: "Say why you reject them: each agent is told the reason.", code: null });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const { results }: BatchResults = await api("/api/approvals/decisions", {
        method: "POST",
        body: { ids, decision, ...(decision === "reject" ? { reason: reason.trim() } : {}) },
        schema: batchResultsSchema,
      });
      const titleOf = new Map(chosen.flatMap((item) => idsOf(item).map((id) => [id, `${item.preview.title} by @${item.agent.handle}`] as const)));
      const done = results.filter((r) => !r.code);
      const refused = results.filter((r) => r.code).map((r) => ({ title: titleOf.get(r.id) ?? "A request", message: r.message ?? "It was not decided." }));
      setOutcome({ decided: done.length, decision, refused });
      toast.success(`${decision === "approve" ? "Approved" : "Rejected"} ${plural(done.length, "request", "requests")}${refused.length > 0 ? `; ${refused.length} not decided` : ""}.`);
      setMode("idle");
      setReason("");
      // Gone from the list: what was decided here, and what someone else decided or that expired meanwhile.
      onDecided(results.filter((r) => r.status !== "pending").map((r) => r.id));
    } catch (e) {
      setError({ message: isAppError(e) ? e.message : "The decisions were not saved.", code: isAppError(e) ? e.code : null });
    } finally {
      setBusy(false);
    }
  }

  if (items.length === 0 && !outcome) return null;
  return (
    <div className="space-y-2" data-testid="batch">
      <div className="flex flex-wrap items-center gap-2 text-sm" role="group" aria-label="Decide several at once">
        {chosen.length > 0 ? (
          <>
            <span className="font-medium text-slate-800" aria-live="polite" data-testid="batch-count">
              {plural(ids.length, "request", "requests")} selected
            </span>
            <button type="button" className="btn-primary px-3 py-1.5" disabled={busy} onClick={() => void decide("approve")}>
              Approve {ids.length}
            </button>
            <button type="button" className="btn-danger px-3 py-1.5" disabled={busy} onClick={() => setMode(mode === "reject" ? "idle" : "reject")} aria-expanded={mode === "reject"}>
              Reject {ids.length}…
            </button>
            <button type="button" className="btn-secondary px-3 py-1.5" disabled={busy} onClick={() => onPick([...picked], false)}>
              Clear
            </button>
          </>
        ) : (
          <span className="text-slate-600">Tick requests (or press x) to decide several at once.</span>
        )}
        {focused && like.length > 1 ? (
          <button type="button" className="text-sm font-medium text-indigo-700 underline" disabled={busy} onClick={() => onPick(like.map((item) => item.id), true)}>
            Select all like this ({likeCount}: {focused.preview.title} by @{focused.agent.handle})
          </button>
        ) : null}
      </div>
      {mode === "reject" && chosen.length > 0 ? (
        <div className="space-y-2 rounded-md border border-slate-200 p-3">
          <label className="label" htmlFor="batch-reason">
            Reason for rejecting all {ids.length}
          </label>
          <p id="batch-reason-rule" className="text-xs text-slate-600">
            Required: each agent is told why.
          </p>
          <textarea id="batch-reason" autoFocus required maxLength={2000} aria-describedby="batch-reason-rule" className="input" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <button type="button" className="btn-danger px-3 py-1.5" disabled={busy} onClick={() => void decide("reject")}>
            Confirm {plural(ids.length, "rejection", "rejections")}
          </button>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm text-rose-700">
          {error.message}
          {error.code ? <ErrorCode code={error.code} className="mt-0.5 block" /> : null}
        </p>
      ) : null}
      {outcome ? (
        <div role="status" className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm" data-testid="batch-outcome">
          <div className="flex items-start justify-between gap-2">
            <p className="font-medium text-slate-900">
              {outcome.decision === "approve" ? "Approved" : "Rejected"} {plural(outcome.decided, "request", "requests")}.
              {outcome.refused.length > 0 ? ` ${plural(outcome.refused.length, "was", "were")} not decided:` : ""}
            </p>
            <button type="button" className="btn-secondary shrink-0 px-2 py-0.5 text-xs" onClick={() => setOutcome(null)}>
              Dismiss
            </button>
          </div>
          {outcome.refused.length > 0 ? (
            <ul className="mt-1 list-disc space-y-1 pl-5 text-slate-700">
              {outcome.refused.map((r, i) => (
                <li key={i}>
                  <span className="font-medium">{r.title}</span>: {r.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
