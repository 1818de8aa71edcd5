import { scimRoute } from "@/lib/http/scim-route";
import { schemas } from "@/lib/scim/discovery";
import { listResponse } from "@/lib/scim/protocol";

export const dynamic = "force-dynamic";

export const GET = scimRoute(async ({ scope }) => {
  const all = schemas(scope.baseUrl);
  return { body: listResponse(all, all.length, { startIndex: 1, count: all.length }) };
});
