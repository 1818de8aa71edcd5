import { created, route } from "@/lib/http/route";
import { scimTokenCreatedSchema } from "@/lib/scim/scim-schemas";
import { createScimToken, revokeScimToken } from "@/lib/scim/token";

const makeDoc = { summary: "makes the workspace's SCIM token, shown this once (201 `{token}`); the one before it stops working at once; audited" };

export const POST = route({ apiKeys: false, doc: makeDoc, can: "scim.manage", response: scimTokenCreatedSchema }, async ({ db, workspace, user }) =>
  created(await createScimToken(db, workspace.id, user.id)),
);

export const DELETE = route({ apiKeys: false, doc: { summary: "revokes the SCIM token: the identity provider's next call gets 401; audited" }, can: "scim.manage" }, async ({ db, workspace, user }) => {
  await revokeScimToken(db, workspace.id, user.id);
});
