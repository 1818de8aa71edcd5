"use client";

import { useQuery } from "@tanstack/react-query";
import { usageSummarySchema, type UsageSummary } from "@/lib/billing/usage-schemas";
import { hourLabel, startOfZonedDay } from "@/lib/client/format-time";
import { ErrorNotice } from "../ui/error-notice";
import { usageKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { formatChange, formatCount, formatDuration, formatRate, formatUsd } from "./format";
import { Sparkline } from "./sparkline";

/** How often the cards refresh while the page is open. */
export const SUMMARY_REFRESH_MS = 5_000;

/** SPEND, ACTIVITY and THROUGHPUT for today (midnight in the workspace's time zone until now), refreshed while open. */
export function OverviewCards({ canSeeSpend }: { canSeeSpend: boolean }) {
  const api = useApi();
  const { slug, timeZone } = useWorkspace();
  const summary = useQuery({
    queryKey: usageKeys.summary(slug, timeZone),
    queryFn: () => {
      const now = new Date();
      const params = new URLSearchParams({ from: startOfZonedDay(now, timeZone).toISOString(), to: now.toISOString() });
      return api(`/api/usage/summary?${params.toString()}`, { schema: usageSummarySchema });
    },
    refetchInterval: SUMMARY_REFRESH_MS,
  });

  if (!summary.data) {
    return (
      <div className="card p-6 text-sm text-slate-600">
        {summary.isError ? <ErrorNotice error={summary.error} fallback="Could not load the dashboard." /> : "Loading…"}
      </div>
    );
  }
  const { spend, activity, throughput } = summary.data;
  return (
    <div className={`grid gap-4 ${canSeeSpend ? "lg:grid-cols-3" : "lg:grid-cols-2"}`}>
      {canSeeSpend && spend ? <SpendCard spend={spend} /> : null}
      <ActivityCard activity={activity} />
      <ThroughputCard throughput={throughput} />
    </div>
  );
}

function Card({ title, children, testId }: { title: string; children: React.ReactNode; testId: string }) {
  return (
    <article className="card flex flex-col gap-4 p-5" aria-label={title} data-testid={testId}>
      <h3 className="text-xs font-semibold uppercase tracking-wider text-slate-500">{title}</h3>
      {children}
    </article>
  );
}

const toneStyles = { up: "bg-amber-50 text-amber-800", down: "bg-emerald-50 text-emerald-700", flat: "bg-slate-100 text-slate-600" };

function Change({ change, now }: { change: number | null; now: number }) {
  const { text, tone } = formatChange(change, now);
  return (
    <span className={`rounded px-1.5 py-0.5 text-xs font-medium tabular-nums ${toneStyles[tone]}`} title="Against the period of the same length just before">
      {text}
    </span>
  );
}

function SpendCard({ spend }: { spend: NonNullable<UsageSummary["spend"]> }) {
  const [today, week, month] = spend.periods;
  return (
    <Card title="Spend" testId="spend-card">
      <div>
        <div className="text-xs text-slate-500">Today</div>
        <div className="flex items-baseline gap-2">
          <span className="text-3xl font-semibold tabular-nums tracking-tight" data-testid="spend-today" title={`${formatCount(today!.credits)} credits`}>
            {formatUsd(today!.credits)}
          </span>
          <Change change={today!.change} now={today!.credits} />
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-3 text-sm">
        {[
          { label: "7 days", period: week!, id: "spend-7d" },
          { label: "30 days", period: month!, id: "spend-30d" },
        ].map(({ label, period, id }) => (
          <div key={id}>
            <dt className="text-xs text-slate-500">{label}</dt>
            <dd className="flex items-baseline gap-2">
              <span className="font-semibold tabular-nums" data-testid={id} title={`${formatCount(period.credits)} credits`}>
                {formatUsd(period.credits)}
              </span>
              <Change change={period.change} now={period.credits} />
            </dd>
          </div>
        ))}
      </dl>
      <div>
        <div className="mb-1 text-xs text-slate-500">Top agents, 7 days</div>
        {spend.topAgents.length === 0 ? (
          <p className="text-sm text-slate-500">No spend in the last 7 days.</p>
        ) : (
          <ol className="space-y-1 text-sm" aria-label="Top agents by spend">
            {spend.topAgents.map((a) => (
              <li key={a.agentId ?? "none"} className="flex justify-between gap-2">
                <span className="truncate font-mono text-xs text-slate-700">{a.handle ? `@${a.handle}` : a.agentId ? "deleted agent" : "no agent"}</span>
                <span className="tabular-nums">{formatUsd(a.credits)}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
      <CachingSaved saved={spend.savedByCaching} />
      {spend.nominalCredits > 0 ? (
        <p className="text-xs text-slate-500">
          {formatUsd(spend.nominalCredits)} of the last 30 days is the offline model at its nominal price: nothing was really spent.
        </p>
      ) : null}
    </Card>
  );
}

/** What prompt caching saved today and over 30 days, at the workspace's prices; nothing when no call was cached. */
function CachingSaved({ saved }: { saved: NonNullable<UsageSummary["spend"]>["savedByCaching"] }) {
  if (saved.range === 0 && saved["30d"] === 0) return null;
  const words = (credits: number) => (credits >= 0 ? `saved ${formatUsd(credits)}` : `cost ${formatUsd(-credits)} more`);
  return (
    <p className="text-xs text-slate-600" data-testid="spend-cache-saved">
      Prompt caching {words(saved.range)} today and {words(saved["30d"])} over 30 days, against the same tokens sent uncached at your prices.
    </p>
  );
}

function Stat({ label, value, testId, hint }: { label: string; value: string; testId?: string; hint?: string }) {
  return (
    <div>
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums" data-testid={testId} title={hint}>
        {value}
      </dd>
    </div>
  );
}

function ActivityCard({ activity }: { activity: UsageSummary["activity"] }) {
  const { timeZone } = useWorkspace();
  return (
    <Card title="Activity" testId="activity-card">
      <dl className="grid grid-cols-3 gap-3">
        <Stat label="Runs" value={formatCount(activity.runs)} testId="activity-runs" />
        <Stat label="Tool calls" value={formatCount(activity.toolCalls)} hint={`${formatCount(activity.doorCalls)} through the door`} />
        <Stat label="Model calls" value={formatCount(activity.modelCalls)} />
        <Stat label="Messages" value={formatCount(activity.chatMessages + activity.agentMessages)} hint={`${activity.chatMessages} from people, ${activity.agentMessages} between agents`} />
        <div>
          <dt className="text-xs text-slate-500">Approvals</dt>
          <dd className="flex flex-wrap items-baseline gap-x-1 text-sm tabular-nums" data-testid="activity-approvals">
            <span className="text-lg font-semibold">{formatCount(activity.approvalsPending)}</span> pending
            <span className="text-slate-500"> · </span>
            <span className="text-lg font-semibold">{formatCount(activity.approvalsDecided)}</span> decided today
          </dd>
          <dd className="text-xs text-slate-600" data-testid="activity-decision-time">
            {activity.decisionP50Ms === null
              ? "No decisions by people today."
              : `Decided in ${formatDuration(activity.decisionP50Ms)} (median), ${formatDuration(activity.decisionP95Ms)} at the slowest 5%.`}
            {activity.waitingLong > 0 ? (
              <span className="block font-medium text-amber-800">
                {formatCount(activity.waitingLong)} waiting longer than {activity.waitingLongAfterMinutes} minutes
              </span>
            ) : null}
          </dd>
        </div>
        <Stat label="Active agents" value={formatCount(activity.activeAgents)} />
      </dl>
      <div>
        <div className="mb-1 flex justify-between text-xs text-slate-500">
          <span>Runs per hour, last 24 hours</span>
          <span className="tabular-nums">{formatCount(activity.hourly.reduce((sum, h) => sum + h.runs, 0))}</span>
        </div>
        <Sparkline points={activity.hourly.map((h) => ({ label: hourLabel(h.hour, { timeZone }), value: h.runs }))} />
      </div>
      {activity.budgetStops > 0 ? (
        <p role="status" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-xs text-rose-800" data-testid="budget-stops">
          {activity.budgetStops === 1 ? "1 run was" : `${activity.budgetStops} runs were`} stopped today because a monthly budget was used up.
        </p>
      ) : activity.failedRuns > 0 ? (
        <p className="text-xs text-slate-500">{activity.failedRuns === 1 ? "1 run" : `${activity.failedRuns} runs`} failed today.</p>
      ) : null}
    </Card>
  );
}

function ThroughputCard({ throughput }: { throughput: UsageSummary["throughput"] }) {
  return (
    <Card title="Throughput" testId="throughput-card">
      <dl className="grid grid-cols-2 gap-3">
        <Stat label="Tokens per minute" value={formatRate(throughput.tokensPerMinute)} hint={`${formatCount(throughput.tokens)} tokens today`} />
        <Stat label="Runs in the last hour" value={formatCount(throughput.runsLastHour)} />
        <Stat label="Run time, median" value={formatDuration(throughput.p50RunMs)} />
        <Stat label="Run time, 95th percentile" value={formatDuration(throughput.p95RunMs)} />
        <Stat label="First token, median" value={formatDuration(throughput.p50FirstTokenMs)} />
      </dl>
      <p className="mt-auto text-xs text-slate-500">Today, from midnight. Run times include waits for approvals.</p>
    </Card>
  );
}
