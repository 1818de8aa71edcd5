import { route } from "@/lib/http/route";
import { listMembers } from "@/lib/workspaces/members";

// People join by invitation only (POST /api/invitations): there is no way to add an account here.
export const GET = route({ role: "manager" }, async ({ db, workspace }) => ({ members: await listMembers(db, workspace.id) }));
