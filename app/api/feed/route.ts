import { z } from "zod";
import { route } from "@/lib/http/route";
import { currentFeedSeq, feedFilterSchema, latestFeed, readFeed } from "@/lib/feed/feed";

const query = feedFilterSchema.extend({ after: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).max(500).default(200) });

export const GET = route({ query }, async ({ db, workspace, query }) => {
  const { after, limit, ...filter } = query;
  const items = after === undefined ? await latestFeed(db, workspace.id, filter, limit) : await readFeed(db, workspace.id, after, filter, limit);
  return { items, seq: await currentFeedSeq(db, workspace.id) };
});
