import { z } from "zod";
import { route } from "@/lib/http/route";
import { revokeApiKey } from "@/lib/api-keys/api-keys";

export const DELETE = route(
  { doc: { summary: "revokes a key at once: the next request with it gets 401; audited" }, can: "apiKeys.manage", apiKeys: false, params: z.object({ id: z.uuid() }) },
  async ({ db, workspace, user, params }) => {
    await revokeApiKey(db, { workspaceId: workspace.id, actorId: user.id, id: params.id });
    return { revoked: true };
  },
);
