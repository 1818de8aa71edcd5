// Loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry SDK, its OTLP exporter, and the background
// work that turns committed facts into spans.
import { SpanKind, SpanStatusCode, TraceFlags, type HrTime } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { Db } from "../db/client";
import { logError } from "../log";
import { missionFacts, runFacts, stepFacts, traceContextOf, type TraceContext } from "./facts";
import { missionSpan, modelCallSpan, runSpan, toolCallSpan, type SpanRecord } from "./spans";
import { getExportContents } from "./settings";
import type { RunTelemetry } from "./telemetry";

/** Spans waiting to be built at once; past it a fact is dropped (and said so once), never waited for. */
const MAX_BUILDING = 256;
/** Spans waiting for the collector (the processor drops past it); sent in batches of up to 512. */
const MAX_QUEUED = 4096;
/** Runs whose trace context is remembered; a run's context never changes once it exists. */
const CONTEXTS_KEPT = 2_000;

export function createOtlpTelemetry(db: Db, config: { endpoint: string; headers: Record<string, string>; serviceName: string; timeoutMs: number }): RunTelemetry {
  const exporter = new OTLPTraceExporter({ url: tracesUrl(config.endpoint), headers: config.headers, timeoutMillis: config.timeoutMs });
  const processor = new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUED, exportTimeoutMillis: config.timeoutMs });
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName });
  const building = new Set<Promise<void>>();
  const contexts = new Map<string, TraceContext>();
  let dropped = 0;

  async function contextOf(runId: string): Promise<TraceContext | null> {
    const known = contexts.get(runId);
    if (known) return known;
    const context = await traceContextOf(db, runId);
    if (!context) return null;
    if (contexts.size >= CONTEXTS_KEPT) contexts.delete(contexts.keys().next().value!);
    contexts.set(runId, context);
    return context;
  }

  /** Builds a span in the background from what was committed; a failure is logged, never the run's. */
  function build(what: string, work: () => Promise<SpanRecord | null>) {
    if (building.size >= MAX_BUILDING) {
      if (dropped++ === 0) logError("OpenTelemetry: too many spans waiting to be built; dropping some", new Error(what));
      return;
    }
    dropped = 0;
    const task = work()
      .then((span) => {
        if (span) processor.onEnd(readableSpan(span, resource));
      })
      .catch((error: unknown) => logError(`OpenTelemetry: could not build the span of ${what}`, error))
      .finally(() => building.delete(task));
    building.add(task);
  }

  async function settle() {
    while (building.size > 0) await Promise.all(building);
  }

  return {
    modelCallEnded(facts) {
      build(`model call ${facts.callNumber} of run ${facts.runId}`, async () => {
        const [context, contents] = await Promise.all([contextOf(facts.runId), getExportContents(db, facts.workspaceId)]);
        return context && modelCallSpan(facts, context, contents);
      });
    },
    toolCallEnded(runId, stepId) {
      build(`step ${stepId}`, async () => {
        const [context, facts] = await Promise.all([contextOf(runId), stepFacts(db, stepId)]);
        if (!context || !facts) return null;
        return toolCallSpan(facts, context, await getExportContents(db, facts.step.workspaceId));
      });
    },
    runEnded(runId) {
      build(`run ${runId}`, async () => {
        const [context, facts] = await Promise.all([contextOf(runId), runFacts(db, runId)]);
        contexts.delete(runId);
        return context && facts ? runSpan(facts, context, await getExportContents(db, facts.run.workspaceId)) : null;
      });
    },
    missionEnded(missionRunId) {
      build(`mission ${missionRunId}`, async () => {
        const facts = await missionFacts(db, missionRunId);
        return facts && missionSpan(facts, await getExportContents(db, facts.mission.workspaceId));
      });
    },
    async flush() {
      await settle();
      // A collector that is down or refuses loses these spans: said in the log, never thrown at the caller.
      await processor.forceFlush().catch((error: unknown) => logError("OpenTelemetry: the collector did not take the spans", error));
    },
    async shutdown() {
      await settle();
      await processor.shutdown().catch((error: unknown) => logError("OpenTelemetry: the collector did not take the last spans", error));
    },
  };
}

/** `OTEL_EXPORTER_OTLP_ENDPOINT` is the collector's base address; traces go to its `/v1/traces`. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

const kinds = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;
const statuses = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR } as const;

function hrTime(at: Date): HrTime {
  const ms = at.getTime();
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}

/** A span as the SDK's processors and exporters take it, with the ids and times the facts gave it. */
function readableSpan(span: SpanRecord, resource: Resource): ReadableSpan {
  const end = span.end < span.start ? span.start : span.end;
  const durationMs = end.getTime() - span.start.getTime();
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: span.name,
    kind: kinds[span.kind],
    spanContext: () => context,
    parentSpanContext: span.parentSpanId ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } : undefined,
    startTime: hrTime(span.start),
    endTime: hrTime(end),
    duration: [Math.floor(durationMs / 1000), (durationMs % 1000) * 1_000_000],
    status: { code: statuses[span.status.code], message: span.status.message },
    attributes: span.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: "clawdeck" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
