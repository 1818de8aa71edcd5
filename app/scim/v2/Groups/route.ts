import { scimRoute } from "@/lib/http/scim-route";
import { MAX_PAGE } from "@/lib/scim/discovery";
import { parseFilter, parsePage, withMembers } from "@/lib/scim/filter";
import { createScimGroup, listScimGroups } from "@/lib/scim/groups";

export const dynamic = "force-dynamic";

/** The workspace's groups; `filter=displayName eq "…"` finds one. */
export const GET = scimRoute(async ({ db, scope, search }) => ({
  body: await listScimGroups(db, scope, parseFilter("group", search.get("filter")), parsePage(search, MAX_PAGE), withMembers(search)),
}));

export const POST = scimRoute(async ({ db, scope, body }) => ({ status: 201, body: await createScimGroup(db, scope, await body()) }));
