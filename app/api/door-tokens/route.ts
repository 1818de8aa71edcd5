import { listDoorTokens } from "@/lib/door/tokens";
import { doorTokenListSchema } from "@/lib/door/door-schemas";
import { route } from "@/lib/http/route";

export const GET = route({ can: "connections.manage", response: doorTokenListSchema }, async ({ db, workspace }) => ({ tokens: await listDoorTokens(db, workspace.id) }));
