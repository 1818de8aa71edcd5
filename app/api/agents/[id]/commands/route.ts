import { z } from "zod";
import { recentCommands } from "@/lib/computers/agent-files";
import { recentCommandsSchema } from "@/lib/computers/computer-schemas";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });

export const GET = route(
  { doc: { summary: "the agent's latest commands in runs you may open, newest first: command, folder, output as kept, how it ended" }, params, response: recentCommandsSchema },
  async ({ db, workspace, user, params }) => ({ commands: await recentCommands(db, workspace.id, params.id, { userId: user.id, role: workspace.role }) }),
);
