import { mailerFromEnv, smtpPassword, type Mailer } from "./mail/mailer";
import { getEnv, parseEnv, type Env } from "./env";
import { openDatabase, targetFromEnv, type Database, type DatabaseHandle } from "./db/client";
import { loadSecrets, type ServerSecrets } from "./secrets";
import { bootstrapIfEmpty } from "./workspaces/bootstrap";
import os from "node:os";
import crypto from "node:crypto";
import { createLocalBus, createPostgresBus, type EventBus } from "./db/bus";
import { createRuntime, type Runtime } from "./runtime/runtime";
import { doorRuns } from "./door/door-runs";
import { fetchAllowList } from "./net/safe-fetch";
import { computersFromEnv, followCommandStops } from "./computers/setup";
import { createModelResolver, modelConfigFromEnv, providerKeys, type ModelConfig } from "./models/registry";
import { rememberSecret } from "./secret-redactor";
import { createToolRegistry } from "./tools/registry";
import { checkBudget } from "./billing/budgets";
import { createMissionScheduler, type MissionScheduler } from "./missions/scheduler";
import { judgeComparisons } from "./missions/compare";
import { runNotifications, type NotificationChannels } from "./notifications/outbox";
import { createPushSender, vapidSubject } from "./notifications/push";
import { runWebhooks } from "./webhooks/deliveries";
import { originPolicyFromEnv } from "./http/origin";
import { startTelemetry, stopTelemetry } from "./telemetry/telemetry";

/**
 * Everything a server process shares: one database handle (PGlite is a
 * single connection per process), the secrets and the parsed environment.
 * Kept on globalThis so that instrumentation and every route bundle see the
 * same instance; nothing opens at import time.
 */
export interface Server {
  env: Env;
  db: Database;
  handle: DatabaseHandle;
  secrets: ServerSecrets;
  bus: EventBus;
  runtime: Runtime;
  missions: MissionScheduler;
  models: ModelConfig;
  /** The operator's SMTP server, when one is configured (`CLAWDECK_SMTP_URL`). */
  mailer: Mailer | null;
  /** How reviewers are reached: email (with an SMTP server), web push, Slack. */
  channels: NotificationChannels;
}

const holder = globalThis as typeof globalThis & { __clawdeckServer?: Promise<Server> };

export function getServer(): Promise<Server> {
  holder.__clawdeckServer ??= startServer().catch((error: unknown) => {
    // A failed start must not stay cached: the next call tries again.
    holder.__clawdeckServer = undefined;
    throw error;
  });
  return holder.__clawdeckServer;
}

/** Closes the shared instance (tests, graceful shutdown). */
export async function stopServer(): Promise<void> {
  const pending = holder.__clawdeckServer;
  holder.__clawdeckServer = undefined;
  if (!pending) return;
  const server = await pending;
  await server.runtime.drain();
  await stopTelemetry(server.db);
  await server.runtime.deps.computers?.browsers.closeAll();
  await server.bus.close();
  await server.handle.close();
}

async function startServer(): Promise<Server> {
  const env = process.env.NODE_ENV === "test" ? parseEnv(process.env) : getEnv();
  const secrets = loadSecrets(env);
  const models = modelConfigFromEnv(process.env);
  // Logged errors are scrubbed of every key this process holds.
  for (const key of [...providerKeys(models), secrets.authSecret, env.CLAWDECK_ENCRYPTION_KEY, smtpPassword(env.CLAWDECK_SMTP_URL)]) rememberSecret(key);
  const handle = await openDatabase(targetFromEnv(env));
  let bus: EventBus | undefined;
  try {
    await handle.migrate();
    const created = await bootstrapIfEmpty(handle.db, {
      ownerEmail: env.CLAWDECK_OWNER_EMAIL,
      ownerPassword: env.CLAWDECK_OWNER_PASSWORD,
      model: models.defaultModel,
    });
    if (created && env.NODE_ENV !== "test") printWelcome(env, created.email, created.generatedPassword);
    bus = env.DATABASE_URL ? await createPostgresBus(env.DATABASE_URL) : createLocalBus();
  } catch (error) {
    await bus?.close();
    await handle.close();
    throw error;
  }
  const runtime = createRuntime({
    db: handle.db,
    bus,
    models: createModelResolver(models),
    tools: createToolRegistry(),
    encryptionKey: secrets.encryptionKey,
    instanceId: `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`,
    maxSteps: env.CLAWDECK_MAX_STEPS,
    maxTokens: 4096,
    fetchAllow: fetchAllowList(env.CLAWDECK_FETCH_ALLOW),
    computers: computersFromEnv(env),
    coalesceMs: 0,
    heartbeatMs: 10_000,
    runKinds: [doorRuns],
    checkBudget: (input) => checkBudget(handle.db, input),
  });
  const missions = createMissionScheduler(runtime);
  // Runs (and missions) are exported as traces only when the operator names a collector.
  const telemetry = await startTelemetry(handle.db, env);
  if (telemetry) missions.onFinish(async (missionRunId) => telemetry.missionEnded(missionRunId));
  judgeComparisons(runtime.deps, missions, (work) => runtime.onSweep(work));
  if (runtime.deps.computers) followCommandStops(bus, runtime.deps.computers);
  const mailer = mailerFromEnv(env);
  const fetchAllow = fetchAllowList(env.CLAWDECK_FETCH_ALLOW);
  const channels: NotificationChannels = {
    email: mailer,
    push: createPushSender(handle.db, { encryptionKey: secrets.encryptionKey, fetchAllow, subject: vapidSubject(publicBaseUrl(env), env.CLAWDECK_MAIL_FROM) }),
    slack: { encryptionKey: secrets.encryptionKey, fetchAllow },
  };
  // Reviewers are told about waiting requests (and reminded, and the next tier told) on every sweep.
  runtime.onSweep(async () => {
    await runNotifications(handle.db, runtime.deps.tools, channels, publicBaseUrl(env));
  });
  // The team's own systems hear about the workspace's events through its webhooks.
  runtime.onSweep(async () => {
    await runWebhooks(handle.db, { encryptionKey: secrets.encryptionKey, fetchAllow, baseUrl: publicBaseUrl(env) });
  });
  return { env, db: handle.db, handle, secrets, bus, runtime, missions, models, mailer, channels };
}

/** Where links in messages point: the app's first configured origin, else `AUTH_URL`, else this machine's port. */
export function publicBaseUrl(env: Pick<Env, "CLAWDECK_ORIGIN" | "AUTH_URL" | "PORT">): string {
  return originPolicyFromEnv(env).origins[0] ?? `http://localhost:${env.PORT}`;
}

function printWelcome(env: Env, email: string, password: string | undefined) {
  const url = `http://localhost:${env.PORT}/sign-in`;
  const lines = [
    "",
    "  Clawdeck is ready. A demo workspace with four agents (scout, herald, atlas, forge) was created.",
    "",
    `    Sign in at  ${url}`,
    `    Email       ${email}`,
    password ? `    Password    ${password}` : "    Password    (the one set in CLAWDECK_OWNER_PASSWORD)",
    "",
    password ? "  This password is shown only once: keep it somewhere safe. Add people under Settings → Members." : "",
    "",
  ];
  console.log(lines.join("\n"));
}
