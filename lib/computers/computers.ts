import { diffLines } from "diff";
import type { Db } from "../db/client";
import { DEFAULT_COMMAND_LIMITS, type CommandLimits, type CommandStream, type ComputerEngine, type EngineAvailability, type ExecResult } from "./engine";
import { createBrowsers, type Browsers } from "./browsers";
import { openEgressProxy } from "./egress";
import { createTurns } from "./turns";
import type { FileLimits } from "./files";
import { materialise, writeBack } from "./sync";

/**
 * Agents' computers on this server: one engine, each agent's commands one at
 * a time (its folder is copied in before and read back after each), and the
 * commands running now, so that a cancel, a pause or a deletion can stop
 * them and a person can see them.
 */

export interface FileChangeSummary {
  path: string;
  version: number;
  /** What happened to the file. */
  change: "added" | "changed" | "deleted";
  /** Lines added and removed (null for a file that is not text). */
  added: number | null;
  removed: number | null;
}

export interface CommandOutcome extends ExecResult {
  files: FileChangeSummary[];
  /** The untrusted sources of the files the command could read and of the hosts it reached: its output carries them. */
  taint: string[];
  /** What the command did on the network, when it had it: the hosts it reached, and each refusal as a sentence. */
  network: { hosts: string[]; refused: string[] } | null;
  /** Entries the command made that are not kept (links, pipes, devices, names that cannot be paths). */
  ignored: string[];
  tooLarge: string[];
}

export interface RunningCommand {
  agentId: string;
  runId: string;
  stepId: string;
  command: string;
  startedAt: string;
}

export interface Computers {
  engine: ComputerEngine;
  fileLimits: FileLimits;
  commandLimits: CommandLimits;
  /** The agents' browsers on this server. */
  browsers: Browsers;
  availability(): Promise<EngineAvailability>;
  /** Runs one command in the agent's computer, with its files current before and stored after. */
  run(
    db: Db,
    target: { workspaceId: string; agentId: string; runId: string; stepId: string; taint: readonly string[]; privateTo: string | null },
    command: { command: string; cwd: string; timeoutSeconds?: number; network?: { allow: readonly string[] } | null },
    options: { signal: AbortSignal; onOutput?: (stream: CommandStream, text: string) => void },
  ): Promise<CommandOutcome>;
  /** Commands running now on this server, of one agent or of all. */
  running(agentId?: string): RunningCommand[];
  /** Stops every command of the agent on this server and closes its browser (a pause, a deletion). */
  stop(agentId: string, workspaceId: string): void;
}

export function createComputers(engine: ComputerEngine, fileLimits: FileLimits, commandLimits: CommandLimits = DEFAULT_COMMAND_LIMITS): Computers {
  // Each agent's commands one at a time: its folder is copied in before and read back after each.
  const turns = createTurns();
  const running = new Map<string, RunningCommand & { controller: AbortController }>();
  const browsers = createBrowsers(engine, fileLimits);

  return {
    engine,
    fileLimits,
    commandLimits,
    browsers,
    availability: () => engine.availability(),

    run(db, target, command, options) {
      return turns.run(target.agentId, async () => {
        const controller = new AbortController();
        const signal = AbortSignal.any([options.signal, controller.signal]);
        signal.throwIfAborted();
        const owner = { workspaceId: target.workspaceId, agentId: target.agentId };
        const entry = { agentId: owner.agentId, runId: target.runId, stepId: target.stepId, command: command.command, startedAt: new Date().toISOString(), controller };
        running.set(target.stepId, entry);
        try {
          const sandbox = await engine.prepare({ workspaceId: owner.workspaceId, agentId: owner.agentId });
          const present = await materialise(db, sandbox);
          const limits = { ...commandLimits, ...(command.timeoutSeconds ? { wallMs: Math.min(command.timeoutSeconds * 1000, commandLimits.wallMs) } : {}) };
          const proxy = command.network ? await openEgressProxy({ allow: command.network.allow }) : null;
          let result: ExecResult;
          try {
            result = await engine.exec(sandbox, {
              command: command.command,
              cwd: command.cwd,
              limits,
              signal,
              onOutput: options.onOutput,
              ...(proxy ? { egress: { socketPath: proxy.socketPath } } : {}),
            });
          } finally {
            await proxy?.close();
          }
          const hosts = proxy?.hosts() ?? [];
          // Whatever came from the network is untrusted, and so is every file the command wrote after reading it.
          const taint = [...new Set([...target.taint, ...hosts.map((host) => `web:${host}`)])];
          // What the command changed is kept whatever its exit code, as a terminal keeps it.
          const back = await writeBack(db, sandbox, { runId: target.runId, stepId: target.stepId, taint, privateTo: target.privateTo }, fileLimits);
          return {
            ...result,
            files: back.written.map((w) => ({ path: w.path, version: w.version, change: w.deleted ? "deleted" : w.previous === 0 ? "added" : "changed", ...lineCounts(w.before, w.after) })),
            ignored: back.ignored,
            tooLarge: back.tooLarge,
            taint: [...new Set([...present.flatMap((f) => f.taint), ...hosts.map((host) => `web:${host}`)])],
            network: proxy ? { hosts, refused: proxy.refusals().map((r) => r.sentence) } : null,
          };
        } finally {
          running.delete(target.stepId);
        }
      });
    },

    running(agentId) {
      return [...running.values()]
        .filter((r) => !agentId || r.agentId === agentId)
        .map(({ controller: _controller, ...command }) => command);
    },

    stop(agentId, workspaceId) {
      for (const entry of running.values()) if (entry.agentId === agentId) entry.controller.abort("stopped");
      engine.kill({ workspaceId, agentId });
      void browsers.close(agentId);
    },
  };
}

/** Whether bytes read as text: valid UTF-8 without NUL. */
export function isText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  return Buffer.from(content.toString("utf8"), "utf8").equals(content);
}

/** Lines added and removed between two versions of a file (null when either is not text). */
export function lineCounts(before: Buffer | null, after: Buffer | null): { added: number | null; removed: number | null } {
  if ((before && !isText(before)) || (after && !isText(after))) return { added: null, removed: null };
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before?.toString("utf8") ?? "", after?.toString("utf8") ?? "")) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}
