import { codeOf, hiddenIn, nameOf, splitHidden } from "@/lib/hidden-characters";

/**
 * A text an agent chose, shown with each hidden character (a direction
 * override, a zero-width space…) as a mark naming it, so that it reads in the
 * order it will be sent. Text without them renders as it is.
 */
export function Revealed({ text }: { text: string }) {
  const parts = splitHidden(text);
  if (parts.every((p) => "text" in p)) return <>{text}</>;
  return (
    <>
      {parts.map((part, i) =>
        "text" in part ? (
          part.text
        ) : (
          <abbr
            key={i}
            title={`${nameOf(part.hidden)}: a hidden character`}
            className="mx-px rounded bg-rose-100 px-0.5 font-mono text-[0.75em] text-rose-900 no-underline ring-1 ring-rose-200"
            data-hidden-character={codeOf(part.hidden)}>
            {codeOf(part.hidden)}
          </abbr>
        ),
      )}
    </>
  );
}

/** A warning that an input holds hidden characters, naming them; nothing when it holds none. */
export function HiddenWarning({ value, className = "" }: { value: unknown; className?: string }) {
  const hidden = hiddenIn(value);
  if (hidden.length === 0) return null;
  return (
    <p className={`rounded border border-rose-200 bg-rose-50 px-2 py-1.5 text-sm text-rose-900 ${className}`} data-testid="hidden-characters">
      <strong className="font-semibold">Hidden characters.</strong> This input holds characters you cannot see that change how it reads:{" "}
      {hidden.map((c, i) => (
        <span key={c}>
          {i > 0 ? ", " : ""}
          {codeOf(c)} ({nameOf(c)})
        </span>
      ))}
      . They are marked below, and approving sends them as they are.
    </p>
  );
}
