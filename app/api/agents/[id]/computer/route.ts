import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { latestBrowserView } from "@/lib/computers/agent-files";
import { computerStatusSchema } from "@/lib/computers/computer-schemas";
import { agents } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });

export const GET = route(
  {
    doc: { summary: "the agent's computer: whether commands can run on this server (and why not), the commands running now, and what its browser showed last" },
    params,
    response: computerStatusSchema,
  },
  async ({ server, db, workspace, user, params }) => {
    const [agent] = await db.select({ id: agents.id }).from(agents).where(and(eq(agents.id, params.id), eq(agents.workspaceId, workspace.id)));
    if (!agent) throw new AppError("not_found:agent");
    const computers = server.runtime.deps.computers;
    const available = computers ? await computers.availability() : { ok: false as const, reason: "This server has no computers for agents." };
    return {
      engine: available.ok ? computers!.engine.name : ("off" as const),
      reason: available.ok ? null : available.reason,
      running: computers?.running(params.id).map(({ runId, stepId, command, startedAt }) => ({ runId, stepId, command, startedAt })) ?? [],
      browser: await latestBrowserView(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
    };
  },
);
