import { route } from "@/lib/http/route";
import { matrixQuerySchema, talkMatrix } from "@/lib/feed/feed";

export const GET = route({ query: matrixQuerySchema }, async ({ db, workspace, query }) => talkMatrix(db, workspace.id, query));
