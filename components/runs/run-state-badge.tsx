import type { RunState } from "@/lib/runs/run-schemas";

/** A run's state as a small badge (run pages, an agent's recent runs). */
const runStateStyles: Record<RunState, string> = {
  running: "bg-sky-50 text-sky-700 ring-sky-200",
  suspended: "bg-violet-50 text-violet-700 ring-violet-200",
  succeeded: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  failed: "bg-rose-50 text-rose-700 ring-rose-200",
  cancelled: "bg-slate-100 text-slate-600 ring-slate-300",
};

const stateLabels: Record<RunState, string> = {
  running: "Running",
  suspended: "Waiting for approval",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
};

export function RunStateBadge({ state, awaitingApproval }: { state: RunState; awaitingApproval?: boolean }) {
  const label = state === "suspended" && awaitingApproval === false ? "Open, between calls" : stateLabels[state];
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset ${runStateStyles[state]}`} data-testid="run-state">
      {state === "running" ? <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" /> : null}
      {label}
    </span>
  );
}
