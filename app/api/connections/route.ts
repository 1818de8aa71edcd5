import { connectionListSchema } from "@/lib/connections/connection-schemas";
import { created, route } from "@/lib/http/route";
import { listConnections, saveConnection, saveConnectionSchema } from "@/lib/connections/connections";

export const GET = route(
  { doc: { summary: "service credentials (secrets are never returned)" }, can: "connections.manage", response: connectionListSchema },
  async ({ db, workspace }) => ({ connections: await listConnections(db, workspace.id) }),
);

const saveDoc = {
  summary:
    "save one (201; the same provider and label again replace its secret); a malformed token gets 422 `unprocessable:connection_secret`, a base address other than the operator's 422 `unprocessable:connection_base_url`",
};

export const POST = route({ apiKeys: false, doc: saveDoc, can: "connections.manage", body: saveConnectionSchema }, async ({ server, workspace, user, body }) =>
  created({ connection: await saveConnection(server.db, workspace.id, user.id, server.secrets.encryptionKey, body) }),
);
