import { z } from "zod";
import { agentFileHistory } from "@/lib/computers/agent-files";
import { fileHistorySchema } from "@/lib/computers/computer-schemas";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });
const query = z.object({ path: z.string().min(1).max(4096) });

export const GET = route(
  { doc: { summary: "every version of a file you may read, newest first, with the run and step that wrote it (or the person who restored it)" }, params, query, response: fileHistorySchema },
  async ({ db, workspace, user, params, query }) => agentFileHistory(db, workspace.id, params.id, query.path, { userId: user.id, role: workspace.role }),
);
