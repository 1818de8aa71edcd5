import { recordQueries } from "../../lib/db/query-count";
import { streamFeed, type FeedItemView } from "../../lib/feed/feed";

/**
 * Follows the feed until `count` items have arrived. `opened` resolves once the stream has subscribed (its first
 * step reads the backlog); `done` gives the items and the SQL the stream itself sent.
 */
export function followFeed(options: Omit<Parameters<typeof streamFeed>[0], "signal">, count: number) {
  const items: FeedItemView[] = [];
  let ready!: () => void;
  const opened = new Promise<void>((resolve) => (ready = resolve));
  const done = recordQueries(async () => {
    const stream = streamFeed(options);
    const first = stream.next();
    ready();
    let next = await first;
    while (!next.done) {
      if (next.value.kind === "item") items.push(next.value.item);
      if (items.length >= count) break;
      next = await stream.next();
    }
    await stream.return(undefined);
  });
  return { opened, done: done.then(({ queries }) => ({ items, queries })) };
}
