import { z } from "zod";
import { route } from "@/lib/http/route";
import { feedPageSchema } from "@/lib/feed/feed-schemas";
import { currentFeedSeq, feedFilterSchema, feedForViewer } from "@/lib/feed/feed";

const query = feedFilterSchema.extend({ after: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).max(500).default(200) });

const doc = { summary: "world feed items (without `after`: the newest; at most `limit`, default 200) and the current sequence" };

export const GET = route({ doc, query, response: feedPageSchema }, async ({ db, workspace, user, query }) => {
  const { after, limit, ...filter } = query;
  const items = await feedForViewer(db, workspace.id, { userId: user.id, role: workspace.role }, { after, filter, limit });
  return { items, seq: await currentFeedSeq(db, workspace.id) };
});
