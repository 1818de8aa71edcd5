import { z } from "zod";
import { listAgentFiles } from "@/lib/computers/agent-files";
import { fileEntriesSchema } from "@/lib/computers/computer-schemas";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });
const query = z.object({ path: z.string().max(4096).default("") });

export const GET = route(
  {
    doc: { summary: "the entries of a folder of the agent's computer (its root by default): files with size and version, and folders; only the versions you may read" },
    params,
    query,
    response: fileEntriesSchema,
  },
  async ({ db, workspace, user, params, query }) => listAgentFiles(db, workspace.id, params.id, query.path, { userId: user.id, role: workspace.role }),
);
