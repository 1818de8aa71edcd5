"use client";

import { useState } from "react";
import { offlineGrammar } from "@/lib/models/offline-grammar";

export const OFFLINE_LABEL = "Offline model — no network; follows a command grammar";

/**
 * Says plainly what the offline model is, and lists the commands it follows.
 * `tools` (when known) keeps to the commands this agent can actually run.
 */
export function OfflineNotice({ tools, expanded, onExample }: { tools: string[] | null; expanded: boolean; onExample: (text: string) => void }) {
  const [open, setOpen] = useState<boolean | null>(null);
  const show = open ?? expanded;
  const commands = offlineGrammar.filter((g) => !tools || tools.includes(g.tool));
  return (
    <section aria-label="Offline model" className="rounded-lg border border-amber-200 bg-amber-50/60 px-4 py-3 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <span className="rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-semibold tracking-wide text-amber-900 uppercase">Offline</span>
        <span className="font-medium text-amber-950">{OFFLINE_LABEL}</span>
        <button
          type="button"
          className="ml-auto text-xs font-medium text-amber-800 underline-offset-2 hover:underline"
          aria-expanded={show}
          aria-controls="offline-grammar"
          onClick={() => setOpen(!show)}
        >
          {show ? "Hide commands" : "Show commands"}
        </button>
      </div>
      {show ? (
        <div id="offline-grammar" className="mt-2">
          <p className="text-xs text-amber-900/80">
            It does not understand free text: it runs a tool when a line matches a command, and otherwise explains itself. One command per
            line. Click an example to put it in the message box.
          </p>
          {commands.length === 0 ? (
            <p className="mt-2 text-xs text-amber-900/80">This agent has none of the tools the commands use.</p>
          ) : (
            <ul aria-label="Offline commands" className="mt-2 grid gap-1.5 sm:grid-cols-2">
              {commands.map((g) => (
                <li key={g.command} className="rounded-md bg-surface/80 px-2.5 py-1.5 ring-1 ring-amber-200">
                  <div className="flex items-baseline justify-between gap-2">
                    <code className="font-mono text-xs text-slate-800">{g.command}</code>
                    <span className="font-mono text-[10px] text-slate-500">{g.tool}</span>
                  </div>
                  <button
                    type="button"
                    className="mt-0.5 text-left font-mono text-xs text-indigo-700 hover:underline"
                    aria-label={`Use example: ${g.example}`}
                    onClick={() => onExample(g.example)}
                  >
                    e.g. {g.example}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </section>
  );
}
