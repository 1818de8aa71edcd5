"use client";

import { taintLabel } from "@/lib/safety/taint";
import { keepPreviousData, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { approvalKeys } from "@/lib/client/query-keys";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useApi, useWorkspace } from "../providers";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../ui/tabs";
import { Time, useNow } from "../ui/time";
import { ApprovalCard, TaintList, type Outcome } from "./approval-card";
import { ApprovalRow } from "./approval-row";
import { TeamOfOneBanner } from "./own-while-alone";
import { cn } from "../ui/cn";
import { focusTarget, InboxKeysHelp, useInboxKeys } from "./inbox-keys";
import { useLiveApprovals } from "./live-approvals";
import { useSelectFromAddress } from "../ui/use-address-selection";
import { Revealed } from "../ui/revealed";
import { dismiss, emptySteadyList, prune, receive, settle, type Moment } from "./steady-list";
import { approvalListSchema, approvalOneSchema, type ApprovalItem } from "@/lib/safety/approval-schemas";
import { categoryLabels, requestLine, toolLabel } from "./approval-text";
import { InputDiff } from "./edit-input";
import { BatchBar, idsOf } from "./batch-bar";
import { decisionChannelWords } from "@/lib/decision-channels";
import { defaultFilters, facetsSearch, filtersFrom, historySearch, pendingSearch, type Filters } from "./inbox-filters";


/** The inbox's tab, sort and filters live in the address, so a filtered view can be shared and survives a reload. */
function useUrlFilters(): [Filters, (field: keyof Filters, value: string) => void] {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = filtersFrom((name) => search.get(name));
  const set = (field: keyof Filters, value: string) => {
    const next = new URLSearchParams(search.toString());
    if (value === defaultFilters[field]) next.delete(field);
    else next.set(field, value);
    const query = next.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return [filters, set];
}

export function ApprovalsInbox({ viewerId, canDecide }: { viewerId: string; canDecide: boolean }) {
  const [filters, setFilter] = useUrlFilters();
  return (
    <Tabs value={filters.tab} onValueChange={(tab) => setFilter("tab", tab)} className="space-y-4">
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

/** Agent, category and taint: the same filters on Pending and History, read from every approval the viewer can see. */
function ApprovalFilters({ filters, onChange, outcome }: { filters: Filters; onChange: (field: keyof Filters, value: string) => void; outcome?: React.ReactNode }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const all = useQuery({ queryKey: approvalKeys.facets(slug), queryFn: () => api(`/api/approvals?${facetsSearch}`, { schema: approvalListSchema }) });
  // A value from the address that no approval has (yet) is still offered, so the select shows what filters the list.
  const agents = [...new Set([...(all.data?.approvals ?? []).map((a) => a.agent.handle), ...(filters.agent ? [filters.agent] : [])])].sort();
  const taints = [...new Set([...(all.data?.approvals ?? []).flatMap((a) => a.taintSources.map((t) => t.source)), ...(filters.taint ? [filters.taint] : [])])].sort();
  const set = (field: keyof Filters) => (e: React.ChangeEvent<HTMLSelectElement>) => onChange(field, e.target.value);
  // The page arrives with its list already drawn; a filter chosen before the browser has taken over would be lost.
  const ready = useHydrated();
  return (
    <div className="flex flex-wrap gap-3" role="group" aria-label="Filters">
      {outcome}
      <label className="text-sm text-slate-600">
        Category{" "}
        <select className="input w-52 max-w-full py-1" value={filters.category} onChange={set("category")} disabled={!ready}>
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
        <select className="input w-36 py-1" value={filters.agent} onChange={set("agent")} disabled={!ready}>
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
        <select className="input w-48 max-w-full py-1" value={filters.taint} onChange={set("taint")} disabled={!ready}>
          <option value="">Any</option>
          {taints.map((t) => (
            <option key={t} value={t}>
              {taintLabel(t)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function Pending({ viewerId, canDecide }: { viewerId: string; canDecide: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const { version, streamError } = useLiveApprovals();
  const [filters, setFilter] = useUrlFilters();
  const now = useNow();
  const search = pendingSearch(filters);
  const query = useQuery({
    queryKey: approvalKeys.pending(slug, search),
    queryFn: () => api(`/api/approvals?${search}`, { schema: approvalListSchema }),
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    if (version > 0) void queryClient.invalidateQueries({ queryKey: approvalKeys.all(slug) });
  }, [version, queryClient, slug]);

  const list = useRef<HTMLUListElement>(null);
  const [steady, setSteady] = useState(emptySteadyList<ApprovalItem>);
  const ids = useMemo(() => steady.shown.map((item) => item.id), [steady.shown]);
  const selectedId = useRef<string | null>(null);
  const moment = useCallback((): Moment => {
    const el = list.current;
    const pointerInside = !!el?.matches(":hover");
    return { held: pointerInside || !!el?.contains(document.activeElement), pointerInside, selectedId: selectedId.current };
  }, []);

  // Moving on from a card that was decided elsewhere takes it away (never from under the pointer).
  const onSelect = useCallback((id: string | null) => {
    selectedId.current = id;
    setSteady((s) => (s.gone.length > 0 ? prune(s, moment()) : s));
  }, [moment]);
  // Ticked for deciding together (ids of the requests shown).
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const pick = useCallback((pickIds: string[], on: boolean) => {
    setPicked((current) => {
      const next = new Set(current);
      for (const id of pickIds) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  const togglePick = useCallback((id: string) => setPicked((current) => {
    const next = new Set(current);
    if (!next.delete(id)) next.add(id);
    return next;
  }), []);
  const keys = useInboxKeys(list, ids, onSelect, canDecide ? togglePick : undefined);
  useSelectFromAddress("approval", ids, keys.select);
  useEffect(() => {
    selectedId.current = keys.selectedId;
  }, [keys.selectedId]);
  // Decided here: taken out at once, and kept out if a list fetched just before the decision still has it.
  const decidedHere = useRef(new Set<string>());

  const data = query.isPlaceholderData ? undefined : query.data;
  useEffect(() => {
    if (!data) return;
    const incoming = data.approvals.filter((a) => !decidedHere.current.has(a.id));
    setSteady((s) => prune(receive(s, incoming, search, moment()), moment()));
  }, [data, search, moment]);
  // The pointer left the list or the focus left it: apply what waited, unless the other one still holds it.
  const release = (pointerLeft: boolean) =>
    setSteady((s) => {
      if (s.gone.length === 0 && s.waiting.length === 0) return s;
      const now = moment();
      const m = pointerLeft ? { ...now, pointerInside: false, held: !!list.current?.contains(document.activeElement) } : now;
      return m.held ? prune(s, m) : settle(s, m);
    });

  const outcomeQueries = useQueries({
    queries: steady.gone.map((id) => ({
      queryKey: approvalKeys.one(slug, id),
      queryFn: () => api(`/api/approvals/${id}`, { schema: approvalOneSchema }),
    })),
  });
  const outcomeOf = new Map<string, Outcome>(steady.gone.map((id, i) => [id, outcomeQueries[i]?.data?.approval ?? null]));

  function dismissCard(id: string, index: number) {
    setSteady((s) => dismiss(s, id));
    keys.select(index);
    requestAnimationFrame(() => {
      const item = list.current?.querySelectorAll<HTMLElement>("li[data-item-id]")[index];
      if (item) focusTarget(item)?.focus();
    });
  }

  const waiting = steady.waiting.reduce((n, a) => n + (a.identical?.count ?? 1), 0);
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
          {/* New requests are offered on this line rather than pushing the card being read (and its buttons) down. */}
          {waiting > 0 ? (
            <>
              {" · "}
              <button
                type="button"
                className="font-medium text-indigo-700 underline"
                data-testid="new-approvals"
                onClick={() => setSteady((s) => settle(s, { held: false, pointerInside: false, selectedId: selectedId.current }))}>
                {waiting} new — show
              </button>
            </>
          ) : null}
        </p>
        <div className="flex items-center gap-2">
          <InboxKeysHelp open={keys.help} onOpenChange={keys.setHelp} />
          <label className="flex items-center gap-2 text-sm text-slate-600">
            Sort
            <select className="input w-44 py-1" value={filters.sort} onChange={(e) => setFilter("sort", e.target.value)}>
              <option value="expiry">Soonest expiry first</option>
              <option value="newest">Newest first</option>
              <option value="oldest">Oldest first</option>
            </select>
          </label>
        </div>
      </div>
      {data ? <TeamOfOneBanner items={data.approvals} viewerId={viewerId} /> : null}
      <ApprovalFilters filters={filters} onChange={setFilter} />
      {canDecide ? (
        <BatchBar
          items={steady.shown.filter((item) => !steady.gone.includes(item.id))}
          picked={picked}
          focused={steady.shown[keys.selected] ?? null}
          onPick={pick}
          onDecided={(decided) => {
            for (const id of decided) decidedHere.current.add(id);
            const gone = new Set(decided);
            setSteady((s) => s.shown.filter((item) => idsOf(item).some((id) => gone.has(id))).reduce((acc, item) => dismiss(acc, item.id), s));
            setPicked(new Set());
            void queryClient.invalidateQueries({ queryKey: approvalKeys.all(slug) });
          }}
        />
      ) : null}
      {query.isError ? <p className="text-sm text-rose-700">Could not load approvals.</p> : null}
      {data && steady.shown.length === 0 ? (
        <p className="card p-6 text-sm text-slate-600">
          {filters.agent || filters.category || filters.taint
            ? "Nothing waiting matches these filters."
            : "Nothing is waiting. Gated agent actions appear here as soon as they are asked for."}
        </p>
      ) : null}
      {/*
        On a phone, one card after another. On a wide screen, like a mail client: each request on one line, and the
        selected one's card beside the list. It is the same list either way: every card is there, and only the selected
        one is shown beside the lines, so a card keeps what is typed in it while another is looked at.
      */}
      <div className={cn("relative", steady.shown.length > 0 && "xl:min-h-[32rem]")}>
        <ul
          aria-label="Waiting for a decision"
          className="space-y-3 xl:w-[40%] xl:space-y-0 xl:divide-y xl:divide-slate-200 xl:overflow-hidden xl:rounded-lg xl:border xl:border-slate-200 xl:bg-surface"
          ref={list}
          onPointerLeave={() => release(true)}
          onBlur={(e) => {
            if (!e.currentTarget.contains(e.relatedTarget as Node | null)) release(false);
          }}>
          {steady.shown.map((item, i) => {
            const selected = i === keys.selected;
            const gone = steady.gone.includes(item.id);
            return (
              <li key={item.id} data-item-id={item.id} data-request-agent={item.agent.handle} onFocusCapture={() => keys.select(i)}>
                <ApprovalRow
                  item={item}
                  now={now}
                  selected={selected}
                  gone={gone}
                  onSelect={() => keys.select(i)}
                  picked={picked.has(item.id)}
                  onPick={canDecide ? () => togglePick(item.id) : undefined}
                />
                <div className={selected ? "xl:absolute xl:top-0 xl:right-0 xl:w-[58%]" : "xl:hidden"}>
                  <ApprovalCard
                    selected={selected}
                    item={item}
                    now={now}
                    viewerId={viewerId}
                    canDecide={canDecide}
                    gone={gone}
                    outcome={outcomeOf.get(item.id) ?? null}
                    onDismiss={() => dismissCard(item.id, i)}
                    picked={picked.has(item.id)}
                    onPick={() => togglePick(item.id)}
                    onDecided={() => {
                      decidedHere.current.add(item.id);
                      setSteady((s) => dismiss(s, item.id));
                      void queryClient.invalidateQueries({ queryKey: approvalKeys.all(slug) });
                    }}
                  />
                </div>
              </li>
            );
          })}
        </ul>
      </div>
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
  const [filters, setFilter] = useUrlFilters();
  const query = useQuery({
    queryKey: approvalKeys.historyFiltered(slug, filters),
    queryFn: () => api(`/api/approvals?${historySearch(filters)}`, { schema: approvalListSchema }),
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    if (version > 0) void queryClient.invalidateQueries({ queryKey: approvalKeys.history(slug) });
  }, [version, queryClient, slug]);
  const items = useMemo(() => (query.data?.approvals ?? []).filter((a) => a.status !== "pending"), [query.data]);

  return (
    <section aria-label="Decided approvals" className="space-y-3">
      <ApprovalFilters
        filters={filters}
        onChange={setFilter}
        outcome={
          <label className="text-sm text-slate-600">
            Outcome{" "}
            <select className="input w-36 py-1" value={filters.outcome} onChange={(e) => setFilter("outcome", e.target.value)}>
              <option value="all">Any</option>
              <option value="decided">Approved or rejected</option>
              <option value="expired">Expired</option>
              <option value="withdrawn">Withdrawn</option>
            </select>
          </label>
        }
      />
      {items.length === 0 ? <p className="card p-6 text-sm text-slate-600">No decided approvals match.</p> : null}
      <ul className="space-y-2">
        {items.map((item) => (
          <li key={item.id} className="card space-y-2 p-3" aria-label={`${item.status}: ${item.preview.title}`}>
            <div className="flex flex-wrap items-center gap-2 text-xs">
              <span className={`rounded px-2 py-0.5 font-medium capitalize ${statusStyles[item.status] ?? ""}`}>{item.status}</span>
              <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono">{toolLabel(item)}</span>
              <span className="text-slate-600">{requestLine(item)}</span>
              <span className="text-slate-500">
                {categoryLabels[item.category] ?? item.category}
                {item.baseCategory && item.baseCategory !== item.category ? ` · ${categoryLabels[item.baseCategory] ?? item.baseCategory}` : ""}
              </span>
              <span className="ml-auto min-w-0 text-slate-500 wrap-anywhere">
                {item.status === "expired"
                  ? "expired"
                  : item.status === "withdrawn"
                    ? "withdrawn"
                    : `by ${item.decidedBy ?? (item.judgeVerdict?.decided ? "the judge" : "a person no longer here")}${item.decidedVia ? ` ${decisionChannelWords[item.decidedVia]}` : ""}`}{" "}
                ·{" "}
                {item.decidedAt ? <Time at={item.decidedAt} /> : ""}
              </span>
            </div>
            <div className="text-sm">
              <span className="font-medium">
                <Revealed text={item.preview.title} />
              </span>
              {item.preview.fields.map((f) => (
                <span key={f.label} className="ml-2 text-slate-600">
                  {f.label}: <Revealed text={f.value} />
                </span>
              ))}
              {item.editedInput ? <span className="ml-2 rounded bg-indigo-50 px-1.5 text-xs text-indigo-700">input edited</span> : null}
            </div>
            {item.preview.body ? (
              // What was decided on: the message, the command, the text (cut to a few lines; the run has the rest).
              <p className="line-clamp-4 text-sm break-words whitespace-pre-wrap text-slate-700" data-testid="history-body">
                <Revealed text={item.preview.body} />
              </p>
            ) : null}
            {item.editedInput ? (
              <details className="text-sm">
                <summary className="cursor-pointer text-slate-600">What the reviewer changed</summary>
                <div className="mt-1">
                  <InputDiff before={item.input} after={item.editedInput} />
                </div>
              </details>
            ) : null}
            {item.reason ? <p className="text-sm text-slate-600">Why: {item.reason}</p> : null}
            <TaintList item={item} slug={slug} />
          </li>
        ))}
      </ul>
    </section>
  );
}
