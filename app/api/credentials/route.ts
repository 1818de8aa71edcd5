import { credentialCreatedSchema, credentialListSchema } from "@/lib/connections/connection-schemas";
import { createCredential, credentialInputSchema, listCredentials } from "@/lib/connections/credentials";
import { created, route } from "@/lib/http/route";

export const GET = route(
  { doc: { summary: "the workspace's named credentials for `http.request`, with the hosts each may be sent to (values are never returned)" }, can: "connections.manage", response: credentialListSchema },
  async ({ db, workspace }) => ({ credentials: await listCredentials(db, workspace.id) }),
);

export const POST = route(
  { apiKeys: false,
    doc: { summary: "store one (201): the value is write-only and goes only to the named hosts (`*.example.com` for any below); a name already used is 409 `conflict:credential`" },
    can: "connections.manage",
    body: credentialInputSchema,
    response: credentialCreatedSchema,
  },
  async ({ server, workspace, user, body }) => created({ credential: await createCredential(server.db, workspace.id, user.id, server.secrets.encryptionKey, body) }),
);
