import { z } from "zod";
import { fileResponse, readAgentFile } from "@/lib/computers/agent-files";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });
const query = z.object({
  path: z.string().min(1).max(4096),
  version: z.coerce.number().int().min(1).optional(),
  download: z.enum(["1"]).optional(),
});

export const GET = route(
  {
    doc: { summary: "a file's bytes (the current version, or `version`): text as plain text, images as themselves, the rest as a download; 404 for a missing path or one you may not read" },
    params,
    query,
  },
  async ({ db, workspace, user, params, query }) => {
    const file = await readAgentFile(db, workspace.id, params.id, query.path, query.version, { userId: user.id, role: workspace.role });
    return fileResponse(file.path, file.content, query.download === "1");
  },
);
