import { route } from "@/lib/http/route";
import { listOutbox } from "@/lib/connections/connections";

export const GET = route({}, async ({ db, workspace }) => ({ messages: await listOutbox(db, workspace.id) }));
