import { route } from "@/lib/http/route";
import { talkMatrixSchema } from "@/lib/feed/feed-schemas";
import { matrixQuerySchema, talkMatrix } from "@/lib/feed/feed";

const doc = { summary: "who talks to whom: message counts between agents (a room post counts for every other member)" };

export const GET = route({ doc, query: matrixQuerySchema, response: talkMatrixSchema }, async ({ db, workspace, query }) => talkMatrix(db, workspace.id, query));
