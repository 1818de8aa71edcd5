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
