"use client";

import Link from "next/link";
import { errorWords } from "@/lib/error-sentences";

/**
 * An error said in words: what happened (from the one table in
 * lib/error-sentences.ts), the server's specifics when it has some, and the
 * code small beneath.
 */
export function ErrorNotice({ error, fallback, className }: { error: unknown; fallback: string; className?: string }) {
  const words = errorWords(error, fallback);
  return (
    <div role="alert" className={`text-sm text-rose-700 ${className ?? ""}`} data-testid="error-notice">
      <p>{words.sentence}</p>
      {words.detail ? <p className="mt-0.5 text-slate-700">{words.detail}</p> : null}
      {words.code ? <ErrorCode code={words.code} className="mt-0.5 block" /> : null}
    </div>
  );
}

/**
 * An error's code, small, in the one colour every code is shown in: slate-600 keeps at least 6.8:1 on white and on
 * the pale rose of an error strip by day, and on the deep rose and the dark surfaces by night (the rose-600 used
 * before fell to 3.7:1 on dark rose).
 */
export function ErrorCode({ code, className }: { code: string; className?: string }) {
  return (
    <code className={`font-mono text-xs text-slate-600 ${className ?? ""}`} data-testid="error-code">
      {code}
    </code>
  );
}

/** A page whose subject cannot be shown (gone, not yours, the server down): what, why in words, and a way back. */
export function CannotOpen({ what, error, fallback, back, className = "mx-auto mt-12" }: { what: string; error: unknown; fallback: string; back: { href: string; label: string }; className?: string }) {
  return (
    <div className={`card ${className} max-w-md p-6 text-center`} role="alert">
      <h1 className="text-lg font-semibold">This {what} cannot be opened</h1>
      <ErrorNotice className="mt-2" error={error} fallback={fallback} />
      <Link href={back.href} className="btn-secondary mt-4">
        {back.label}
      </Link>
    </div>
  );
}
