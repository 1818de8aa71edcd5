"use client";

import type { ReactNode } from "react";
import { CopyButton } from "./copy-button";

/**
 * A secret shown once, just after it was made (a key, a token, a signing secret): what it is for, the value with a
 * copy button, and a button to put it away. Nothing can show it again.
 */
export function ShownOnce({
  label,
  title,
  what,
  value,
  testId,
  onDone,
  doneText = "I have copied it",
  children,
}: {
  /** The region's name for assistive technology: "The new API key". */
  label: string;
  title: ReactNode;
  /** What the copy button copies: "the key". */
  what: string;
  value: string;
  testId: string;
  onDone: () => void;
  doneText?: string;
  /** What it is for and where it goes, under the title; more below the value (a setup guide) goes in `after`. */
  children?: ReactNode;
}) {
  return (
    <section role="status" aria-label={label} className="card min-w-0 space-y-2 border-emerald-300 p-4 text-sm">
      <h2 className="text-sm font-semibold">{title}</h2>
      {children}
      <div className="flex min-w-0 flex-wrap items-center gap-2">
        <code className="block min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1 text-slate-900" data-testid={testId}>
          {value}
        </code>
        <CopyButton text={value} what={what} />
      </div>
      <button type="button" className="btn-secondary py-1 text-xs" onClick={onDone}>
        {doneText}
      </button>
    </section>
  );
}
