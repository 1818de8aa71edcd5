"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { AppError, isAppError } from "@/lib/errors";
import { useApi } from "../providers";
import { agentReplySchema, type AgentSummary } from "@/lib/agents/agent-schemas";
import { isStaleEdit } from "./agent-edits";
import type { ModelChoice, ToolChoice } from "./form-choices";

export interface AgentFormValues {
  name: string;
  handle: string;
  color: string;
  description: string;
  systemPrompt: string;
  model: string;
  tools: string[];
}

type Field = keyof AgentFormValues;

const COLORS = ["#6366f1", "#0ea5e9", "#10b981", "#f59e0b", "#ef4444", "#ec4899", "#8b5cf6", "#64748b"];

export const blankAgent = (model: string): AgentFormValues => ({
  name: "",
  handle: "",
  color: COLORS[0]!,
  description: "",
  systemPrompt: "",
  model,
  tools: [],
});

/** Which field a refusal from the server is about, so its message shows beside it. */
function fieldOf(error: AppError): Field | null {
  if (error.code === "unprocessable:model") return "model";
  if (error.code === "unprocessable:tools") return "tools";
  if (error.code === "conflict:agent") return "handle";
  if (error.code === "bad_request:body" && Array.isArray(error.details)) {
    const path = (error.details[0] as { path?: unknown } | undefined)?.path;
    const first = typeof path === "string" ? path.split(".")[0] : "";
    if (first && ["name", "handle", "color", "description", "systemPrompt", "model", "tools"].includes(first)) return first as Field;
  }
  return null;
}

function messageOf(error: AppError): string {
  if (error.code === "bad_request:body" && Array.isArray(error.details)) {
    const message = (error.details[0] as { message?: unknown } | undefined)?.message;
    if (typeof message === "string") return message;
  }
  return error.message;
}

/** Creates an agent, or edits one (sending only what changed). */
export function AgentForm({
  agentId,
  initial,
  models,
  tools,
  onSaved,
  onCancel,
  version,
  onStale,
}: {
  /** Set when editing. */
  agentId?: string;
  /** When editing: the version `initial` was read at. */
  version?: number;
  /** When editing: someone else saved the agent since `initial` was read. */
  onStale?: () => void;
  initial: AgentFormValues;
  models: ModelChoice[];
  tools: ToolChoice[];
  onSaved: (agent: AgentSummary) => void;
  onCancel?: () => void;
}) {
  const api = useApi();
  const id = useId();
  const [values, setValues] = useState<AgentFormValues>(initial);
  const editing = !!agentId;
  const save = useMutation({
    mutationFn: () => {
      if (!editing) return api("/api/agents", { method: "POST", body: values, schema: agentReplySchema });
      // Only what changed (an unchanged model is not checked again), and the version it was changed from.
      const changed: Partial<AgentFormValues> & { version?: number } = { version };
      for (const key of Object.keys(values) as Field[]) {
        if (JSON.stringify(values[key]) !== JSON.stringify(initial[key])) Object.assign(changed, { [key]: values[key] });
      }
      return api(`/api/agents/${agentId}`, { method: "PATCH", body: changed, schema: agentReplySchema });
    },
    onSuccess: ({ agent }) => onSaved(agent),
    onError: (error) => {
      if (isStaleEdit(error)) onStale?.();
    },
  });

  const error = isAppError(save.error) ? save.error : null;
  const errorField = error ? fieldOf(error) : null;
  const fieldError = (field: Field) =>
    errorField === field && error ? (
      <p role="alert" id={`${id}-${field}-error`} className="mt-1 text-xs text-rose-700" data-testid={`agent-${field}-error`}>
        {messageOf(error)}
      </p>
    ) : null;
  const set = <K extends Field>(field: K, value: AgentFormValues[K]) => setValues((v) => ({ ...v, [field]: value }));
  const invalid = (field: Field) => (errorField === field ? { "aria-invalid": true, "aria-describedby": `${id}-${field}-error` } : {});
  const suggestions = models.filter((m) => !m.spec.endsWith(":"));

  return (
    <form
      aria-label={editing ? "Edit agent" : "New agent"}
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label className="label" htmlFor={`${id}-name`}>
            Name
          </label>
          <input id={`${id}-name`} className="input" required maxLength={60} value={values.name} onChange={(e) => set("name", e.target.value)} {...invalid("name")} />
          {fieldError("name")}
        </div>
        <div>
          <label className="label" htmlFor={`${id}-handle`}>
            Handle
          </label>
          <div className="flex items-center">
            <span className="rounded-l-md border border-r-0 border-slate-300 bg-slate-50 px-2 py-1.5 text-sm text-slate-500">@</span>
            <input
              id={`${id}-handle`}
              className="input rounded-l-none font-mono"
              required
              maxLength={33}
              value={values.handle}
              onChange={(e) => set("handle", e.target.value)}
              {...invalid("handle")}
            />
          </div>
          {fieldError("handle") ?? (
            <p className="mt-1 text-xs text-slate-500">{editing ? "Other agents reach it as @handle: changing it breaks messages that use the old one." : "How other agents and people reach it, e.g. tell @handle …"}</p>
          )}
        </div>
      </div>

      <div>
        <span className="label" id={`${id}-color-label`}>
          Colour
        </span>
        <div className="flex flex-wrap items-center gap-2" role="radiogroup" aria-labelledby={`${id}-color-label`}>
          {COLORS.map((c) => (
            <button
              key={c}
              type="button"
              role="radio"
              aria-checked={values.color.toLowerCase() === c}
              aria-label={c}
              className={`h-7 w-7 rounded-full ring-offset-2 ${values.color.toLowerCase() === c ? "ring-2 ring-slate-700" : "hover:ring-2 hover:ring-slate-300"}`}
              style={{ backgroundColor: c }}
              onClick={() => set("color", c)}
            />
          ))}
          <label className="ml-2 flex items-center gap-1.5 text-xs text-slate-600">
            Other
            <input type="color" className="h-7 w-9 cursor-pointer rounded border border-slate-300 bg-surface" value={values.color} onChange={(e) => set("color", e.target.value)} aria-label="Custom colour" />
          </label>
        </div>
        {fieldError("color")}
      </div>

      <div>
        <label className="label" htmlFor={`${id}-description`}>
          Description
        </label>
        <input id={`${id}-description`} className="input" maxLength={500} value={values.description} onChange={(e) => set("description", e.target.value)} placeholder="What it is for, in one line" />
        {fieldError("description")}
      </div>

      <div>
        <label className="label" htmlFor={`${id}-prompt`}>
          System prompt
        </label>
        <textarea
          id={`${id}-prompt`}
          className="input min-h-28 font-mono text-xs leading-relaxed"
          rows={5}
          maxLength={20_000}
          value={values.systemPrompt}
          onChange={(e) => set("systemPrompt", e.target.value)}
          placeholder="You are … Your job is …"
        />
        {fieldError("systemPrompt")}
      </div>

      <div>
        <label className="label" htmlFor={`${id}-model`}>
          Model
        </label>
        <input
          id={`${id}-model`}
          className="input font-mono"
          required
          maxLength={100}
          list={`${id}-models`}
          value={values.model}
          onChange={(e) => set("model", e.target.value)}
          {...invalid("model")}
        />
        <datalist id={`${id}-models`}>
          {suggestions.map((m) => (
            <option key={m.spec} value={m.spec}>
              {m.label}
            </option>
          ))}
        </datalist>
        {fieldError("model") ?? (
          <p className="mt-1 text-xs text-slate-500">
            <code className="font-mono">offline</code>, a Claude model id, or <code className="font-mono">provider:model</code> for a configured provider.
            {models.length > 0 ? ` Available here: ${models.map((m) => m.spec).join(", ")}.` : ""}
          </p>
        )}
      </div>

      <fieldset>
        <legend className="label">Allowed tools</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {tools.map((tool) => {
            const checked = values.tools.includes(tool.name);
            return (
              <label key={tool.name} className={`flex cursor-pointer gap-2 rounded-md border p-2.5 text-sm ${checked ? "border-indigo-300 bg-indigo-50/50" : "border-slate-200 hover:bg-slate-50"}`}>
                <input
                  type="checkbox"
                  className="mt-0.5"
                  checked={checked}
                  onChange={(e) => set("tools", e.target.checked ? [...values.tools, tool.name] : values.tools.filter((t) => t !== tool.name))}
                  aria-label={tool.name}
                />
                <span className="min-w-0">
                  <span className="block font-mono text-xs font-semibold text-slate-800">{tool.name}</span>
                  <span className="block text-xs text-slate-500">{tool.description}</span>
                </span>
              </label>
            );
          })}
        </div>
        {fieldError("tools")}
      </fieldset>

      {error && !errorField ? (
        <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
          {error.message}
        </p>
      ) : save.isError && !error ? (
        <p role="alert" className="text-sm text-rose-700">
          The agent was not saved.
        </p>
      ) : null}

      <div className="flex gap-2">
        <button type="submit" className="btn-primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : editing ? "Save changes" : "Create agent"}
        </button>
        {onCancel ? (
          <button type="button" className="btn-secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
