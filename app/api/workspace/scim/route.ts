import { route } from "@/lib/http/route";
import { publicBaseUrl } from "@/lib/server";
import { readGroupRoles, groupRolesBodySchema, setGroupRoles } from "@/lib/scim/roles";
import { scimSettingsSchema } from "@/lib/scim/scim-schemas";
import { getScimTokenSummary } from "@/lib/scim/token";

const readDoc = {
  summary: "the directory (SCIM): the live token's prefix, when it was made and last used (null: none), the group → role mapping, and the base URL to give the identity provider",
};

export const GET = route({ apiKeys: false, doc: readDoc, can: "scim.manage", response: scimSettingsSchema }, async ({ db, server, workspace }) => ({
  token: await getScimTokenSummary(db, workspace.id),
  groupRoles: await readGroupRoles(db, workspace.id),
  baseUrl: `${publicBaseUrl(server.env)}/scim/v2`,
}));

const writeDoc = { summary: "`{groupRoles}`: group name → manager, reviewer or member; every provisioned person gets the role their groups now give (owners stay owners); audited" };

export const PUT = route({ apiKeys: false, doc: writeDoc, can: "scim.manage", body: groupRolesBodySchema, response: scimSettingsSchema }, async ({ db, server, workspace, user, body }) => ({
  token: await getScimTokenSummary(db, workspace.id),
  groupRoles: await setGroupRoles(db, workspace.id, user.id, body.groupRoles),
  baseUrl: `${publicBaseUrl(server.env)}/scim/v2`,
}));
