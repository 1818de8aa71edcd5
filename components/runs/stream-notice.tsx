/**
 * What a page following a run says when its stream falters: reconnecting (with the reason), or lost for good, with a
 * reload that picks the run up where it is. `what` names the thing followed ("live reply", "live run").
 */
export function StreamNotice({ live, what, className }: { live: { lost: boolean; streamError: string | null }; what: string; className: string }) {
  const box = `${className} rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900`;
  if (live.lost) {
    return (
      <p role="alert" className={box}>
        {live.streamError ?? `Lost the connection to the ${what}.`}{" "}
        <button type="button" className="font-medium underline" onClick={() => window.location.reload()}>
          Reload
        </button>{" "}
        to pick it up where it is.
      </p>
    );
  }
  if (!live.streamError) return null;
  return (
    <p role="alert" className={box}>
      {live.streamError} Reconnecting to the {what}…
    </p>
  );
}
