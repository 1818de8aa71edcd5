import { route } from "@/lib/http/route";
import { listOutboxForViewer } from "@/lib/connections/connections";

export const GET = route({ doc: { summary: "messages kept instead of sent" } }, async ({ db, workspace, user }) => ({
  messages: await listOutboxForViewer(db, workspace.id, { userId: user.id, role: workspace.role }),
}));
