"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { auditPageSchema, type AuditItem } from "@/lib/audit-log/audit-schemas";
import { auditActionWords, auditActorKindWords } from "@/lib/audit-log/audit-words";
import { settingsKeys } from "@/lib/client/query-keys";
import { startOfDay } from "@/lib/client/format-time";
import { memberListSchema } from "@/lib/workspaces/workspace-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { Time } from "../ui/time";

/** The families of actions, for the filter: "approval" covers approval.approved, approval.rejected… */
const families = [...new Set(Object.keys(auditActionWords).map((a) => a.split(".")[0]!))].sort();
const familyWords: Record<string, string> = {
  agent: "Agents",
  agent_file: "Agents' files",
  api_key: "API keys",
  approval: "Decisions on requests",
  approvals: "Approving one's own requests",
  audit: "The audit log",
  auth: "Sign-in",
  budget: "Spending caps",
  budgets: "Budgets",
  connection: "Connections",
  credential: "Credentials",
  crew: "Crews",
  door_token: "Door tokens",
  governor: "The governor",
  installation: "The server",
  invitation: "Invitations",
  member: "Members",
  notifications: "Passing requests on",
  policy: "The policy",
  prices: "Prices",
  room: "Rooms",
  slack: "Slack",
  user: "Passwords",
  webhook: "Webhooks",
  workspace: "The workspace",
};

/** `YYYY-MM-DD` as the first instant of that day in the workspace's zone (ISO), or undefined. */
function dayStart(value: string, timeZone: string, plusDays = 0): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const start = startOfDay({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) + plusDays }, timeZone);
  return start.toISOString();
}

/** Settings → Audit log: who did what, filtered by person, kind of action, object and days, with exports of the range. */
export function AuditLog() {
  const api = useApi();
  const { slug, timeZone } = useWorkspace();
  const members = useQuery({ queryKey: settingsKeys.members(slug), queryFn: () => api("/api/members", { schema: memberListSchema }) });
  const [actor, setActor] = useState("");
  const [family, setFamily] = useState("");
  const [object, setObject] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const params = useMemo(() => {
    const p = new URLSearchParams();
    if (actor) p.set("actor", actor);
    if (family) p.set("action", family);
    if (/^[a-z_]{1,40}(:[A-Za-z0-9_-]{1,80})?$/.test(object.trim())) p.set("object", object.trim());
    const fromAt = dayStart(from, timeZone);
    const toAt = dayStart(to, timeZone, 1);
    if (fromAt) p.set("from", fromAt);
    if (toAt) p.set("to", toAt);
    return p;
  }, [actor, family, object, from, to, timeZone]);
  const log = useInfiniteQuery({
    queryKey: ["audit", slug, params.toString()],
    initialPageParam: null as number | null,
    queryFn: ({ pageParam }) => {
      const p = new URLSearchParams(params);
      if (pageParam) p.set("before", String(pageParam));
      return api(`/api/audit?${p.toString()}`, { schema: auditPageSchema });
    },
    getNextPageParam: (last) => last.next,
  });
  const items = log.data?.pages.flatMap((p) => p.items) ?? [];
  const exportHref = (format: "csv" | "jsonl") => {
    const p = new URLSearchParams(params);
    p.set("format", format);
    p.set("workspace", slug);
    return `/api/audit/export?${p.toString()}`;
  };

  return (
    <div className="space-y-4">
      <form className="card grid gap-3 p-4 sm:grid-cols-2 lg:grid-cols-5" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label className="space-y-1 text-sm">
          <span className="label">Person</span>
          <select className="input" value={actor} onChange={(e) => setActor(e.target.value)}>
            <option value="">Anyone</option>
            {(members.data?.members ?? []).map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label className="space-y-1 text-sm">
          <span className="label">About</span>
          <select className="input" value={family} onChange={(e) => setFamily(e.target.value)}>
            <option value="">Everything</option>
            {families.map((f) => (
              <option key={f} value={f}>
                {familyWords[f] ?? f}
              </option>
            ))}
          </select>
        </label>
        <label className="space-y-1 text-sm">
          <span className="label">Object (its kind, or its kind and id)</span>
          <input className="input" value={object} placeholder="approval" onChange={(e) => setObject(e.target.value)} />
        </label>
        <label className="space-y-1 text-sm">
          <span className="label">From (day)</span>
          <input className="input" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label className="space-y-1 text-sm">
          <span className="label">To (day, included)</span>
          <input className="input" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </form>

      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="text-slate-600">Export what the filters show, oldest first:</span>
        <a className="btn-secondary py-1 text-xs" href={exportHref("csv")} download>
          CSV
        </a>
        <a className="btn-secondary py-1 text-xs" href={exportHref("jsonl")} download>
          JSON Lines
        </a>
      </div>

      <section className="card p-0" aria-label="Audit log entries">
        {log.isError ? (
          <div className="p-4">
            <ErrorNotice error={log.error} fallback="The audit log could not be loaded." />
          </div>
        ) : null}
        {log.data && items.length === 0 ? <p className="p-4 text-sm text-slate-600">Nothing was recorded that matches these filters.</p> : null}
        <ul className="divide-y divide-slate-100">
          {items.map((it) => (
            <AuditRow key={it.id} item={it} />
          ))}
        </ul>
        {log.hasNextPage ? (
          <div className="border-t border-slate-100 p-3 text-center">
            <button type="button" className="btn-secondary" disabled={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
              {log.isFetchingNextPage ? "Loading…" : "Older entries"}
            </button>
          </div>
        ) : null}
      </section>
    </div>
  );
}

function AuditRow({ item }: { item: AuditItem }) {
  const who = item.actor.name ?? auditActorKindWords[item.actor.kind] ?? "Someone";
  const key = keyOf(item.details);
  const details = Object.keys(item.details).length > 0 ? JSON.stringify(item.details) : null;
  return (
    <li className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-4 py-2 text-sm" data-testid="audit-entry">
      <span className="w-36 shrink-0 text-xs text-slate-600">
        <Time at={item.at} />
      </span>
      <span className="min-w-0 flex-1 wrap-anywhere">
        <span className="font-medium text-slate-900">{who}</span>
        {key ? <span className="text-slate-700"> (with the API key “{key}”)</span> : null}{" "}
        {auditActionWords[item.action] ?? (
          <>
            did <code>{item.action}</code>
          </>
        )}
        {item.object ? (
          <span className="text-xs text-slate-600">
            {" "}
            · <code className="break-all">{`${item.object.type}:${item.object.id}`}</code>
          </span>
        ) : null}
        {details ? (
          <details className="mt-0.5 text-xs text-slate-600">
            <summary className="cursor-pointer">Details</summary>
            <code className="block break-all whitespace-pre-wrap">{details}</code>
          </details>
        ) : null}
      </span>
    </li>
  );
}

/** The name of the API key an entry was made with, if it was. */
function keyOf(details: Record<string, unknown>): string | null {
  const key = details.apiKey;
  return key && typeof key === "object" && "name" in key && typeof key.name === "string" ? key.name : null;
}
