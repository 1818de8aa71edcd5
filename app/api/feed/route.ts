import { z } from "zod";
import { route } from "@/lib/http/route";
import { feedPageSchema } from "@/lib/feed/feed-schemas";
import { currentFeedSeq, feedFilterSchema, feedForViewer } from "@/lib/feed/feed";

const query = feedFilterSchema.extend({ after: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).max(500).default(200) });

export const GET = route({ query, response: feedPageSchema }, async ({ db, workspace, user, query }) => {
  const { after, limit, ...filter } = query;
  const items = await feedForViewer(db, workspace.id, { userId: user.id, role: workspace.role }, { after, filter, limit });
  return { items, seq: await currentFeedSeq(db, workspace.id) };
});
