import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import { dataDir, type Env } from "../env";
import { createBubblewrapEngine } from "./bubblewrap";
import { createComputers, type Computers } from "./computers";
import { DEFAULT_COMMAND_LIMITS } from "./engine";
import type { EventBus } from "../db/bus";

const MB = 1024 * 1024;

/**
 * Where agents' folders are copied to on this machine: `CLAWDECK_COMPUTERS_DIR`, else a folder of the system's
 * temporary directory named after the data folder (a copy only: what matters is in the database).
 */
export function computersDir(env: Env): string {
  if (env.CLAWDECK_COMPUTERS_DIR) return path.resolve(env.CLAWDECK_COMPUTERS_DIR);
  const tag = crypto.createHash("sha256").update(dataDir(env)).digest("hex").slice(0, 12);
  return path.join(os.tmpdir(), `clawdeck-computers-${tag}`);
}

/** Agents' computers as the environment sets them up: the local engine, with the limits of the settings. */
export function computersFromEnv(env: Env): Computers {
  const fileLimits = {
    maxFileBytes: Math.round(env.CLAWDECK_AGENT_FILE_MAX_MB * MB),
    maxAgentBytes: Math.round(env.CLAWDECK_AGENT_STORAGE_MAX_MB * MB),
    maxAgentFiles: env.CLAWDECK_AGENT_FILES_MAX,
  };
  const engine = createBubblewrapEngine({ root: computersDir(env) });
  return createComputers(engine, fileLimits, {
    ...DEFAULT_COMMAND_LIMITS,
    wallMs: env.CLAWDECK_COMMAND_MAX_SECONDS * 1000,
    cpuSeconds: env.CLAWDECK_COMMAND_MAX_SECONDS,
    fileBytes: fileLimits.maxFileBytes,
    // While a command runs, its folder may pass the agent's limit by a little: what it leaves is checked on the way back.
    workspaceBytes: Math.round(fileLimits.maxAgentBytes * 1.1),
  });
}

/** Asks every instance to stop an agent's commands (the agent was paused). */
export const STOP_COMMANDS_TOPIC = "computers:stop";

/** Stops the agent's commands on this instance when any instance asks. Returns the unsubscribe function. */
export function followCommandStops(bus: EventBus, computers: Computers): () => void {
  return bus.subscribe(STOP_COMMANDS_TOPIC, (message) => {
    const { agentId, workspaceId } = message as { agentId?: unknown; workspaceId?: unknown };
    if (typeof agentId === "string" && typeof workspaceId === "string") computers.stop(agentId, workspaceId);
  });
}

/** Stops an agent's commands here at once and on every other instance through the bus. */
export async function stopAgentCommands(bus: EventBus, computers: Computers | undefined, agent: { agentId: string; workspaceId: string }) {
  computers?.stop(agent.agentId, agent.workspaceId);
  await bus.publish(STOP_COMMANDS_TOPIC, agent);
}
