import { created, route } from "@/lib/http/route";
import { apiKeyInputSchema, createApiKey, listApiKeys } from "@/lib/api-keys/api-keys";
import { apiKeyCreatedSchema, apiKeyListSchema } from "@/lib/api-keys/api-key-schemas";

export const GET = route(
  { doc: { summary: "the workspace's API keys (never the keys): name, role, maker, expiry, last use, revoked" }, can: "apiKeys.manage", apiKeys: false, response: apiKeyListSchema },
  async ({ db, workspace }) => ({ keys: await listApiKeys(db, workspace.id) }),
);

const createDoc = {
  summary:
    "`{name, role, expiresAt?}`: 201 with the `key` (`ck_…`, shown once); a role above the maker's gets 403 `forbidden:api_key_role`; the key works as `Authorization: Bearer` on the workspace's routes, on its maker's behalf; audited",
};

export const POST = route({ doc: createDoc, can: "apiKeys.manage", apiKeys: false, body: apiKeyInputSchema, response: apiKeyCreatedSchema }, async ({ db, workspace, user, body }) =>
  created(await createApiKey(db, { workspaceId: workspace.id, maker: { id: user.id, role: workspace.role }, ...body })),
);
