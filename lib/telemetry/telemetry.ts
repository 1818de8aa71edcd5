import type { Database } from "../db/client";
import type { Env } from "../env";
import type { ModelMessage, StopReason, Usage } from "../models/types";
import type { ProposedCall } from "../safety/dispatch";

/** One model call of a run, as the driver knows it once the call is charged (the usage is what the ledger holds). */
export interface ModelCallFacts {
  runId: string;
  workspaceId: string;
  callNumber: number;
  provider: string;
  model: string;
  startedAt: Date;
  endedAt: Date;
  usage: Usage;
  /** How the call ended; null when it failed, with `errorCode`. */
  stop: StopReason | null;
  errorCode: string | null;
  /** What was sent and received: exported only when the workspace turns contents on. */
  contents: { system: string; messages: ModelMessage[]; text: string; calls: ProposedCall[] };
}

/**
 * What the runtime tells the exporter, each once the fact is committed. Every method returns at once: spans are built
 * and sent in the background, and a slow or dead collector never holds up a run.
 */
export interface RunTelemetry {
  modelCallEnded(facts: ModelCallFacts): void;
  toolCallEnded(runId: string, stepId: string): void;
  runEnded(runId: string): void;
  missionEnded(missionRunId: string): void;
  /** Waits until every span told so far is built and handed to the collector (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Runs end in places that hold only the database (the sweeper, a cancel, a stopped mission, the door), so the
 * exporter is found by the database handle, like the journal writer, on `globalThis` (Next may load this module
 * more than once).
 */
const registry = globalThis as typeof globalThis & { [key: symbol]: WeakMap<object, RunTelemetry> | undefined };
const REGISTRY_KEY = Symbol.for("clawdeck.runTelemetry");

/** The exporter of this database's runs, or undefined when `OTEL_EXPORTER_OTLP_ENDPOINT` is not set. */
export function telemetryOf(db: object): RunTelemetry | undefined {
  return registry[REGISTRY_KEY]?.get(db);
}

/**
 * Starts exporting the runs of `db` when the operator set `OTEL_EXPORTER_OTLP_ENDPOINT`; without it nothing of
 * OpenTelemetry is loaded. The collector's address is the operator's, so it is not held to the address rules that
 * tools and webhooks are.
 */
export async function startTelemetry(db: Database, env: Env): Promise<RunTelemetry | null> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  const { createOtlpTelemetry } = await import("./otlp");
  const telemetry = createOtlpTelemetry(db, {
    endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    headers: env.OTEL_EXPORTER_OTLP_HEADERS ?? {},
    serviceName: env.OTEL_SERVICE_NAME,
    timeoutMs: env.OTEL_EXPORTER_OTLP_TIMEOUT,
  });
  (registry[REGISTRY_KEY] ??= new WeakMap()).set(db, telemetry);
  return telemetry;
}

/** Stops exporting the runs of `db`, after sending what was told. */
export async function stopTelemetry(db: object): Promise<void> {
  const telemetry = telemetryOf(db);
  if (!telemetry) return;
  registry[REGISTRY_KEY]!.delete(db);
  await telemetry.shutdown();
}
