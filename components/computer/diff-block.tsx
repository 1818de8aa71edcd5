/** A unified diff as a reviewer reads it: added lines green, removed lines red, the rest plain. */
export function DiffBlock({ diff, label = "What changes" }: { diff: string; label?: string }) {
  const lines = diff.split("\n").filter((line, i) => !(i < 2 && line.startsWith("====")));
  return (
    <figure className="mt-2" data-testid="diff">
      <figcaption className="text-xs font-medium text-slate-600">{label}</figcaption>
      <pre className="mt-1 max-h-80 overflow-auto rounded bg-surface p-2 font-mono text-[11px] leading-snug ring-1 ring-slate-200" tabIndex={0} aria-label={label}>
        {lines.map((line, i) => (
          <span
            key={i}
            className={
              line.startsWith("+") && !line.startsWith("+++")
                ? "block bg-emerald-50 text-emerald-900"
                : line.startsWith("-") && !line.startsWith("---")
                  ? "block bg-rose-50 text-rose-900"
                  : line.startsWith("@@")
                    ? "block text-slate-500"
                    : "block text-slate-700"
            }
          >
            {line || " "}
          </span>
        ))}
      </pre>
    </figure>
  );
}
