"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useApi, useWorkspace } from "../providers";
import { formatDuration, formatUsd, usdInputToCredits } from "../usage/format";
import { CompareForm } from "./compare-form";
import { useNow } from "./use-now";
import { missionKeys } from "@/lib/client/query-keys";
import { crewListSchema, missionListSchema, missionStartedSchema, type CrewItem } from "@/lib/missions/mission-schemas";
import { missionStateLabels } from "./mission-display";
import { ErrorNotice } from "../ui/error-notice";

/** Crews to start missions with, and the missions run so far. */
export function MissionsHome({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const crews = useQuery({ queryKey: missionKeys.crews(slug), queryFn: () => api("/api/crews", { schema: crewListSchema }) });
  const missions = useQuery({ queryKey: missionKeys.list(slug), queryFn: () => api("/api/missions", { schema: missionListSchema }), refetchInterval: 5_000 });
  const now = useNow(!!missions.data?.missions.some((m) => m.state === "running"));

  return (
    <div className="mx-auto w-full min-w-0 max-w-5xl space-y-8">
      <header className="flex flex-wrap items-end gap-4">
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold tracking-tight">Missions</h1>
          <p className="mt-1 text-sm text-slate-600">
            Give a goal to a crew of agents. Each node is an ordinary run of its agent, with its tools, approvals and costs; work flows along
            the crew&apos;s edges.
          </p>
        </div>
        {canEdit ? (
          <Link href={`/w/${slug}/missions/crews/new`} className="btn-primary">
            New crew
          </Link>
        ) : null}
      </header>

      <section aria-labelledby="crews-heading" className="space-y-3">
        <h2 id="crews-heading" className="text-lg font-semibold">Crews</h2>
        {crews.isPending ? (
          <p role="status" className="text-sm text-slate-500">Loading crews…</p>
        ) : crews.isError ? (
          <ErrorNotice error={crews.error} fallback="Could not load the crews." />
        ) : crews.data.crews.length === 0 ? (
          <p className="card p-4 text-sm text-slate-600">No crew yet.{canEdit ? " Create one from a template." : " A manager can create one."}</p>
        ) : (
          <ul className="grid min-w-0 gap-4 md:grid-cols-2">
            {crews.data.crews.map((crew) => (
              <li key={crew.id} className="min-w-0">
                <CrewCard crew={crew} canEdit={canEdit} />
              </li>
            ))}
          </ul>
        )}
      </section>

      {crews.data && crews.data.crews.length > 0 ? (
        <section aria-labelledby="compare-heading" className="space-y-3">
          <h2 id="compare-heading" className="text-lg font-semibold">Compare two crews</h2>
          <p className="text-sm text-slate-600">One goal runs on both crews side by side; when both end, the workspace&apos;s judge scores each result.</p>
          <CompareForm crews={crews.data.crews} />
        </section>
      ) : null}

      <section aria-labelledby="runs-heading" className="space-y-3">
        <h2 id="runs-heading" className="text-lg font-semibold">Recent missions</h2>
        {missions.isPending ? (
          <p role="status" className="text-sm text-slate-500">Loading missions…</p>
        ) : missions.isError ? (
          <ErrorNotice error={missions.error} fallback="Could not load the missions." />
        ) : missions.data.missions.length === 0 ? (
          <p className="card p-4 text-sm text-slate-600">No mission yet.</p>
        ) : (
          <ul aria-label="Missions" className="card divide-y divide-slate-100">
            {missions.data.missions.map((m) => {
              const wall = m.startedAt ? (m.finishedAt ? Date.parse(m.finishedAt) : now) - Date.parse(m.startedAt) : null;
              return (
                <li key={m.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 p-3 text-sm">
                  <Link href={`/w/${slug}/missions/${m.id}`} className="min-w-0 flex-1 break-words font-medium text-slate-900 hover:text-indigo-700 hover:underline">
                    {m.goal}
                  </Link>
                  <span className="text-xs text-slate-600">{m.crewName}</span>
                  <span className="text-xs font-medium">{missionStateLabels[m.state]}</span>
                  {m.credits !== null ? <span className="text-xs text-slate-600">{formatUsd(m.credits)}</span> : null}
                  <span className="text-xs text-slate-600">{formatDuration(wall)}</span>
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}

function CrewCard({ crew, canEdit }: { crew: CrewItem; canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const id = useId();
  const [goal, setGoal] = useState(crew.goal ?? "");
  const [cap, setCap] = useState("");
  const capCredits = usdInputToCredits(cap);
  const capInvalid = capCredits !== null && (Number.isNaN(capCredits) || capCredits < 1);
  const start = useMutation({
    mutationFn: () => api(`/api/crews/${crew.id}/missions`, { method: "POST", body: { goal, capCredits }, schema: missionStartedSchema }),
    onSuccess: ({ missionId }) => router.push(`/w/${slug}/missions/${missionId}`),
  });
  return (
    <article aria-label={`Crew ${crew.name}`} className="card flex h-full min-w-0 flex-col gap-3 p-4">
      <div className="flex items-start gap-2">
        <h3 className="min-w-0 flex-1 break-words font-semibold">{crew.name}</h3>
        {canEdit ? (
          <Link href={`/w/${slug}/missions/crews/${crew.id}`} className="text-xs font-medium text-indigo-700 hover:underline">
            Edit
          </Link>
        ) : null}
      </div>
      <p className="break-words font-mono text-xs text-slate-600">{crew.nodes.map((n) => `${n.role} @${n.agentHandle ?? "?"}`).join(" · ")}</p>
      <form
        className="mt-auto space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate();
        }}
      >
        <label htmlFor={`${id}-goal`} className="label">Goal</label>
        <textarea id={`${id}-goal`} className="input" rows={2} value={goal} onChange={(e) => setGoal(e.target.value)} required maxLength={4000} />
        <label htmlFor={`${id}-cap`} className="label">Spending cap (optional)</label>
        <div className="flex items-center gap-1">
          <span className="text-slate-500">$</span>
          <input
            id={`${id}-cap`}
            className="input w-28 py-1 text-right tabular-nums"
            inputMode="decimal"
            placeholder="none"
            value={cap}
            aria-describedby={`${id}-cap-help`}
            aria-invalid={capInvalid || undefined}
            onChange={(e) => setCap(e.target.value)}
          />
        </div>
        <p id={`${id}-cap-help`} className={`text-xs ${capInvalid ? "text-rose-700" : "text-slate-500"}`}>
          {capInvalid
            ? "The cap is an amount in US dollars above $0, or empty for none."
            : "When the mission has spent this much, it waits and asks the managers and owners whether it may spend as much again."}
        </p>
        {start.isError ? <ErrorNotice error={start.error} fallback="Could not start the mission." /> : null}
        <button type="submit" className="btn-primary" disabled={start.isPending || !goal.trim() || capInvalid}>
          {start.isPending ? "Starting…" : "Start mission"}
        </button>
      </form>
    </article>
  );
}
