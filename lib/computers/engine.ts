/**
 * What runs an agent's commands. The runtime talks to an engine through this
 * small interface only, so a remote engine (a pod per agent, a microVM) can
 * take the place of the local one without the tools changing: `prepare` gives
 * the folder the agent's files are copied into before a command, `exec` runs
 * one command there, `kill` stops every command of an agent, `release` drops
 * the agent's folder.
 */

export interface CommandLimits {
  /** Wall time of the whole command; it is killed past it. */
  wallMs: number;
  /** CPU time of each process. */
  cpuSeconds: number;
  /** Address space of each process. */
  memoryBytes: number;
  /** Processes (and threads) the command may have at once. */
  processes: number;
  /** Largest file it may write. */
  fileBytes: number;
  /** Output kept per stream (stdout, stderr); the rest is counted. */
  outputBytes: number;
  /** Bytes the workspace folder may grow to while the command runs; it is killed past it. */
  workspaceBytes: number;
}

export const DEFAULT_COMMAND_LIMITS: CommandLimits = {
  wallMs: 60_000,
  cpuSeconds: 60,
  memoryBytes: 1024 * 1024 * 1024,
  processes: 128,
  fileBytes: 10 * 1024 * 1024,
  outputBytes: 64 * 1024,
  workspaceBytes: 220 * 1024 * 1024,
};

/** The agent a sandbox belongs to. */
export interface SandboxOwner {
  workspaceId: string;
  agentId: string;
}

/** An agent's sandbox on this machine: where its files are copied to. */
export interface Sandbox {
  owner: SandboxOwner;
  /** The host folder mounted as `/workspace` inside. */
  workspaceDir: string;
}

export type CommandStream = "stdout" | "stderr";

export interface ExecRequest {
  command: string;
  /** Workspace-relative folder to start in ("" for the root). */
  cwd: string;
  limits: CommandLimits;
  /** Aborting kills the command (a cancel, a pause, the agent's deletion). */
  signal: AbortSignal;
  /**
   * The network, when the policy gave the command one: the Unix socket of Clawdeck's egress proxy. The command then
   * sees an HTTP proxy at `http://127.0.0.1:3128` (in `http_proxy` and `https_proxy`) and nothing else; without it,
   * it has no network at all.
   */
  egress?: { socketPath: string };
  /** Each piece of output as it comes (already decoded). */
  onOutput?: (stream: CommandStream, text: string) => void;
}

/** Why a command was stopped before it ended by itself. */
export type StopReason = "timeout" | "cancelled" | "workspace_full";

export interface ExecResult {
  exitCode: number | null;
  /** The signal that ended it, if one did (SIGKILL after a limit, SIGXCPU for CPU time). */
  signal: string | null;
  stoppedBy: StopReason | null;
  durationMs: number;
  /** CPU time the command used (its processes, as the kernel counted them), when known. */
  cpuMs: number | null;
  stdout: string;
  stderr: string;
  /** Bytes of each stream that were not kept. */
  stdoutDropped: number;
  stderrDropped: number;
}

export type EngineAvailability = { ok: true } | { ok: false; reason: string };

export interface ComputerEngine {
  readonly name: "bubblewrap";
  /** Whether commands can run here; when not, a sentence saying why (shown on the agent page and in the health check). */
  availability(): Promise<EngineAvailability>;
  prepare(owner: SandboxOwner): Promise<Sandbox>;
  exec(sandbox: Sandbox, request: ExecRequest): Promise<ExecResult>;
  /**
   * An executable that starts Chromium inside a sandbox of the agent's (no files of its, the network only through
   * `egress`), passing on its arguments: a browser driver launches it and drives it over the pipes it inherits.
   */
  browserLauncher(owner: SandboxOwner, egress: { socketPath: string }): Promise<string>;
  /** Kills every command of the agent running on this machine. */
  kill(owner: SandboxOwner): void;
  /** Removes the agent's folder (its files stay in the database). */
  release(owner: SandboxOwner): Promise<void>;
}
