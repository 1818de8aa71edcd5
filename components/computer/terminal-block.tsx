import stripAnsi from "strip-ansi";
import type { StepView } from "../chat/timeline";

interface ShellOutput {
  exitCode: number | null;
  signal: string | null;
  stoppedBy: "timeout" | "cancelled" | "workspace_full" | null;
  durationMs: number;
  stdout: string;
  stderr: string;
  files?: { path: string; version: number; change: string; added: number | null; removed: number | null }[];
}

function shellOutputOf(value: unknown): ShellOutput | null {
  if (!value || typeof value !== "object") return null;
  const out = value as Partial<ShellOutput>;
  return typeof out.stdout === "string" && typeof out.stderr === "string" ? (out as ShellOutput) : null;
}

/** How a command ended, in words. */
export function commandEnding(out: ShellOutput): string {
  if (out.stoppedBy === "timeout") return "Stopped at its time limit";
  if (out.stoppedBy === "cancelled") return "Stopped";
  if (out.stoppedBy === "workspace_full") return "Stopped: it filled the workspace";
  if (out.signal) return `Ended by ${out.signal === "SIGXCPU" ? "its CPU time limit" : out.signal}`;
  return out.exitCode === 0 ? "Exit code 0" : `Exit code ${out.exitCode}`;
}

/**
 * A shell step as a terminal: the command, its output (live while it runs, then what the command kept), how it ended
 * and the files it changed. Dark in both themes, as terminals are.
 */
export function TerminalBlock({ step }: { step: StepView }) {
  const command = typeof (step.input as { command?: unknown })?.command === "string" ? (step.input as { command: string }).command : "";
  const out = shellOutputOf(step.output);
  // Colours and cursor movements are for a terminal; the chat shows the text (the agent's page has the terminal).
  const text = stripAnsi(out ? [out.stdout, out.stderr].filter(Boolean).join(out.stdout.endsWith("\n") || !out.stdout ? "" : "\n") : (step.live ?? ""));
  return (
    <div className="border-t border-slate-200 px-3 py-2" data-testid="terminal">
      <pre
        className="max-h-96 overflow-auto rounded-md bg-terminal p-2 font-mono text-[11px] leading-snug break-words whitespace-pre-wrap text-terminal-text"
        tabIndex={0}
        aria-label={`Terminal: ${command}`}
      >
        <span className="text-terminal-prompt">$ </span>
        <span className="font-semibold">{command}</span>
        {"\n"}
        {text}
        {step.status === "running" ? <span className="animate-pulse" aria-hidden>▍</span> : null}
      </pre>
      {out ? (
        <p className="mt-1 text-xs text-slate-600" data-testid="terminal-ending">
          {commandEnding(out)} · {(out.durationMs / 1000).toFixed(1)} s
          {out.files && out.files.length > 0
            ? ` · ${out.files.map((f) => `${f.path} ${f.change}${f.added !== null ? ` (+${f.added} −${f.removed})` : ""}`).join(", ")}`
            : ""}
        </p>
      ) : null}
    </div>
  );
}
