import { listDoorTokens } from "@/lib/door/tokens";
import { route } from "@/lib/http/route";

export const GET = route({ role: "manager" }, async ({ db, workspace }) => ({ tokens: await listDoorTokens(db, workspace.id) }));
