import { scimRoute } from "@/lib/http/scim-route";
import { resourceTypes } from "@/lib/scim/discovery";
import { listResponse } from "@/lib/scim/protocol";

export const dynamic = "force-dynamic";

export const GET = scimRoute(async ({ scope }) => {
  const types = resourceTypes(scope.baseUrl);
  return { body: listResponse(types, types.length, { startIndex: 1, count: types.length }) };
});
