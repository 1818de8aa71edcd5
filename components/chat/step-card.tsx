"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { can } from "@/lib/access/capabilities";
import { approvalKeys } from "@/lib/client/query-keys";
import { decisionChannelWords, type DecisionChannel } from "@/lib/decision-channels";
import { isAppError } from "@/lib/errors";
import { approvalOneSchema } from "@/lib/safety/approval-schemas";
import { ApprovalCard } from "../approvals/approval-card";
import { InputDiff } from "../approvals/edit-input";
import { Time, useNow } from "../ui/time";
import { describeTaintSource, taintLabel } from "@/lib/safety/taint";
import { useApi, useViewerId, useWorkspace } from "../providers";
import type { StepApproval, StepView } from "./timeline";
import { Revealed } from "../ui/revealed";
import { exactJson } from "@/lib/hidden-characters";
import { DiffBlock } from "../computer/diff-block";
import { TerminalBlock } from "../computer/terminal-block";
import { BrowserBlock, browserShotOf, FileChip, fileOf } from "../computer/step-blocks";
import { CAP_CATEGORY } from "@/lib/billing/cap-words";
import type { CapRequestView } from "./timeline";

function isInput(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** Where a decision taken on this page is said to come from: the run's page, or the chat. */
function usePageChannel(): DecisionChannel {
  return /\/runs\//.test(usePathname() ?? "") ? "run" : "chat";
}

/** A waiting request, decided right here by someone who may: the inbox's card, loaded when asked for. */
function DecideHere({ approvalId, viewerId }: { approvalId: string; viewerId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const via = usePageChannel();
  const now = useNow();
  const query = useQuery({ queryKey: approvalKeys.one(slug, approvalId), queryFn: () => api(`/api/approvals/${approvalId}`, { schema: approvalOneSchema }) });
  if (query.isPending) return <p className="mt-2 text-xs text-violet-800">Loading the request…</p>;
  if (query.isError) return <p className="mt-2 text-xs text-rose-700" role="alert">{isAppError(query.error) ? query.error.message : "The request could not be loaded."}</p>;
  const item = query.data.approval;
  if (item.status !== "pending") return null;
  return (
    <div className="mt-2 text-slate-900">
      <ApprovalCard item={item} now={now} viewerId={viewerId} canDecide via={via} onDecided={() => undefined} />
    </div>
  );
}

function ApprovalNotice({ approval, input }: { approval: StepApproval; input: unknown }) {
  const { slug, role } = useWorkspace();
  const viewerId = useViewerId();
  const [deciding, setDeciding] = useState(false);
  // Whether a run may spend past its cap is for managers and owners; tool calls are for reviewers too.
  const cap = approval.category === CAP_CATEGORY;
  if (approval.status === "pending") {
    const mayDecide = can(role, cap ? "billing.manage" : "approvals.decide");
    return (
      <div className="border-t border-violet-200 bg-violet-50 px-3 py-2 text-xs text-violet-900" role="status" data-testid="approval-pending">
        {/* The reason says what kind of call this is ("This call sends outside the workspace."): not said twice. */}
        <div className="font-medium">{cap ? "Waiting for a manager." : "Waiting for a reviewer."}</div>
        <div className="mt-0.5 text-violet-800">{approval.reason} Nothing happens until someone decides.</div>
        <div className="mt-1 flex flex-wrap items-center gap-x-4 gap-y-1">
          <Link href={`/w/${slug}/approvals?approval=${approval.id}`} className="inline-block font-medium text-violet-700 underline">
            Open it in the Approvals inbox →
          </Link>
          {mayDecide && viewerId ? (
            <button type="button" className="font-medium text-violet-700 underline" aria-expanded={deciding} onClick={() => setDeciding((d) => !d)}>
              {deciding ? "Hide the request" : "Decide it here"}
            </button>
          ) : null}
        </div>
        {deciding && viewerId ? <DecideHere approvalId={approval.id} viewerId={viewerId} /> : null}
      </div>
    );
  }
  const who = approval.decidedBy ? ` by ${approval.decidedBy}` : "";
  const where = approval.via ? ` ${decisionChannelWords[approval.via]}` : "";
  const when = approval.decidedAt ? (
    <>
      {" "}
      <Time at={approval.decidedAt} />
    </>
  ) : null;
  const tone = approval.status === "approved" ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-rose-200 bg-rose-50 text-rose-900";
  return (
    <div className={`border-t px-3 py-2 text-xs ${tone}`} data-testid="approval-decided">
      <p>
        {approval.status === "approved" ? (
          <>
            Approved{who}
            {when}
            {where}
            {approval.inputEdited ? ", with an edited input." : "."}
          </>
        ) : approval.status === "rejected" ? (
          <>
            Rejected{who}
            {when}
            {where}
            {approval.decisionReason ? <>: “{approval.decisionReason}”</> : "."}
          </>
        ) : approval.status === "withdrawn" ? (
          `Withdrawn before anyone approved it.${approval.decisionReason ? ` ${approval.decisionReason}` : ""}`
        ) : (
          "The approval expired before anyone decided."
        )}
      </p>
      {approval.inputEdited && isInput(approval.askedInput) && isInput(input) ? (
        <details className="mt-1 text-slate-800">
          <summary className="cursor-pointer">What the reviewer changed</summary>
          <div className="mt-1">
            <InputDiff before={approval.askedInput} after={input} />
          </div>
        </details>
      ) : null}
    </div>
  );
}

/** A run that reached its spending cap and asks whether it may go on: the question, then what became of it. */
export function CapRequestCard({ request }: { request: CapRequestView }) {
  return (
    <div className="my-2 overflow-hidden rounded-lg border border-violet-200 bg-surface text-sm" data-testid="cap-request">
      <div className="px-3 py-2">
        <div className="text-xs font-medium text-violet-800">Spending cap</div>
        <p className="mt-0.5 font-medium text-slate-900">{request.title}</p>
      </div>
      <ApprovalNotice approval={request.approval} input={undefined} />
    </div>
  );
}

const statusStyles: Record<string, { label: string; className: string }> = {
  pending: { label: "Pending", className: "bg-slate-100 text-slate-600 ring-slate-200" },
  running: { label: "Running", className: "bg-sky-50 text-sky-700 ring-sky-200" },
  succeeded: { label: "Succeeded", className: "bg-emerald-50 text-emerald-700 ring-emerald-200" },
  failed: { label: "Failed", className: "bg-rose-50 text-rose-700 ring-rose-200" },
  refused: { label: "Refused", className: "bg-slate-100 text-slate-700 ring-slate-300" },
  awaiting_approval: { label: "Awaiting approval", className: "bg-violet-50 text-violet-700 ring-violet-200" },
  unconfirmed: { label: "Unconfirmed", className: "bg-amber-50 text-amber-800 ring-amber-200" },
  // A refused step that waited for a person says what became of the request, in the inbox's words.
  rejected: { label: "Rejected", className: "bg-rose-50 text-rose-700 ring-rose-200" },
  expired: { label: "Expired", className: "bg-slate-100 text-slate-700 ring-slate-300" },
  withdrawn: { label: "Withdrawn", className: "bg-slate-100 text-slate-700 ring-slate-300" },
};

/** The status a step card shows: a refusal that came from a decision on its request is named as the inbox names it. */
function shownStatus(step: StepView): string {
  const decided = step.approval?.status;
  return step.status === "refused" && (decided === "rejected" || decided === "expired" || decided === "withdrawn") ? decided : step.status;
}

export function StatusBadge({ status }: { status: string }) {
  const style = statusStyles[status] ?? { label: status, className: "bg-slate-100 text-slate-600 ring-slate-200" };
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset ${style.className}`} data-testid="step-status">
      {status === "running" ? <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" /> : null}
      {style.label}
    </span>
  );
}

export function TaintBadge({ source }: { source: string }) {
  return (
    <span
      className="inline-flex max-w-full items-center gap-1 rounded-full bg-amber-50 px-2 py-0.5 text-[11px] text-amber-800 ring-1 ring-amber-300 ring-inset wrap-anywhere"
      title={`${describeTaintSource(source)} (${source})`}
    >
      <span aria-hidden>⚠</span>
      <span className="sr-only">Untrusted content: </span>
      {taintLabel(source)}
    </span>
  );
}

function json(value: unknown): string {
  if (value === undefined) return "—";
  try {
    return exactJson(value);
  } catch {
    return String(value);
  }
}

/** A tool's own one-line account of what it did, when its output has one. */
function summaryOf(output: unknown): string | null {
  if (output && typeof output === "object" && "summary" in output && typeof output.summary === "string" && output.summary.trim()) {
    return output.summary;
  }
  return null;
}

function duration(ms: number | null): string | null {
  if (ms === null) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function StepCard({ step, agentId }: { step: StepView; agentId?: string }) {
  const summary = summaryOf(step.output);
  const shot = agentId && step.status === "succeeded" ? browserShotOf(step.output) : null;
  const file = agentId && step.status === "succeeded" ? fileOf(step.tool, step.output) : null;
  const took = duration(step.durationMs);
  const finished = step.status !== "running" && step.status !== "pending";
  return (
    <section id={`step-${step.key}`} role="group" aria-label={`Tool step ${step.tool}`} className="my-2 rounded-md border border-slate-200 bg-slate-50/70 text-sm">
      <header className="flex flex-wrap items-center gap-2 px-3 py-2">
        <span aria-hidden className="flex h-5 w-5 items-center justify-center rounded bg-surface text-[11px] text-slate-500 ring-1 ring-slate-200">
          ⚙
        </span>
        <span className="font-mono text-xs font-semibold text-slate-800">{step.tool}</span>
        <StatusBadge status={shownStatus(step)} />
        {step.taint.map((source) => (
          <TaintBadge key={source} source={source} />
        ))}
        {took ? <span className="ml-auto text-[11px] text-slate-500">{took}</span> : null}
      </header>

      {step.preview ? (
        <div className="border-t border-slate-200 px-3 py-2">
          <div className="text-xs font-medium text-slate-700">
            <Revealed text={step.preview.title} />
          </div>
          {step.preview.fields.length > 0 ? (
            <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
              {step.preview.fields.map((field, i) => (
                <div key={`${field.label}-${i}`} className="contents">
                  <dt className="text-slate-500">{field.label}</dt>
                  <dd className="min-w-0 break-words text-slate-800">
                    <Revealed text={field.value} />
                  </dd>
                </div>
              ))}
            </dl>
          ) : null}
          {step.preview.body && step.tool !== "shell.exec" ? (
            <p className="mt-1 text-xs break-words whitespace-pre-wrap text-slate-700">
              <Revealed text={step.preview.body} />
            </p>
          ) : null}
          {step.preview.diff ? <DiffBlock diff={step.preview.diff} /> : null}
        </div>
      ) : null}

      {step.tool === "shell.exec" ? <TerminalBlock step={step} /> : null}
      {shot && agentId ? <BrowserBlock agentId={agentId} shot={shot} /> : null}
      {file && agentId ? <FileChip agentId={agentId} {...file} /> : null}

      {step.approval ? <ApprovalNotice approval={step.approval} input={step.input} /> : null}

      {step.error ? (
        <p className="border-t border-rose-100 bg-rose-50 px-3 py-2 text-xs text-rose-800">{step.error}</p>
      ) : null}
      {summary && step.tool !== "shell.exec" ? (
        <p className="border-t border-slate-200 px-3 py-2 text-xs break-words whitespace-pre-wrap text-slate-600" data-testid="step-summary">
          {summary}
        </p>
      ) : null}

      <div className="flex flex-wrap gap-x-4 border-t border-slate-200 px-3 py-1.5 text-xs">
        <JsonDetails label="Input" value={step.input} />
        {finished ? <JsonDetails label="Output" value={step.output} /> : null}
      </div>
    </section>
  );
}

function JsonDetails({ label, value }: { label: string; value: unknown }) {
  return (
    <details className="group min-w-0 basis-full sm:basis-auto [&[open]]:basis-full">
      <summary className="cursor-pointer text-slate-500 select-none hover:text-slate-800">{label}</summary>
      <pre className="mt-1 mb-1 max-h-72 overflow-auto rounded bg-surface p-2 font-mono text-[11px] leading-snug text-slate-700 ring-1 ring-slate-200">
        {json(value)}
      </pre>
    </details>
  );
}
