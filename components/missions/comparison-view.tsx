"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Markdown } from "../markdown/lazy-markdown";
import { missionKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { formatCount, formatDuration, formatUsd } from "../usage/format";
import { comparisonOneSchema, type Comparison } from "@/lib/missions/mission-schemas";
import { comparisonVerdict, missionStateLabels } from "./mission-display";
import { ErrorNotice } from "../ui/error-notice";

const criterionLabels: Record<string, string> = { correctness: "Correctness", completeness: "Completeness", clarity: "Clarity" };

/** Two missions of one goal side by side, with the judge's scores once both have ended. */
export function ComparisonView({ comparisonId }: { comparisonId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({
    queryKey: missionKeys.comparison(slug, comparisonId),
    queryFn: () => api(`/api/comparisons/${comparisonId}`, { schema: comparisonOneSchema }),
    refetchInterval: (q) => (q.state.data?.comparison.state === "judged" ? false : 1_500),
  });
  if (query.isPending) return <p role="status" className="text-sm text-slate-500">Loading the comparison…</p>;
  if (query.isError) return <ErrorNotice error={query.error} fallback="Could not load the comparison." />;
  const cmp = query.data.comparison;
  const verdict = comparisonVerdict(cmp.sides.map((side) => ({ crewName: side.mission.crewName, total: side.total })));
  return (
    <div className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
      <header className="space-y-1">
        <p className="text-sm">
          <Link href={`/w/${slug}/missions`} className="text-indigo-700 hover:underline">Missions</Link>
        </p>
        <h1 className="break-words text-2xl font-semibold tracking-tight">Comparison: {cmp.goal}</h1>
        <p role="status" className="text-sm text-slate-600">
          {cmp.state === "judged"
            ? `Judged by ${cmp.judgeModel ?? "the judge"}${cmp.judgeCredits !== null ? ` for ${formatUsd(cmp.judgeCredits)}` : ""}.`
            : "The crews are working; the judge scores both results when both missions end."}
        </p>
        {cmp.state === "judged" && verdict ? <p className="text-base font-medium" data-testid="comparison-verdict">{verdict}</p> : null}
      </header>
      <div className="grid min-w-0 gap-4 md:grid-cols-2">
        {cmp.sides.map((side) => (
          <SideCard key={side.mission.id} side={side} />
        ))}
      </div>
    </div>
  );
}

function SideCard({ side }: { side: Comparison["sides"][number] }) {
  const { slug } = useWorkspace();
  const m = side.mission;
  return (
    <article aria-label={`Crew ${m.crewName}`} className="card min-w-0 space-y-3 p-4">
      <div className="flex flex-wrap items-baseline gap-2">
        <h2 className="min-w-0 flex-1 break-words text-lg font-semibold">{m.crewName}</h2>
        {side.total !== null ? <span className="text-lg font-semibold" aria-label={`Total score ${side.total} of 30`}>{side.total}/30</span> : null}
      </div>
      <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600">State</dt>
        <dd>
          <Link href={`/w/${slug}/missions/${m.id}`} className="text-indigo-700 hover:underline">{missionStateLabels[m.state]}</Link>
        </dd>
        {m.credits !== null ? (
          <>
            <dt className="text-slate-600">Cost</dt>
            <dd>{formatUsd(m.credits)}</dd>
          </>
        ) : null}
        <dt className="text-slate-600">Tokens</dt>
        <dd>{formatCount(m.inputTokens + m.outputTokens)}</dd>
        <dt className="text-slate-600">Wall time</dt>
        <dd>{formatDuration(side.wallMs)}</dd>
        <dt className="text-slate-600">Approvals needed</dt>
        <dd>{side.approvalsNeeded}</dd>
      </dl>
      {side.score ? (
        side.score.error ? (
          <p className="text-sm text-rose-700">The judge gave no score: {side.score.error}</p>
        ) : (
          <ul aria-label={`Scores for ${m.crewName}`} className="space-y-2">
            {side.score.criteria.map((c) => (
              <li key={c.criterion} className="text-sm">
                <span className="font-medium">{criterionLabels[c.criterion] ?? c.criterion}: {c.score}/10</span>
                <span className="block break-words text-slate-600">{c.reason}</span>
              </li>
            ))}
          </ul>
        )
      ) : null}
      <section aria-label={`Result of ${m.crewName}`} className="min-w-0 border-t border-slate-200 pt-3 text-sm">
        {m.result ? <Markdown text={m.result} /> : <p className="text-slate-600">{m.error ?? "No result yet."}</p>}
      </section>
    </article>
  );
}
