/** A row of bars, one per point, scaled to the largest; each bar names its value for screen readers and on hover. */
export function Sparkline({ points, height = 36 }: { points: { label: string; value: number }[]; height?: number }) {
  const max = Math.max(1, ...points.map((p) => p.value));
  return (
    <div className="flex items-end gap-px" style={{ height }} role="img" aria-label={`Runs per hour: ${points.map((p) => p.value).join(", ")}`}>
      {points.map((p, i) => (
        <div
          key={i}
          title={`${p.label}: ${p.value}`}
          className={`flex-1 rounded-sm ${p.value > 0 ? "bg-indigo-400" : "bg-slate-100"}`}
          style={{ height: p.value > 0 ? `${Math.max(8, (p.value / max) * 100)}%` : "8%" }}
        />
      ))}
    </div>
  );
}
