"use client";

import { useMemo, useState } from "react";
import { formFields, inputChanges, shownValue, type FormField } from "./input-form";
import type { ApprovalItem } from "@/lib/safety/approval-schemas";
import { CopyDraft } from "./copy-draft";
import { Revealed } from "../ui/revealed";
import { exactJson, hiddenIn } from "@/lib/hidden-characters";

type Input = Record<string, unknown>;

function FieldControl({ field, id, value, onChange, autoFocus }: { field: FormField; id: string; value: unknown; onChange: (v: unknown) => void; autoFocus: boolean }) {
  const common = { id, autoFocus, "aria-describedby": field.description ? `${id}-hint` : undefined };
  switch (field.kind) {
    case "longtext":
      return <textarea {...common} className="input" rows={4} maxLength={field.maxLength} value={typeof value === "string" ? value : ""} onChange={(e) => onChange(e.target.value)} />;
    case "text":
      return <input {...common} className="input" maxLength={field.maxLength} value={typeof value === "string" ? value : ""} onChange={(e) => onChange(e.target.value)} />;
    case "number":
      return (
        <input
          {...common}
          className="input"
          type="number"
          step={field.integer ? 1 : "any"}
          value={typeof value === "number" ? String(value) : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
      );
    case "boolean":
      return <input {...common} type="checkbox" className="h-4 w-4" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case "choice":
      return (
        <select {...common} className="input" value={typeof value === "string" ? value : ""} onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}>
          {field.required ? null : <option value="">—</option>}
          {field.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
  }
}

function withoutEmpty(values: Input): Input {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** The change, key by key: what the agent asked for, struck through, above what will run. */
export function InputDiff({ before, after }: { before: Input; after: Input }) {
  const changes = inputChanges(before, after);
  if (changes.length === 0) return <p className="text-sm text-slate-600">Nothing was changed: this is the input the agent asked for.</p>;
  return (
    <dl className="space-y-2 text-sm" data-testid="input-diff" aria-label="Changes to the input">
      {changes.map((c) => (
        <div key={c.key} className="min-w-0 rounded border border-slate-200">
          <dt className="border-b border-slate-200 bg-slate-50 px-2 py-1 font-mono text-xs text-slate-700">{c.key}</dt>
          <dd className="min-w-0">
            <del className="block bg-rose-50 px-2 py-1 whitespace-pre-wrap break-words text-rose-900" aria-label={`was: ${shownValue(c.before)}`}>
              <Revealed text={shownValue(c.before)} />
            </del>
            <ins className="block bg-emerald-50 px-2 py-1 whitespace-pre-wrap break-words text-emerald-900 no-underline" aria-label={`becomes: ${shownValue(c.after)}`}>
              <Revealed text={shownValue(c.after)} />
            </ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Edit, then approve: a form made from the tool's input schema (JSON for any
 * shape it cannot show), then the changes against the original before the
 * reviewer confirms.
 */
export function EditInput({ item, busy, frozen = false, canApprove, onApprove, onBack }: {
  item: ApprovalItem;
  busy: boolean;
  /** Decided elsewhere: the draft is shown read-only, to copy, and nothing can be sent. */
  frozen?: boolean;
  canApprove: boolean;
  onApprove: (input: Input) => void;
  onBack: () => void;
}) {
  const fields = useMemo(() => formFields(item.inputSchema, item.input), [item.inputSchema, item.input]);
  // A form's fields would show hidden characters as they act (a direction override turns the text round): an input
  // holding any is edited as JSON, where each one is escaped.
  const [asJson, setAsJson] = useState(() => fields === null || hiddenIn(item.input).length > 0);
  const [values, setValues] = useState<Input>(item.input);
  const [json, setJson] = useState(() => exactJson(item.input));
  const [review, setReview] = useState<Input | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  function parsedJson(): Input | null {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      setProblem("The edited input is not valid JSON.");
      return null;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      setProblem("The edited input must be a JSON object.");
      return null;
    }
    return parsed as Input;
  }

  function switchTo(json: boolean) {
    setProblem(null);
    if (json) {
      setJson(exactJson(withoutEmpty(values)));
      setAsJson(true);
      return;
    }
    const parsed = parsedJson();
    if (!parsed) return;
    if (!formFields(item.inputSchema, parsed)) {
      setProblem("This input has values the form cannot show: keep editing it as JSON.");
      return;
    }
    if (hiddenIn(parsed).length > 0) {
      setProblem("This input holds hidden characters that a form would not show: keep editing it as JSON.");
      return;
    }
    setValues(parsed);
    setAsJson(false);
  }

  function toReview() {
    setProblem(null);
    const next = asJson ? parsedJson() : withoutEmpty(values);
    if (next) setReview(next);
  }

  const id = (key: string) => `edit-${item.id}-${key}`;
  if (frozen) {
    const draft = review ? exactJson(review) : asJson ? json : exactJson(withoutEmpty(values));
    return (
      <div className="space-y-2" data-testid="edit-draft">
        <label className="label" htmlFor={id("draft")}>
          Your edited input
        </label>
        <p className="text-xs font-medium text-slate-800" data-testid="draft-not-sent">
          Your edited input was not sent. It is kept here to copy.
        </p>
        <textarea id={id("draft")} readOnly className="input font-mono text-xs" rows={6} value={draft} />
        <div className="grid grid-cols-2 gap-2 sm:flex">
          <CopyDraft text={draft} what="edited input" />
        </div>
      </div>
    );
  }
  if (review) {
    return (
      <div className="space-y-2" data-testid="edit-review">
        <h3 className="text-sm font-semibold">Check the changes before approving</h3>
        <InputDiff before={item.input} after={review} />
        <p className="text-xs text-slate-600">The policy checks the edited call again, and the agent is told it was changed.</p>
        <div className="grid grid-cols-2 gap-2 sm:flex">
          <button className="btn-primary py-2.5 sm:py-1.5" disabled={busy || !canApprove} onClick={() => onApprove(review)} autoFocus>
            Approve edited input
          </button>
          <button className="btn-secondary py-2.5 sm:py-1.5" onClick={() => setReview(null)}>
            Keep editing
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">Input to run instead</h3>
        {fields ? (
          <button type="button" className="text-xs text-indigo-700 underline" onClick={() => switchTo(!asJson)}>
            {asJson ? "Edit as a form" : "Edit as JSON"}
          </button>
        ) : null}
      </div>
      {asJson || !fields ? (
        <>
          <label className="label" htmlFor={id("json")}>
            Input (JSON){fields ? "" : ": the form cannot show this shape"}
          </label>
          <textarea id={id("json")} autoFocus className="input font-mono text-xs" rows={6} value={json} onChange={(e) => setJson(e.target.value)} />
        </>
      ) : (
        <div className="space-y-2" data-testid="edit-form">
          {fields.map((field, i) => (
            <div key={field.key} className={field.kind === "boolean" ? "flex items-center gap-2" : "space-y-1"}>
              <label className="label" htmlFor={id(field.key)}>
                {field.label}
                {field.required ? null : <span className="font-normal text-slate-500"> (optional)</span>}
              </label>
              <FieldControl field={field} id={id(field.key)} value={values[field.key]} autoFocus={i === 0} onChange={(v) => setValues((old) => ({ ...old, [field.key]: v }))} />
              {field.description ? (
                <p id={`${id(field.key)}-hint`} className="text-xs text-slate-500">
                  {field.description}
                </p>
              ) : null}
            </div>
          ))}
        </div>
      )}
      {problem ? (
        <p role="alert" className="text-sm text-rose-700">
          {problem}
        </p>
      ) : null}
      <div className="grid grid-cols-2 gap-2 sm:flex">
        <button className="btn-primary py-2.5 sm:py-1.5" disabled={busy || !canApprove} onClick={toReview}>
          Review changes…
        </button>
        <button className="btn-secondary py-2.5 sm:py-1.5" onClick={onBack}>
          Back
        </button>
      </div>
    </div>
  );
}
