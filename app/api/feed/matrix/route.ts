import { route } from "@/lib/http/route";
import { talkMatrixSchema } from "@/lib/feed/feed-schemas";
import { matrixQuerySchema, talkMatrix } from "@/lib/feed/feed";

export const GET = route({ query: matrixQuerySchema, response: talkMatrixSchema }, async ({ db, workspace, query }) => talkMatrix(db, workspace.id, query));
