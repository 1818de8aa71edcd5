"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { feedKeys } from "@/lib/client/query-keys";
import { talkMatrixSchema } from "@/lib/feed/feed-schemas";
import { useApi, useWorkspace } from "../providers";
import type { AgentRef } from "./feed-row";
import { ErrorNotice } from "../ui/error-notice";
import { matrixRanges, type MatrixRange } from "./talk-matrix-ranges";


/** Who talks to whom: messages from each agent (rows) to each agent (columns) over a range. */
export function TalkMatrix({
  agents,
  range,
  onRange,
  onAgent,
  onPair,
}: {
  agents: AgentRef[];
  range: MatrixRange;
  onRange: (range: MatrixRange) => void;
  onAgent: (agentId: string) => void;
  /** A cell was chosen: what `from` sent to `to`. */
  onPair: (from: string, to: string) => void;
}) {
  const api = useApi();
  const { slug } = useWorkspace();
  const [showQuiet, setShowQuiet] = useState(false);
  const query = useQuery({
    queryKey: feedKeys.matrixRange(slug, range),
    queryFn: () => {
      const to = new Date();
      const from = new Date(to.getTime() - matrixRanges[range].hours * 3600_000);
      return api(`/api/feed/matrix?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`, { schema: talkMatrixSchema });
    },
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
  });

  const counts = new Map<string, number>();
  for (const cell of query.data?.cells ?? []) counts.set(`${cell.from}>${cell.to}`, cell.count);
  const max = Math.max(1, ...counts.values());
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  // Agents that appear in the counts but not in the list (none today) still get a row.
  const known = new Set(agents.map((a) => a.id));
  const talking = new Set((query.data?.cells ?? []).filter((c) => c.count > 0).flatMap((c) => [c.from, c.to]));
  const extra = [...talking].filter((id) => !known.has(id));
  const everyone: AgentRef[] = [...agents, ...extra.map((id) => ({ id, handle: id.slice(0, 8), name: "Unknown agent", color: "#94a3b8" }))];
  // Agents that said and heard nothing in the range only add empty rows: hidden unless asked for.
  const quiet = everyone.filter((a) => !talking.has(a.id)).length;
  const rows = showQuiet ? everyone : everyone.filter((a) => talking.has(a.id));

  return (
    <section aria-labelledby="matrix-heading" className="card p-4" data-testid="talk-matrix">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="matrix-heading" className="text-sm font-semibold">
          Who talks to whom
        </h2>
        <div role="group" aria-label="Range" className="ml-auto inline-flex overflow-hidden rounded-md border border-slate-300 text-xs">
          {(Object.keys(matrixRanges) as MatrixRange[]).map((r) => (
            <button
              key={r}
              type="button"
              aria-pressed={range === r}
              className={`px-2.5 py-1 font-medium ${range === r ? "bg-indigo-600 text-white" : "bg-surface text-slate-600 hover:bg-slate-100"} border-l border-slate-300 first:border-l-0`}
              onClick={() => onRange(r)}
            >
              {matrixRanges[r].label}
            </button>
          ))}
        </div>
      </div>
      <p className="mt-1 text-xs text-slate-500">
        Messages each agent (row) sent to each agent (column) in {matrixRanges[range].text}; a room post counts once for every other member.
      </p>

      {query.isError ? (
        <ErrorNotice error={query.error} fallback="Could not load who talks to whom." className="mt-3" />
      ) : !query.data ? (
        <p className="mt-3 text-sm text-slate-500">Loading…</p>
      ) : everyone.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500">This workspace has no agents.</p>
      ) : rows.length === 0 ? (
        <p className="mt-3 text-sm text-slate-500" data-testid="matrix-total">
          No messages between agents in this range.{" "}
          <button type="button" className="font-medium text-indigo-700 hover:underline" onClick={() => setShowQuiet(true)}>
            Show all {everyone.length} agents
          </button>
        </p>
      ) : (
        <div className="mt-3 overflow-x-auto">
          <table className="border-separate border-spacing-1 text-xs" aria-label={`Messages between agents, ${matrixRanges[range].text}`}>
            <thead>
              <tr>
                <th scope="col" className="px-1 pb-1 text-left align-bottom text-[10px] font-medium text-slate-500">
                  from ↓ · to →
                </th>
                {rows.map((a) => (
                  <th key={a.id} scope="col" className="h-24 w-10 px-0 pb-1 align-bottom font-mono font-medium text-slate-600" title={`to @${a.handle}`}>
                    <span className="mx-auto flex max-h-24 items-center gap-1.5 overflow-hidden [writing-mode:vertical-rl] rotate-180 whitespace-nowrap">
                      <span aria-hidden className="h-2 w-2 shrink-0 rounded-full" style={{ backgroundColor: a.color }} />
                      <span className="truncate">@{a.handle}</span>
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((from) => (
                <tr key={from.id}>
                  <th scope="row" className="pr-2 text-left font-mono font-medium whitespace-nowrap text-slate-600">
                    <button type="button" className="inline-flex items-center gap-1.5 hover:text-indigo-700 hover:underline" title={`Show only @${from.handle} in the feed`} onClick={() => onAgent(from.id)}>
                      <span aria-hidden className="h-2 w-2 rounded-full" style={{ backgroundColor: from.color }} />@{from.handle}
                    </button>
                  </th>
                  {rows.map((to) => {
                    const self = from.id === to.id;
                    const n = counts.get(`${from.id}>${to.id}`) ?? 0;
                    const strength = n / max;
                    const label = self ? "Itself" : `@${from.handle} → @${to.handle}: ${n} ${n === 1 ? "message" : "messages"}`;
                    return (
                      <td
                        key={to.id}
                        data-testid={`matrix-${from.handle}-${to.handle}`}
                        title={label}
                        className={`h-9 w-10 min-w-10 rounded text-center font-semibold tabular-nums ${self ? "bg-slate-50 text-slate-300" : n === 0 ? "bg-slate-50 text-slate-500" : strength > 0.5 ? "text-white" : "text-indigo-950"}`}
                        style={!self && n > 0 ? { backgroundColor: `rgba(79, 70, 229, ${0.15 + 0.85 * strength})` } : undefined}
                      >
                        {self || n === 0 ? (
                          self ? "·" : n
                        ) : (
                          // A pair that talked: its messages, and only those, in the feed.
                          <button type="button" className="h-full w-full rounded hover:ring-2 hover:ring-indigo-400" aria-label={`${label}: show them in the feed`} onClick={() => onPair(from.id, to.id)}>
                            {n}
                          </button>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          <p className="mt-2 text-xs text-slate-500">
            <span data-testid="matrix-total">
              {total === 0 ? "No messages between agents in this range." : `${total.toLocaleString("en")} ${total === 1 ? "message" : "messages"} in all.`}
            </span>
            {quiet > 0 ? (
              <>
                {" "}
                <button type="button" className="font-medium text-indigo-700 hover:underline" onClick={() => setShowQuiet((v) => !v)}>
                  {showQuiet ? `Hide ${quiet} quiet ${quiet === 1 ? "agent" : "agents"}` : `Show ${quiet} quiet ${quiet === 1 ? "agent" : "agents"}`}
                </button>
              </>
            ) : null}
          </p>
        </div>
      )}
    </section>
  );
}
