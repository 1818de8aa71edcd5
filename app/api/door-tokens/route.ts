import { listDoorTokens } from "@/lib/door/tokens";
import { doorTokenListSchema } from "@/lib/door/door-schemas";
import { route } from "@/lib/http/route";

export const GET = route(
  { doc: { summary: "every door token of the workspace, with agent, last use and call count" }, can: "connections.manage", response: doorTokenListSchema },
  async ({ db, workspace }) => ({ tokens: await listDoorTokens(db, workspace.id) }),
);
