import { scimRoute } from "@/lib/http/scim-route";
import { patchBodySchema } from "@/lib/scim/patch";
import { readResource } from "@/lib/scim/resource";
import { deleteScimUser, getScimUser, patchScimUser, replaceScimUser } from "@/lib/scim/users";

export const dynamic = "force-dynamic";

export const GET = scimRoute(async ({ db, scope, params }) => ({ body: await getScimUser(db, scope, params.id!) }));

/** Replaces the person's attributes; `active: false` deactivates them, `true` brings them back. */
export const PUT = scimRoute(async ({ db, scope, params, body }) => ({ body: await replaceScimUser(db, scope, params.id!, await body()) }));

export const PATCH = scimRoute(async ({ db, scope, params, body }) => {
  const { Operations } = readResource(patchBodySchema, await body(), ["Operations"]);
  return { body: await patchScimUser(db, scope, params.id!, Operations) };
});

/** Deprovisions the person: as deactivation, then their SCIM record goes (204). */
export const DELETE = scimRoute(async ({ db, scope, params }) => {
  await deleteScimUser(db, scope, params.id!);
  return undefined;
});
