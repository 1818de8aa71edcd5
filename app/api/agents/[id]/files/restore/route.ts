import { z } from "zod";
import { restoreAgentFile } from "@/lib/computers/agent-files";
import { restoredSchema } from "@/lib/computers/computer-schemas";
import { DEFAULT_FILE_LIMITS } from "@/lib/computers/files";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });
const body = z.object({ path: z.string().min(1).max(4096), version: z.number().int().min(1) });

export const POST = route(
  { doc: { summary: "makes an earlier version of a file its current one again (a new version, audited)" }, can: "agents.manage", params, body, response: restoredSchema },
  async ({ server, workspace, user, params, body }) =>
    restoreAgentFile(server.db, workspace.id, params.id, body, { userId: user.id, role: workspace.role }, server.runtime.deps.computers?.fileLimits ?? DEFAULT_FILE_LIMITS),
);
