import { connectionListSchema } from "@/lib/connections/connection-schemas";
import { created, route } from "@/lib/http/route";
import { listConnections, saveConnection, saveConnectionSchema } from "@/lib/connections/connections";

export const GET = route({ can: "connections.manage", response: connectionListSchema }, async ({ db, workspace }) => ({ connections: await listConnections(db, workspace.id) }));

export const POST = route({ can: "connections.manage", body: saveConnectionSchema }, async ({ server, workspace, user, body }) =>
  created({ connection: await saveConnection(server.db, workspace.id, user.id, server.secrets.encryptionKey, body) }),
);
