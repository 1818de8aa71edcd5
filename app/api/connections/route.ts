import { connectionListSchema } from "@/lib/connections/connection-schemas";
import { created, route } from "@/lib/http/route";
import { listConnections, saveConnection, saveConnectionSchema } from "@/lib/connections/connections";

export const GET = route({ role: "manager", response: connectionListSchema }, async ({ db, workspace }) => ({ connections: await listConnections(db, workspace.id) }));

export const POST = route({ role: "manager", body: saveConnectionSchema }, async ({ server, workspace, user, body }) =>
  created({ connection: await saveConnection(server.db, workspace.id, user.id, server.secrets.encryptionKey, body) }),
);
