/**
 * What a lazily loaded part (a chart, a canvas) shows while its script arrives: an empty box that fills the
 * space the part will take, so nothing moves when it appears. The caller gives the box its size.
 */
export function LazyBox({ label, className = "h-full w-full" }: { label: string; className?: string }) {
  return (
    <div role="status" aria-label={label} className={`${className} animate-pulse rounded-md bg-slate-100 dark:bg-slate-800/60`}>
      <span className="sr-only">{label}</span>
    </div>
  );
}
