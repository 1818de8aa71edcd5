import { and, eq } from "drizzle-orm";
import type { Db } from "../../lib/db/client";
import { agentRuns, agents, approvals } from "../../lib/db/schema";
import { createScriptedModel, type ScriptedTurn } from "../../lib/models/scripted";
import type { ResolvedModel } from "../../lib/models/registry";
import type { ModelProvider } from "../../lib/models/types";
import { isTerminal, type RunEvent } from "../../lib/journal/run-events";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import type { Server } from "../../lib/server";

/** The specs routed to test providers, per test server: one table, put in front of the server's resolver once. */
const routed = new WeakMap<Server, Map<string, ResolvedModel>>();

/**
 * Routes agents whose model is `spec` to the given provider (a later call for the same spec replaces it); every other
 * spec resolves as configured. The server belongs to its test file and ends with it.
 */
export function routeModel(server: Server, spec: string, provider: ModelProvider, model = spec): void {
  let table = routed.get(server);
  if (!table) {
    const routes = new Map<string, ResolvedModel>();
    const configured = server.runtime.deps.models;
    server.runtime.deps.models = (s): ResolvedModel => routes.get(s) ?? configured(s);
    routed.set(server, routes);
    table = routes;
  }
  table.set(spec, { provider, model, spec, offline: false });
}

export function useScriptedModel(server: Server, turns: ScriptedTurn[], spec = "scripted") {
  const model = createScriptedModel(turns);
  routeModel(server, spec, model);
  return model;
}

let n = 0;
/** A new agent in the workspace with the given model and tools. */
export async function makeAgent(db: Db, workspaceId: string, options: { model?: string; tools?: string[]; handle?: string } = {}) {
  n += 1;
  const [agent] = await db
    .insert(agents)
    .values({
      workspaceId,
      handle: options.handle ?? `bot${n}x${Date.now().toString(36)}`,
      name: `Bot ${n}`,
      model: options.model ?? "scripted",
      tools: options.tools ?? ["memory.remember", "memory.recall", "chat.send", "slack.post", "http.fetch"],
    })
    .returning();
  return agent!;
}

/** Polls the journal until the run's terminal event is there, and returns every event. */
export async function waitForRun(db: Db, runId: string, timeoutMs = 20_000): Promise<RunEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await readRunEvents(db, runId, 0, 10_000);
    if (events.some((e) => isTerminal(e.type))) return events;
    if (Date.now() > deadline) throw new Error(`Run ${runId} did not finish: ${events.map((e) => e.type).join(", ")}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function getRunRow(db: Db, runId: string) {
  const [run] = await db.select().from(agentRuns).where(eq(agentRuns.id, runId));
  return run!;
}

export const textOf = (events: RunEvent[]) =>
  events.flatMap((e) => (e.type === "text" ? [e.payload.delta] : [])).join("");

/** Polls `check` until its answer is truthy, and returns that answer; throws after `timeoutMs`. */
export async function settle<T>(check: () => Promise<T | undefined | null | false | 0 | "">, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The pending approval a run suspended on (fails if the run ends instead). */
export async function suspension(db: Db, runId: string) {
  await settle(async () => {
    const run = await getRunRow(db, runId);
    if (run.state !== "running" && run.state !== "suspended") throw new Error(`run ended as ${run.state}: ${run.error}`);
    return run.state === "suspended";
  });
  const [approval] = await db.select().from(approvals).where(and(eq(approvals.runId, runId), eq(approvals.status, "pending")));
  return approval!;
}
