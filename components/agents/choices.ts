import { availableModels } from "@/lib/models/registry";
import { builtinTools } from "@/lib/tools/registry";
import type { Server } from "@/lib/server";
import { toolBlurbs, type ModelChoice, type ToolChoice } from "./form-choices";

/** What the agent form offers, from the server's configuration (read on the server, passed to the page). */
export function agentChoices(server: Pick<Server, "models">): { models: ModelChoice[]; tools: ToolChoice[]; defaultModel: string } {
  return {
    models: availableModels(server.models),
    tools: builtinTools.map((t) => ({ name: t.name, description: toolBlurbs[t.name] ?? t.description })),
    defaultModel: server.models.defaultModel,
  };
}
