import { asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents } from "../db/schema";

export interface AgentSummary {
  id: string;
  handle: string;
  name: string;
  description: string;
  model: string;
  tools: string[];
  color: string;
  status: "active" | "paused";
}

export async function listAgents(db: Db, workspaceId: string): Promise<AgentSummary[]> {
  return db
    .select({
      id: agents.id,
      handle: agents.handle,
      name: agents.name,
      description: agents.description,
      model: agents.model,
      tools: agents.tools,
      color: agents.color,
      status: agents.status,
    })
    .from(agents)
    .where(eq(agents.workspaceId, workspaceId))
    .orderBy(asc(agents.handle));
}
