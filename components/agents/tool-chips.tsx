/** An agent's tools as small chips, one a tool (the caller lays them out); `none` when it has none and `sayNone` asks. */
export function ToolChips({ tools, sayNone = false }: { tools: readonly string[]; sayNone?: boolean }) {
  if (tools.length === 0) return sayNone ? <span className="text-xs text-slate-500">none</span> : null;
  return (
    <>
      {tools.map((tool) => (
        <span key={tool} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-700">
          {tool}
        </span>
      ))}
    </>
  );
}
