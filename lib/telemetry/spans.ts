// The spans of runs, model calls, tool calls and missions, built from committed facts (GenAI semantic conventions).
import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  ATTR_ERROR_TYPE,
} from "@opentelemetry/semantic-conventions/incubating";
import type { ContentBlock, ModelMessage } from "../models/types";
import { truncate } from "../text";
import type { MissionFacts, RunFacts, StepFacts, TraceContext } from "./facts";
import { spanIdOf, traceIdOf } from "./ids";
import type { ModelCallFacts } from "./telemetry";

export type Attributes = Record<string, string | number | boolean | string[]>;

/** A finished span, in the terms of OTLP, before it is handed to the exporter. */
export interface SpanRecord {
  name: string;
  kind: "internal" | "client";
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  start: Date;
  end: Date;
  attributes: Attributes;
  status: { code: "unset" | "ok" | "error"; message?: string };
}

/** The longest a content attribute gets (collectors refuse very large attributes); longer ones end with "…". */
export const MAX_CONTENT_CHARS = 32_000;

const content = (value: unknown) => truncate(typeof value === "string" ? value : JSON.stringify(value ?? null), MAX_CONTENT_CHARS, "…");

/** A run: `invoke_agent` from its creation until it ended, with its totals. */
/**
 * A run's span. Its failure sentence can quote what the model or a tool said (a malformed tool input, an upstream
 * node's error): it goes only when the workspace exports contents; the error's code always does.
 */
export function runSpan({ run, handle }: RunFacts, context: TraceContext, contents: boolean): SpanRecord {
  const failed = run.state === "failed";
  return {
    name: `invoke_agent ${handle ?? "agent"}`,
    kind: "internal",
    traceId: context.traceId,
    spanId: spanIdOf("run", run.id),
    parentSpanId: context.parentSpanId,
    start: run.startedAt ?? run.createdAt,
    end: run.finishedAt ?? run.updatedAt,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: "invoke_agent",
      [ATTR_GEN_AI_AGENT_ID]: run.agentId,
      ...(handle ? { [ATTR_GEN_AI_AGENT_NAME]: handle } : {}),
      [ATTR_GEN_AI_REQUEST_MODEL]: run.model,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: run.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: run.outputTokens,
      ...(run.sessionId ? { [ATTR_GEN_AI_CONVERSATION_ID]: run.sessionId } : {}),
      "clawdeck.workspace.id": run.workspaceId,
      "clawdeck.run.id": run.id,
      "clawdeck.run.trigger": run.trigger,
      "clawdeck.run.state": run.state,
      "clawdeck.run.model_calls": run.modelCalls,
      "clawdeck.run.credits": run.credits,
      ...(context.wokenBy ? { "clawdeck.run.woken_by": context.wokenBy } : {}),
      ...(context.missionRunId ? { "clawdeck.mission.id": context.missionRunId, "clawdeck.mission.node": run.missionNodeId ?? "" } : {}),
      ...(failed && run.errorCode ? { [ATTR_ERROR_TYPE]: run.errorCode } : {}),
    },
    status: failed ? { code: "error", message: (contents ? run.error : run.errorCode) ?? undefined } : run.state === "succeeded" ? { code: "ok" } : { code: "unset" },
  };
}

/** One model call: `chat <model>`, a child of its run's span, with the tokens the ledger charged. */
export function modelCallSpan(facts: ModelCallFacts, context: TraceContext, withContents: boolean): SpanRecord {
  const { contents } = facts;
  return {
    name: `chat ${facts.model}`,
    kind: "client",
    traceId: context.traceId,
    spanId: spanIdOf("model_call", `${facts.runId}:${facts.callNumber}`),
    parentSpanId: spanIdOf("run", facts.runId),
    start: facts.startedAt,
    end: facts.endedAt,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: "chat",
      [ATTR_GEN_AI_PROVIDER_NAME]: facts.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: facts.model,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: facts.usage.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: facts.usage.outputTokens,
      ...(facts.stop ? { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [facts.stop] } : {}),
      ...(facts.errorCode ? { [ATTR_ERROR_TYPE]: facts.errorCode } : {}),
      "clawdeck.run.id": facts.runId,
      "clawdeck.model_call.number": facts.callNumber,
      ...(withContents
        ? {
            [ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]: content([{ type: "text", content: contents.system }]),
            [ATTR_GEN_AI_INPUT_MESSAGES]: content(contents.messages.map(messageOf)),
            [ATTR_GEN_AI_OUTPUT_MESSAGES]: content([
              {
                role: "assistant",
                parts: [
                  ...(contents.text ? [{ type: "text", content: contents.text }] : []),
                  ...contents.calls.map((c) => ({ type: "tool_call", id: c.id, name: c.name, arguments: c.input })),
                ],
                ...(facts.stop ? { finish_reason: facts.stop } : {}),
              },
            ]),
          }
        : {}),
    },
    status: facts.errorCode ? { code: "error" } : { code: "unset" },
  };
}

/** A message as the GenAI conventions write it: a role and its parts (tool results are the `tool` role's). */
function messageOf(message: ModelMessage) {
  const results = message.content.length > 0 && message.content.every((b) => b.type === "tool_result");
  return { role: results ? "tool" : message.role, parts: message.content.map(partOf) };
}

function partOf(block: ContentBlock) {
  switch (block.type) {
    case "text":
      return { type: "text", content: block.text };
    case "tool_use":
      return { type: "tool_call", id: block.id, name: block.name, arguments: block.input };
    case "tool_result":
      return { type: "tool_call_response", id: block.toolUseId, response: block.content };
  }
}

/** One tool call: `execute_tool <tool>` from the step's start to its end, with the approval it waited for. */
export function toolCallSpan({ step, approval }: StepFacts, context: TraceContext, withContents: boolean): SpanRecord {
  const ok = step.status === "succeeded";
  const start = step.startedAt ?? step.createdAt;
  const waitedUntil = approval?.decidedAt ?? step.finishedAt ?? start;
  return {
    name: `execute_tool ${step.tool}`,
    kind: "internal",
    traceId: context.traceId,
    spanId: spanIdOf("tool_call", step.id),
    parentSpanId: spanIdOf("run", step.runId),
    start,
    end: step.finishedAt ?? start,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_GEN_AI_TOOL_NAME]: step.tool,
      [ATTR_GEN_AI_TOOL_CALL_ID]: step.callId,
      "clawdeck.run.id": step.runId,
      "clawdeck.step.id": step.id,
      "clawdeck.tool.status": step.status,
      "clawdeck.approval.required": !!approval,
      ...(approval
        ? {
            "clawdeck.approval.id": approval.id,
            "clawdeck.approval.decision": approval.status,
            "clawdeck.approval.wait_ms": Math.max(0, waitedUntil.getTime() - approval.createdAt.getTime()),
          }
        : {}),
      ...(ok ? {} : { [ATTR_ERROR_TYPE]: step.status }),
      ...(withContents
        ? { [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: content(step.input), [ATTR_GEN_AI_TOOL_CALL_RESULT]: content(ok ? step.output : { error: step.error }) }
        : {}),
    },
    status: ok ? { code: "ok" } : { code: "error" },
  };
}

/** A mission: `invoke_workflow <crew>`, the root of the trace its runs share. */
/** A mission's span; as a run's, its failure sentence goes only with contents (it may quote a node's error). */
export function missionSpan({ mission, crew }: MissionFacts, contents: boolean): SpanRecord {
  const failed = mission.state === "failed";
  return {
    name: `invoke_workflow ${crew ?? "mission"}`,
    kind: "internal",
    traceId: traceIdOf({ missionRunId: mission.id }),
    spanId: spanIdOf("mission", mission.id),
    parentSpanId: null,
    start: mission.startedAt ?? mission.createdAt,
    end: mission.finishedAt ?? mission.startedAt ?? mission.createdAt,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: "invoke_workflow",
      ...(crew ? { [ATTR_GEN_AI_WORKFLOW_NAME]: crew } : {}),
      "clawdeck.workspace.id": mission.workspaceId,
      "clawdeck.mission.id": mission.id,
      "clawdeck.mission.state": mission.state,
      "clawdeck.mission.credits": mission.credits,
    },
    status: failed ? { code: "error", message: contents ? (mission.error ?? undefined) : undefined } : mission.state === "succeeded" ? { code: "ok" } : { code: "unset" },
  };
}
