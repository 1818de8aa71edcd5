import { listAgents } from "@/lib/agents/agents";
import { route } from "@/lib/http/route";

export const GET = route({}, async ({ db, workspace }) => ({ agents: await listAgents(db, workspace.id) }));
