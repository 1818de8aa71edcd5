"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useApi, useWorkspace } from "../providers";
import { comparisonStartedSchema, type CrewItem } from "@/lib/missions/mission-schemas";
import { ErrorNotice } from "../ui/error-notice";

/** Runs one goal on two crews side by side; the judge scores both results when they end. */
export function CompareForm({ crews }: { crews: CrewItem[] }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const id = useId();
  const [goal, setGoal] = useState("");
  const [a, setA] = useState(crews[0]?.id ?? "");
  const [b, setB] = useState(crews[1]?.id ?? "");
  const start = useMutation({
    mutationFn: () => api("/api/comparisons", { method: "POST", body: { goal, crewIds: [a, b] }, schema: comparisonStartedSchema }),
    onSuccess: ({ id: comparisonId }) => router.push(`/w/${slug}/missions/compare/${comparisonId}`),
  });
  if (crews.length < 2) return <p className="card p-4 text-sm text-slate-600">Two crews are needed to compare.</p>;
  const pick = (label: string, value: string, set: (v: string) => void, suffix: string) => (
    <div className="min-w-0 flex-1">
      <label htmlFor={`${id}-${suffix}`} className="label">{label}</label>
      <select id={`${id}-${suffix}`} className="input w-full" value={value} onChange={(e) => set(e.target.value)}>
        {crews.map((c) => (
          <option key={c.id} value={c.id}>{c.name}</option>
        ))}
      </select>
    </div>
  );
  return (
    <form
      aria-label="Compare two crews"
      className="card space-y-3 p-4"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <div className="flex flex-wrap gap-3">
        {pick("First crew", a, setA, "a")}
        {pick("Second crew", b, setB, "b")}
      </div>
      <label htmlFor={`${id}-goal`} className="label">Goal for both</label>
      <textarea id={`${id}-goal`} className="input" rows={2} value={goal} onChange={(e) => setGoal(e.target.value)} required maxLength={4000} />
      {a === b ? <p className="text-sm text-amber-800">Choose two different crews.</p> : null}
      {start.isError ? <ErrorNotice error={start.error} fallback="Could not start the comparison." /> : null}
      <button type="submit" className="btn-primary" disabled={start.isPending || !goal.trim() || a === b}>
        {start.isPending ? "Starting…" : "Compare"}
      </button>
    </form>
  );
}
