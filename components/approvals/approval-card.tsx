"use client";

import Link from "next/link";
import { DiffBlock } from "../computer/diff-block";
import { useState } from "react";
import { isAppError } from "@/lib/errors";
import { can } from "@/lib/access/capabilities";
import { useApi, useWorkspace } from "../providers";
import { toast } from "../ui/toaster";
import type { ApprovalItem } from "@/lib/safety/approval-schemas";
import { describeTaintSource, taintLabel } from "@/lib/safety/taint";
import { categoryLabels, judgeLine, originHref, requestLine, timeLeft, toolLabel } from "./approval-text";
import { isCapRequest } from "@/lib/billing/cap-words";
import { absoluteWhen } from "@/lib/client/format-time";
import { EditInput } from "./edit-input";
import { CopyDraft } from "./copy-draft";
import { Time } from "../ui/time";
import { HiddenWarning, Revealed } from "../ui/revealed";
import { exactJson } from "@/lib/hidden-characters";
import { ErrorCode } from "../ui/error-notice";
import { OwnApprovalNote, throughDoor, useOwnWhileAlone } from "./own-while-alone";
import type { DecisionChannel } from "@/lib/decision-channels";
import { NotifiedLine } from "./notified-line";
import { PickBox } from "./batch-bar";

export function PreviewCard({ preview }: { preview: ApprovalItem["preview"] }) {
  return (
    <div className="rounded-md border border-slate-200 bg-slate-50 p-3" data-testid="approval-preview">
      <div className="text-sm font-semibold">
        <Revealed text={preview.title} />
      </div>
      {preview.fields.length > 0 ? (
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-sm">
          {preview.fields.map((f) => (
            <div key={f.label} className="contents">
              <dt className="text-slate-500">{f.label}</dt>
              <dd className="min-w-0 font-medium break-words">
                <Revealed text={f.value} />
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {preview.body ? (
        <p className="mt-2 whitespace-pre-wrap break-words rounded bg-surface p-2 text-sm ring-1 ring-slate-200">
          <Revealed text={preview.body} />
        </p>
      ) : null}
      {preview.diff ? <DiffBlock diff={preview.diff} /> : null}
    </div>
  );
}

/** A source brought in by a step opens that step; one the run started with (handed on by another agent, or by a memory in its prompt) opens the run. */
function taintHref(slug: string, item: ApprovalItem, stepId: string | null): string {
  const anchor = stepId ? `#step-${stepId}` : "";
  if (item.sessionId) return `/w/${slug}/chat/${item.sessionId}${anchor}`;
  return item.runId ? `/w/${slug}/runs/${item.runId}${anchor}` : "#";
}

export function TaintList({ item, slug }: { item: ApprovalItem; slug: string }) {
  if (item.taintSources.length === 0) return <p className="text-xs text-slate-500">No untrusted content reached this run.</p>;
  return (
    <div className="space-y-1">
      <div className="text-xs font-medium text-amber-800">Untrusted content reached this run:</div>
      <ul className="flex flex-wrap gap-1.5" aria-label="Taint sources">
        {item.taintSources.map((t) => (
          <li key={`${t.source}-${t.stepId}`}>
            <Link
              href={taintHref(slug, item, t.stepId)}
              className="inline-flex max-w-full items-center gap-1 rounded border border-amber-300 bg-amber-50 px-2 py-0.5 text-xs text-amber-900 wrap-anywhere hover:bg-amber-100"
              title={`${t.stepId ? "Open the step that brought this in" : describeTaintSource(t.source)} (${t.source})`}
            >
              ⚠ {taintLabel(t.source)}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** What became of a card that left the pending list while it was shown: null while that is being looked up. */
export type Outcome = Pick<ApprovalItem, "status" | "decidedBy" | "decidedAt" | "judgeVerdict" | "reason"> | null;

function outcomeLine(outcome: Outcome): { text: string; at: string | null } {
  if (!outcome) return { text: "No longer waiting: it was decided elsewhere", at: null };
  const by = outcome.decidedBy ?? (outcome.judgeVerdict?.decided ? "the judge" : null);
  const text =
    outcome.status === "approved" || outcome.status === "rejected"
      ? `${outcome.status === "approved" ? "Approved" : "Rejected"}${by ? ` by ${by}` : ""}`
      : outcome.status === "expired"
        ? "Expired"
        : outcome.status === "withdrawn"
          ? `Withdrawn. ${outcome.reason ?? "The run was stopped."}`
          : "No longer waiting";
  return { text, at: outcome.decidedAt };
}

export function ApprovalCard({ item, now, viewerId, canDecide: mayDecideApprovals, onDecided, selected = false, gone = false, outcome = null, onDismiss, via = "inbox", picked, onPick }: {
  item: ApprovalItem;
  /** Where the card is shown: in the chat or on the run's page the links back to them are left out, and the decision says so. */
  via?: DecisionChannel;
  /** The card keyboard triage acts on. */
  selected?: boolean;
  now: number;
  viewerId: string;
  canDecide: boolean;
  onDecided: () => void;
  /** Decided, expired or withdrawn elsewhere while shown: kept in place, read-only, until the reviewer moves on. */
  gone?: boolean;
  outcome?: Outcome;
  onDismiss?: () => void;
  /** Ticked for deciding together with others (the inbox's list of cards; on a wide screen the line has the box). */
  picked?: boolean;
  onPick?: () => void;
}) {
  const api = useApi();
  const { slug, timeZone, role } = useWorkspace();
  const [mode, setMode] = useState<"idle" | "reject" | "edit">("idle");
  // A run at its spending cap asks no tool call: managers and owners decide it, as asked (nothing to edit).
  const cap = isCapRequest(item);
  const canDecide = mayDecideApprovals && (!cap || can(role, "billing.manage"));
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errorCode, setErrorCode] = useState<string | null>(null);
  const [reasonMissing, setReasonMissing] = useState(false);
  const after = gone ? outcomeLine(outcome) : null;
  const ownFourEyes = item.fourEyes && (item.onBehalfOfUserId ?? item.requestedByUserId) === viewerId;
  // A team of one whose owner approves their own requests until a second reviewer joins (never those through a door).
  const alone = useOwnWhileAlone(ownFourEyes && canDecide && !throughDoor(item));
  const ownAllowed = ownFourEyes && !throughDoor(item) && !!alone.data?.on;
  const ownRequest = ownFourEyes && !ownAllowed;
  const origin = originHref(slug, item);
  const identical = item.identical?.count ?? 1;

  async function decide(decision: "approve" | "reject", extra: { reason?: string; input?: Record<string, unknown> } = {}) {
    if (gone) return;
    if (decision === "reject" && !extra.reason?.trim()) {
      setError("Say why you reject it: the agent is told the reason.");
      setErrorCode(null);
      setReasonMissing(true);
      return;
    }
    setBusy(true);
    setError(null);
    setErrorCode(null);
    try {
      await api(`/api/approvals/${item.id}/decision`, { method: "POST", body: { decision, via, ...extra } });
      toast.success(`${decision === "approve" ? "Approved" : "Rejected"}: ${item.preview.title}`);
      onDecided();
    } catch (e) {
      setError(isAppError(e) ? e.message : "The decision was not saved.");
      setErrorCode(isAppError(e) ? e.code : null);
    } finally {
      setBusy(false);
    }
  }

  const left = timeLeft(item.expiresAt, now);
  return (
    <article
      data-approval
      tabIndex={-1}
      data-gone={gone ? "true" : undefined}
      className={`card relative min-w-0 space-y-3 p-3 outline-none sm:p-4 ${selected ? "ring-2 ring-indigo-500" : ""} ${gone ? "border-dashed bg-slate-50 grayscale" : ""}`}
      aria-current={selected ? "true" : undefined}
      aria-label={`Approval: ${item.preview.title} by @${item.agent.handle}`}>
      {after ? (
        // Laid over the card's top line, so the card keeps its height and nothing below it moves.
        <div
          className="absolute inset-x-0 top-0 z-10 flex items-center justify-between gap-2 rounded-t-lg border-b border-slate-300 bg-slate-200 px-3 py-1.5 text-sm text-slate-900 sm:px-4"
          role="status"
          data-testid="decided-elsewhere">
          <span className="min-w-0 truncate font-medium">
            {after.text}
            {after.at ? (
              <>
                {" "}
                <Time at={after.at} />
              </>
            ) : null}
          </span>
          {onDismiss ? (
            <button type="button" className="btn-secondary shrink-0 px-2 py-0.5 text-xs" onClick={onDismiss}>
              Dismiss
            </button>
          ) : null}
        </div>
      ) : null}
      <header className="flex flex-wrap items-center gap-2 text-xs">
        {onPick && canDecide ? <PickBox item={item} picked={!!picked} disabled={gone} onPick={onPick} className="xl:hidden" /> : null}
        <span className={`rounded px-2 py-0.5 font-medium ${item.category === "tainted_egress" ? "bg-amber-100 text-amber-900" : "bg-indigo-50 text-indigo-700"}`}>
          {categoryLabels[item.category] ?? item.category}
        </span>
        {item.baseCategory && item.baseCategory !== item.category ? (
          // Tainted, and still what it is: a tainted send outside is a send outside too.
          <span className="rounded bg-indigo-50 px-2 py-0.5 font-medium text-indigo-700" data-testid="approval-base-category">
            {categoryLabels[item.baseCategory] ?? item.baseCategory}
          </span>
        ) : null}
        <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-700">{toolLabel(item)}</span>
        <span className="flex items-center gap-1 text-slate-600">
          <span aria-hidden className="inline-block h-2 w-2 rounded-full" style={{ backgroundColor: item.agent.color }} />@{item.agent.handle}
        </span>
        <span className="text-slate-500" data-testid="approval-requester">
          {requestLine(item)}
        </span>
        {identical > 1 ? (
          <span className="rounded bg-amber-50 px-1.5 py-0.5 font-medium text-amber-800 ring-1 ring-amber-200" title="Deciding applies to the request shown; the others stay waiting.">
            {identical} identical requests
          </span>
        ) : null}
        <span className={`ml-auto font-medium ${left === "expired" ? "text-rose-700" : "text-slate-700"}`} title={absoluteWhen(item.expiresAt, { timeZone })}>
          {left}
        </span>
      </header>
      {item.judgeVerdict ? (
        <p className="rounded bg-slate-50 px-2 py-1 text-xs text-slate-700" data-testid="approval-judge">
          {judgeLine(item.judgeVerdict)}
        </p>
      ) : null}
      <HiddenWarning value={item.input} />
      <PreviewCard preview={item.preview} />
      {cap ? null : (
        <details className="text-xs">
          <summary className="cursor-pointer text-slate-600">Exact input</summary>
          <pre className="mt-1 overflow-x-auto rounded bg-slate-900 p-2 text-slate-100">{exactJson(item.input)}</pre>
          <p className="mt-1 text-slate-600">
            Call <span className="font-mono break-all">{item.callId}</span>
          </p>
        </details>
      )}
      {cap ? (
        <p className="text-xs text-slate-600">This decides only whether the run may spend more; what it read does not change that.</p>
      ) : (
        <TaintList item={item} slug={slug} />
      )}
      <NotifiedLine notified={item.notified} />
      {item.missionId ? (
        <Link className="inline-block text-sm text-indigo-700 hover:underline" href={`/w/${slug}/missions/${item.missionId}`}>
          See the mission this step belongs to →
        </Link>
      ) : null}
      {via !== "inbox" ? null : origin ? (
        <Link className="inline-block text-sm text-indigo-700 hover:underline" href={origin} data-action="open">
          {item.originRoom ? `See the post in #${item.originRoom} that began this →` : "See the conversation that led to this →"}
        </Link>
      ) : item.runId ? (
        <Link className="inline-block text-sm text-indigo-700 hover:underline" href={`/w/${slug}/runs/${item.runId}`} data-action="open">
          See the run that led to this →
        </Link>
      ) : (
        <p className="text-xs text-slate-500">This came from a private chat; its conversation is open to the person who started it and to reviewers.</p>
      )}
      {identical > 1 ? (
        <p className="text-xs text-slate-600">
          {identical - 1} more {identical === 2 ? "run asks" : "runs ask"} for exactly this. A decision here applies to this request only; the next one is shown after it.
        </p>
      ) : null}
      {canDecide ? (
        <div className="space-y-2 border-t border-slate-100 pt-3">
          {ownAllowed && alone.data ? <OwnApprovalNote state={alone.data} /> : null}
          {ownRequest ? (
            <p className="text-xs text-slate-600" data-testid="four-eyes-note">
              This was asked on your behalf: this workspace needs someone else to approve it. You can still reject it.{" "}
              {cap ? (
                "Another manager or an owner can let the run spend more."
              ) : can(role, "members.manage") ? (
                <>
                  Another reviewer can approve it (
                  <Link className="text-indigo-700 underline" href={`/w/${slug}/settings/members`}>
                    invite one
                  </Link>
                  ), or a manager can take this category out of four eyes in the{" "}
                  <Link className="text-indigo-700 underline" href={`/w/${slug}/settings/policy`}>
                    policy
                  </Link>
                  .
                </>
              ) : (
                "Ask a reviewer, a manager or an owner to decide it."
              )}
            </p>
          ) : null}
          {mode === "reject" ? (
            <div className="space-y-2">
              <label className="label" htmlFor={`reason-${item.id}`}>
                Reason for rejecting
              </label>
              {gone ? (
                <p id={`reason-${item.id}-rule`} className="text-xs font-medium text-slate-800" data-testid="draft-not-sent">
                  Your reason was not sent. It is kept here to copy.
                </p>
              ) : (
                <p id={`reason-${item.id}-rule`} className="text-xs text-slate-600">
                  Required: the agent is told why.
                </p>
              )}
              <textarea
                id={`reason-${item.id}`}
                autoFocus
                required
                maxLength={2000}
                readOnly={gone}
                aria-describedby={`reason-${item.id}-rule`}
                aria-invalid={reasonMissing && !reason.trim() ? true : undefined}
                className="input"
                rows={2}
                value={reason}
                onChange={(e) => {
                  setReason(e.target.value);
                  if (reasonMissing) {
                    setReasonMissing(false);
                    setError(null);
                  }
                }}
              />
              <div className="grid grid-cols-2 gap-2 sm:flex">
                <button className="btn-danger py-2.5 sm:py-1.5" disabled={busy || gone} onClick={() => void decide("reject", { reason: reason.trim() || undefined })}>
                  Confirm rejection
                </button>
                {gone ? (
                  <CopyDraft text={reason} what="reason" />
                ) : (
                  <button className="btn-secondary py-2.5 sm:py-1.5" onClick={() => setMode("idle")}>
                    Back
                  </button>
                )}
              </div>
            </div>
          ) : mode === "edit" ? (
            <EditInput
              item={item}
              busy={busy}
              frozen={gone}
              canApprove={!ownRequest}
              onApprove={(input) => void decide("approve", { input, reason: reason || undefined })}
              onBack={() => setMode("idle")}
            />
          ) : (
            <div className="grid grid-cols-2 gap-2 sm:flex sm:flex-wrap">
              <button className="btn-primary py-2.5 sm:py-1.5" data-action="approve" disabled={busy || ownRequest || gone} onClick={() => void decide("approve")}>
                Approve
              </button>
              <button className="btn-danger py-2.5 sm:py-1.5" data-action="reject" disabled={busy || gone} onClick={() => setMode("reject")}>
                Reject…
              </button>
              {cap ? null : (
                <button className="btn-secondary col-span-2 py-2.5 sm:py-1.5" data-action="edit" disabled={busy || ownRequest || gone} onClick={() => setMode("edit")}>
                  Edit, then approve…
                </button>
              )}
            </div>
          )}
          {error ? (
            <p role="alert" className="text-sm text-rose-700">
              {error}
              {errorCode ? <ErrorCode code={errorCode} className="mt-0.5 block" /> : null}
            </p>
          ) : null}
        </div>
      ) : (
        <p className="border-t border-slate-100 pt-3 text-xs text-slate-500">
          {cap ? "Managers and owners decide whether a run or a mission may spend past its cap." : "Reviewers, managers and owners decide approvals."}
        </p>
      )}
    </article>
  );
}
