import { describe, expect, it } from "vitest";
import { spanIdOf, traceIdOf } from "../../lib/telemetry/ids";
import { tracesUrl } from "../../lib/telemetry/otlp";
import { MAX_CONTENT_CHARS, toolCallSpan, type SpanRecord } from "../../lib/telemetry/spans";
import type { StepFacts } from "../../lib/telemetry/facts";

const RUN = "0b6f2a54-6c3e-4d55-9f3a-0d1c2b3a4f5e";

describe("trace and span ids derived from the journal's ids", () => {
  it("are the same in every process: 16-byte trace ids and 8-byte span ids in lower-case hex", () => {
    expect(traceIdOf({ runId: RUN })).toBe(traceIdOf({ runId: RUN }));
    expect(traceIdOf({ runId: RUN })).toMatch(/^[0-9a-f]{32}$/);
    expect(spanIdOf("run", RUN)).toMatch(/^[0-9a-f]{16}$/);
  });

  it("differ by kind: a run, a mission and a step with the same id never share an id", () => {
    const ids = [spanIdOf("run", RUN), spanIdOf("mission", RUN), spanIdOf("tool_call", RUN), spanIdOf("model_call", RUN)];
    expect(new Set(ids).size).toBe(4);
    expect(traceIdOf({ runId: RUN })).not.toBe(traceIdOf({ missionRunId: RUN }));
    expect(spanIdOf("model_call", `${RUN}:0`)).not.toBe(spanIdOf("model_call", `${RUN}:1`));
  });

  it("send traces to the collector's /v1/traces, with or without a trailing slash", () => {
    expect(tracesUrl("https://otel.example.com")).toBe("https://otel.example.com/v1/traces");
    expect(tracesUrl("https://otel.example.com/api/public/otel/")).toBe("https://otel.example.com/api/public/otel/v1/traces");
  });
});

describe("contents in a span", () => {
  const at = new Date("2026-01-05T10:00:00Z");
  const facts = {
    step: { id: "s1", runId: RUN, workspaceId: "w", callId: "c1", tool: "http.fetch", status: "succeeded", input: { url: "https://example.com" }, output: "x".repeat(MAX_CONTENT_CHARS * 2), error: null, startedAt: at, finishedAt: at, createdAt: at },
    approval: null,
  } as unknown as StepFacts;
  const context = { traceId: traceIdOf({ runId: RUN }), parentSpanId: null, missionRunId: null, wokenBy: null };
  const attrs = (span: SpanRecord) => span.attributes;

  it("are cut at the size collectors take, and left out entirely when the workspace has not turned them on", () => {
    const result = String(attrs(toolCallSpan(facts, context, true))["gen_ai.tool.call.result"]);
    expect(result).toHaveLength(MAX_CONTENT_CHARS);
    expect(result.endsWith("…")).toBe(true);
    expect(Object.keys(attrs(toolCallSpan(facts, context, false))).filter((k) => k.startsWith("gen_ai.tool.call.a") || k.startsWith("gen_ai.tool.call.r"))).toEqual([]);
  });
});
