import type { FeedItem } from "@/lib/feed/feed-schemas";

/** Adds items to a list ordered by seq, each seq once, keeping at most `max` (the newest). */
export function mergeFeedItems(current: FeedItem[], incoming: FeedItem[], max = 10_000): FeedItem[] {
  if (incoming.length === 0) return current;
  const last = current.length > 0 ? current[current.length - 1]!.seq : 0;
  const fresh = [...incoming].sort((a, b) => a.seq - b.seq).filter((item, i, all) => i === 0 || all[i - 1]!.seq !== item.seq);
  let merged: FeedItem[];
  if (fresh[0]!.seq > last) {
    merged = current.concat(fresh);
  } else {
    const bySeq = new Map(current.map((item) => [item.seq, item]));
    let added = false;
    for (const item of fresh) {
      if (!bySeq.has(item.seq)) {
        bySeq.set(item.seq, item);
        added = true;
      }
    }
    if (!added) return current;
    merged = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }
  return merged.length > max ? merged.slice(merged.length - max) : merged;
}

/**
 * A run's start and end said on one line: each `run_finished` whose `run_started` is in the list takes the start's
 * place in meaning (it is shown where the run ended, and names what started it), and the start is not shown alone.
 * Returns the items to show, in the same order, and the start each folded end carries.
 */
export function foldRuns(items: FeedItem[], endsUpTo = Infinity): { shown: FeedItem[]; startOf: Map<number, FeedItem> } {
  const starts = new Map<string, FeedItem>();
  for (const item of items) if (item.kind === "run_started" && item.runId) starts.set(item.runId, item);
  const startOf = new Map<number, FeedItem>();
  const folded = new Set<number>();
  for (const item of items) {
    // Ends after `endsUpTo` (those that arrived while the reader paused) fold once following resumes: folding takes a
    // row away, and nothing on screen moves while paused.
    if (item.kind !== "run_finished" || !item.runId || item.seq > endsUpTo) continue;
    const start = starts.get(item.runId);
    if (!start || start.seq > item.seq) continue;
    startOf.set(item.seq, start);
    folded.add(start.seq);
  }
  if (folded.size === 0) return { shown: items, startOf };
  return { shown: items.filter((item) => !folded.has(item.seq)), startOf };
}
