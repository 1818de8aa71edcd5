import { scimRoute } from "@/lib/http/scim-route";
import { withMembers } from "@/lib/scim/filter";
import { deleteScimGroup, getScimGroup, patchScimGroup, replaceScimGroup } from "@/lib/scim/groups";
import { patchBodySchema } from "@/lib/scim/patch";
import { readResource } from "@/lib/scim/resource";

export const dynamic = "force-dynamic";

export const GET = scimRoute(async ({ db, scope, params, search }) => ({ body: await getScimGroup(db, scope, params.id!, withMembers(search)) }));

export const PUT = scimRoute(async ({ db, scope, params, body }) => ({ body: await replaceScimGroup(db, scope, params.id!, await body()) }));

/** Members added or removed, the name changed: each affected person gets the role their groups now give. */
export const PATCH = scimRoute(async ({ db, scope, params, body }) => {
  const { Operations } = readResource(patchBodySchema, await body(), ["Operations"]);
  return { body: await patchScimGroup(db, scope, params.id!, Operations) };
});

export const DELETE = scimRoute(async ({ db, scope, params }) => {
  await deleteScimGroup(db, scope, params.id!);
  return undefined;
});
