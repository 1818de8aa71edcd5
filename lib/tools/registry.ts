import { z } from "zod";
import type { ToolSpec } from "../models/types";
import { chatSendTool } from "./chat-send";
import { httpFetchTool } from "./http-fetch";
import { httpRequestTool } from "./http-request";
import { memoryRecallTool, memoryRememberTool } from "./memory";
import { slackPostTool } from "./slack-post";
import { browserActTool, browserOpenTool } from "./browser";
import { filesDeleteTool, filesListTool, filesReadTool, filesWriteTool, shellExecTool } from "./computer";
import type { ToolDefinition, ToolEffect } from "./types";

// Each tool keeps its own input and output types; the registry sees them through this common shape.
type AnyTool = ToolDefinition<Record<string, unknown>, unknown>;
const asAny = (tool: object) => tool as AnyTool;

export const builtinTools: AnyTool[] = [
  httpFetchTool,
  httpRequestTool,
  chatSendTool,
  slackPostTool,
  memoryRememberTool,
  memoryRecallTool,
  shellExecTool,
  filesReadTool,
  filesWriteTool,
  filesListTool,
  filesDeleteTool,
  browserOpenTool,
  browserActTool,
].map(asAny);

export interface ToolRegistry {
  get(name: string): AnyTool | undefined;
  all(): AnyTool[];
}

export function createToolRegistry(tools: AnyTool[] = builtinTools): ToolRegistry {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return { get: (name) => byName.get(name), all: () => [...byName.values()] };
}

export const toolNames = builtinTools.map((t) => t.name);

/** The JSON Schema the model sees is made from the same zod schema that validates the call. */
/** Specs by tool: a tool's schema does not change, and every model call lists the agent's tools. */
const specs = new WeakMap<AnyTool, ToolSpec>();

export function toolSpec(tool: AnyTool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete schema.$schema;
    spec = { name: tool.name, description: tool.description, inputSchema: schema };
    specs.set(tool, spec);
  }
  return spec;
}

export type { AnyTool };

/** A call's effects: the tool's, narrowed by its input where the tool says how (`effectsOf`). */
export function effectsOfCall(tool: AnyTool, input: Record<string, unknown>): readonly ToolEffect[] {
  try {
    return tool.effectsOf?.(input) ?? tool.effects;
  } catch {
    return tool.effects;
  }
}
