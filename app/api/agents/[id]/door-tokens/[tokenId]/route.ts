import { z } from "zod";
import { revokeDoorToken } from "@/lib/door/tokens";
import { route } from "@/lib/http/route";

export const DELETE = route(
  { doc: { summary: "revoke a door token at once (204); its next request gets 401" }, can: "agents.manage", params: z.object({ id: z.uuid(), tokenId: z.uuid() }) },
  async ({ db, workspace, user, params }) => {
    await revokeDoorToken(db, { workspaceId: workspace.id, agentId: params.id, tokenId: params.tokenId, userId: user.id });
  },
);
