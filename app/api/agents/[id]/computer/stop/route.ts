import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "@/lib/audit";
import { stopAgentCommands } from "@/lib/computers/setup";
import { agents } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });

export const POST = route(
  { doc: { summary: "stops every command the agent is running, on every instance (204; audited); their steps end as stopped and the runs go on" }, can: "agents.manage", params },
  async ({ server, db, workspace, user, params }) => {
    const [agent] = await db.select({ id: agents.id }).from(agents).where(and(eq(agents.id, params.id), eq(agents.workspaceId, workspace.id)));
    if (!agent) throw new AppError("not_found:agent");
    await stopAgentCommands(server.bus, server.runtime.deps.computers, { agentId: agent.id, workspaceId: workspace.id });
    await recordAudit(db, { workspaceId: workspace.id, actor: { kind: "user", id: user.id }, action: "agent.commands_stopped", target: { type: "agent", id: agent.id } });
  },
);
