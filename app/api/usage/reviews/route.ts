import { route } from "@/lib/http/route";
import { reviewsByPerson, reviewsQuerySchema } from "@/lib/billing/reviews";
import { reviewsSchema } from "@/lib/billing/usage-schemas";

const doc = { summary: "per person who decided requests in the range (default the last 30 days): how many, how many approved, and the median time from asking to deciding" };

export const GET = route({ doc, can: "spend.read", query: reviewsQuerySchema, response: reviewsSchema }, async ({ db, workspace, query }) => reviewsByPerson(db, workspace.id, query));
