import { scimRoute } from "@/lib/http/scim-route";
import { MAX_PAGE } from "@/lib/scim/discovery";
import { parseFilter, parsePage } from "@/lib/scim/filter";
import { createScimUser, listScimUsers } from "@/lib/scim/users";

export const dynamic = "force-dynamic";

/** The workspace's provisioned people; `filter=userName eq "…"` finds one. */
export const GET = scimRoute(async ({ db, scope, search }) => ({
  body: await listScimUsers(db, scope, parseFilter("user", search.get("filter")), parsePage(search, MAX_PAGE)),
}));

/** Provisions a person (201), or 409 uniqueness when that userName is already here. */
export const POST = scimRoute(async ({ db, scope, body }) => ({ status: 201, body: await createScimUser(db, scope, await body()) }));
