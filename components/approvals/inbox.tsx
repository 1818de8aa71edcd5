"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useApi, useWorkspace } from "../providers";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../ui/tabs";
import { Time, useNow } from "../ui/time";
import { ApprovalCard, TaintList } from "./approval-card";
import { InboxKeysHelp, useInboxKeys } from "./inbox-keys";
import { useLiveApprovals } from "./live-approvals";
import { useSelectFromAddress } from "../ui/use-address-selection";
import { categoryLabels, requestLine, type ApprovalItem } from "./types";

export function ApprovalsInbox({ viewerId, canDecide }: { viewerId: string; canDecide: boolean }) {
  return (
    <Tabs defaultValue="pending" className="space-y-4">
      <TabsList aria-label="Approvals">
        <TabsTrigger value="pending">Pending</TabsTrigger>
        <TabsTrigger value="history">History</TabsTrigger>
      </TabsList>
      <TabsContent value="pending">
        <Pending viewerId={viewerId} canDecide={canDecide} />
      </TabsContent>
      <TabsContent value="history">
        <History />
      </TabsContent>
    </Tabs>
  );
}

function Pending({ viewerId, canDecide }: { viewerId: string; canDecide: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const { version, streamError } = useLiveApprovals();
  const [sort, setSort] = useState<"expiry" | "newest" | "oldest">("expiry");
  const now = useNow();
  const key = ["approvals", slug, "pending", sort];
  const query = useQuery({
    queryKey: key,
    queryFn: () => api<{ approvals: ApprovalItem[] }>(`/api/approvals?status=pending&sort=${sort}`),
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    if (version > 0) void queryClient.invalidateQueries({ queryKey: ["approvals", slug] });
  }, [version, queryClient, slug]);
  const list = useRef<HTMLUListElement>(null);
  const keys = useInboxKeys(list, query.data?.approvals.length ?? 0);
  const ids = useMemo(() => query.data?.approvals.map((a) => a.id), [query.data]);
  useSelectFromAddress("approval", ids, keys.select);

  return (
    <section aria-label="Pending approvals" className="space-y-3">
      {streamError ? (
        <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {streamError} New approvals may not appear until the page reconnects.
        </p>
      ) : null}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-600" aria-live="polite">
          {query.data ? `${query.data.approvals.reduce((n, a) => n + (a.identical?.count ?? 1), 0)} waiting for a decision` : "Loading…"}
        </p>
        <div className="flex items-center gap-2">
        <InboxKeysHelp open={keys.help} onOpenChange={keys.setHelp} />
        <label className="flex items-center gap-2 text-sm text-slate-600">
          Sort
          <select className="input w-44 py-1" value={sort} onChange={(e) => setSort(e.target.value as typeof sort)}>
            <option value="expiry">Soonest expiry first</option>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </label>
        </div>
      </div>
      {query.isError ? <p className="text-sm text-rose-700">Could not load approvals.</p> : null}
      {query.data?.approvals.length === 0 ? (
        <p className="card p-6 text-sm text-slate-600">Nothing is waiting. Gated agent actions appear here as soon as they are asked for.</p>
      ) : null}
      <ul className="space-y-3" ref={list}>
        {query.data?.approvals.map((item, i) => (
          <li key={item.id} data-item-id={item.id} onFocusCapture={() => keys.select(i)}>
            <ApprovalCard
              selected={i === keys.selected}
              item={item}
              now={now}
              viewerId={viewerId}
              canDecide={canDecide}
              onDecided={() => void queryClient.invalidateQueries({ queryKey: ["approvals", slug] })}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

const statusStyles: Record<string, string> = {
  approved: "bg-emerald-50 text-emerald-700",
  rejected: "bg-rose-50 text-rose-700",
  expired: "bg-slate-100 text-slate-600",
  withdrawn: "bg-slate-100 text-slate-600",
};

function History() {
  const api = useApi();
  const { slug } = useWorkspace();
  const { version } = useLiveApprovals();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState({ status: "all", category: "", agent: "", taint: "" });
  const params = new URLSearchParams({ status: filters.status === "all" ? "all" : filters.status, sort: "newest" });
  if (filters.category) params.set("category", filters.category);
  if (filters.agent) params.set("agent", filters.agent);
  if (filters.taint) params.set("taint", filters.taint);
  const query = useQuery({
    queryKey: ["approvals", slug, "history", filters],
    queryFn: () => api<{ approvals: ApprovalItem[] }>(`/api/approvals?${params.toString()}`),
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    if (version > 0) void queryClient.invalidateQueries({ queryKey: ["approvals", slug, "history"] });
  }, [version, queryClient, slug]);
  const items = useMemo(() => (query.data?.approvals ?? []).filter((a) => a.status !== "pending"), [query.data]);
  const all = useQuery({ queryKey: ["approvals", slug, "facets"], queryFn: () => api<{ approvals: ApprovalItem[] }>("/api/approvals?status=all&limit=200") });
  const agents = [...new Set((all.data?.approvals ?? []).map((a) => a.agent.handle))].sort();
  const taints = [...new Set((all.data?.approvals ?? []).flatMap((a) => a.taintSources.map((t) => t.source)))].sort();
  const set = (field: keyof typeof filters) => (e: React.ChangeEvent<HTMLSelectElement>) => setFilters((f) => ({ ...f, [field]: e.target.value }));

  return (
    <section aria-label="Decided approvals" className="space-y-3">
      <div className="flex flex-wrap gap-3" role="group" aria-label="Filters">
        <label className="text-sm text-slate-600">
          Outcome{" "}
          <select className="input w-36 py-1" value={filters.status} onChange={set("status")}>
            <option value="all">Any</option>
            <option value="decided">Approved or rejected</option>
            <option value="expired">Expired</option>
            <option value="withdrawn">Withdrawn (run stopped)</option>
          </select>
        </label>
        <label className="text-sm text-slate-600">
          Category{" "}
          <select className="input w-52 py-1" value={filters.category} onChange={set("category")}>
            <option value="">Any</option>
            {Object.entries(categoryLabels).map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm text-slate-600">
          Agent{" "}
          <select className="input w-36 py-1" value={filters.agent} onChange={set("agent")}>
            <option value="">Any</option>
            {agents.map((h) => (
              <option key={h} value={h}>
                @{h}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm text-slate-600">
          Taint{" "}
          <select className="input w-48 py-1" value={filters.taint} onChange={set("taint")}>
            <option value="">Any</option>
            {taints.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {items.length === 0 ? <p className="card p-6 text-sm text-slate-600">No decided approvals match.</p> : null}
      <ul className="space-y-2">
        {items.map((item) => (
          <li key={item.id} className="card space-y-2 p-3" aria-label={`${item.status}: ${item.preview.title}`}>
            <div className="flex flex-wrap items-center gap-2 text-xs">
              <span className={`rounded px-2 py-0.5 font-medium capitalize ${statusStyles[item.status] ?? ""}`}>{item.status}</span>
              <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono">{item.tool}</span>
              <span className="text-slate-600">{requestLine(item)}</span>
              <span className="text-slate-500">{categoryLabels[item.category] ?? item.category}</span>
              <span className="ml-auto text-slate-500">
                {item.status === "expired" ? "expired" : item.status === "withdrawn" ? "the run was stopped" : `by ${item.decidedBy ?? (item.judgeVerdict?.decided ? "the judge" : "?")}`} ·{" "}
                {item.decidedAt ? <Time at={item.decidedAt} /> : ""}
              </span>
            </div>
            <div className="text-sm">
              <span className="font-medium">{item.preview.title}</span>
              {item.preview.fields.map((f) => (
                <span key={f.label} className="ml-2 text-slate-600">
                  {f.label}: {f.value}
                </span>
              ))}
              {item.editedInput ? <span className="ml-2 rounded bg-indigo-50 px-1.5 text-xs text-indigo-700">input edited</span> : null}
            </div>
            {item.reason ? <p className="text-sm text-slate-600">Why: {item.reason}</p> : null}
            <TaintList item={item} slug={slug} />
          </li>
        ))}
      </ul>
    </section>
  );
}
