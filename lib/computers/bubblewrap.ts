import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { CommandStream, ComputerEngine, EngineAvailability, ExecRequest, ExecResult, Sandbox, SandboxOwner, StopReason } from "./engine";

/**
 * The local engine: each command runs in a bubblewrap sandbox (Linux
 * namespaces, no setuid helper needed).
 *
 * The wall, from the outside in:
 * - when the server runs as root, the sandbox runs as a host user of the
 *   agent's own (a number no account uses), so the kernel's per-user limits
 *   and file permissions separate agents even outside the namespaces;
 * - new user, PID, IPC, UTS, cgroup, mount and network namespaces: no
 *   network at all (only a loopback of its own), no other process visible;
 *   a command the policy gave the network reaches it only through the
 *   egress proxy's socket (./egress.ts), forwarded from its own loopback;
 * - the system is `/usr` read-only (with the usual `/bin`, `/lib` links) and
 *   a few files of `/etc`; nothing else of the host is there: not the data
 *   folder, not other agents' folders, not the server's environment (the
 *   sandbox starts with an empty one, and so does the bubblewrap process,
 *   whose environment the sandbox could read in `/proc/1/environ`);
 * - `/workspace` (the agent's folder) is the only writable place besides a
 *   small private `/tmp`;
 * - a `/proc` of its own and the devices null, zero, full, random, urandom, tty;
 * - limits per process (CPU seconds, address space, file size, open files)
 *   and per user (processes), a wall clock, a cap on kept output, and a
 *   watch on the workspace's size;
 * - `--die-with-parent` and a new session: when the command is killed, or
 *   the server stops, everything it started goes with it.
 */

const SYSTEM_BINDS: [string, string][] = [["/usr", "/usr"]];
const SYSTEM_LINKS: [string, string][] = [
  ["usr/bin", "/bin"],
  ["usr/sbin", "/sbin"],
  ["usr/lib", "/lib"],
  ["usr/lib64", "/lib64"],
];
/** The few files of /etc that programs need to start (and no others: no accounts, no host names, no secrets). */
const ETC_FILES = ["/etc/ld.so.cache", "/etc/alternatives", "/etc/ssl/certs", "/etc/mime.types", "/etc/localtime", "/etc/fonts"];
/** What a command sees as its environment. */
const SANDBOX_ENV: Record<string, string> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/workspace",
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
  TERM: "xterm-256color",
  USER: "agent",
};
/** The environment bubblewrap itself starts with: nothing of the server's (Next's types insist on NODE_ENV). */
const BARE_ENV = { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv;
const TMP_BYTES = 64 * 1024 * 1024;
/** Host users the sandboxes run as when the server is root: one per agent, from a range no account uses. */
const FIRST_SANDBOX_UID = 2_000_000;
const SANDBOX_UIDS = 1_000_000;
/** Part of the kept output from the end of a long stream; the rest from its start. */
const TAIL_SHARE = 0.25;

export interface BubblewrapOptions {
  /**
   * Where agents' folders are kept on this machine (a copy; the files are in the database). Outside the private data
   * folder: when the server runs as root, a sandbox's own user must be able to reach its folder.
   */
  root: string;
  /** The bubblewrap binary (found on PATH when not given). */
  bwrap?: string;
}

export function createBubblewrapEngine(options: BubblewrapOptions): ComputerEngine {
  const bwrap = options.bwrap ?? "bwrap";
  const running = new Map<string, Set<ChildProcess>>();
  let checked: Promise<EngineAvailability> | undefined;
  const asRoot = process.getuid?.() === 0;

  const folderOf = (owner: SandboxOwner) => path.join(options.root, owner.workspaceId, owner.agentId);
  const uidOf = (owner: SandboxOwner) => FIRST_SANDBOX_UID + (crypto.createHash("sha256").update(owner.agentId).digest().readUInt32BE(0) % SANDBOX_UIDS);

  return {
    name: "bubblewrap",

    availability() {
      checked ??= probe(bwrap);
      return checked;
    },

    async prepare(owner) {
      const folder = folderOf(owner);
      const workspaceDir = path.join(folder, "workspace");
      fs.mkdirSync(workspaceDir, { recursive: true, mode: 0o700 });
      // The folders above an agent's workspace can be passed through, not listed: the sandbox's own user must reach
      // its workspace, and no one may see which agents have one. The workspace itself is its user's alone.
      for (const dir of [options.root, path.dirname(folder), folder]) fs.chmodSync(dir, 0o711);
      fs.chmodSync(workspaceDir, 0o700);
      if (asRoot) ownTree(workspaceDir, uidOf(owner));
      return { owner, workspaceDir };
    },

    async exec(sandbox, request) {
      const owner = sandbox.owner;
      const uid = asRoot ? uidOf(owner) : undefined;
      // Files the server wrote since the last command (the copy from the database) become the agent's.
      if (uid !== undefined) ownTree(sandbox.workspaceDir, uid);
      const child = spawn(bwrap, sandboxArgs(sandbox, request), {
        // Nothing of the server's environment: the sandbox could read its parent's in /proc.
        env: BARE_ENV,
        stdio: ["ignore", "pipe", "pipe"],
        uid,
        gid: uid,
      });
      const key = owner.agentId;
      const mine = running.get(key) ?? new Set();
      mine.add(child);
      running.set(key, mine);
      try {
        return await watch(child, sandbox, request);
      } finally {
        mine.delete(child);
        if (mine.size === 0) running.delete(key);
      }
    },

    async browserLauncher(owner, egress) {
      const chromium = CHROMIUM.find((file) => fs.existsSync(file));
      if (!chromium) throw new Error("Agents' browsers need Chromium, which is not installed on this server (Debian and Ubuntu: apt-get install chromium).");
      const folder = folderOf(owner);
      fs.mkdirSync(folder, { recursive: true, mode: 0o711 });
      const args = wallArgs({
        workspaceDir: null,
        cwd: "/tmp",
        tmpBytes: BROWSER_TMP_BYTES,
        env: BROWSER_ENV,
        egress,
        limits: ["--cpu=600", `--fsize=${100 * 1024 * 1024}`, "--nproc=2048", "--nofile=4096", "--core=0"],
        program: [chromium],
      });
      // Started by the driver as the server's user; it drops to the agent's own user before the sandbox is made.
      const asAgent = asRoot ? ["/usr/bin/setpriv", `--reuid=${uidOf(owner)}`, `--regid=${uidOf(owner)}`, "--clear-groups", "--"] : [];
      const launcher = path.join(folder, "browser.sh");
      const script = `#!/bin/sh\nexec /usr/bin/env -i PATH=/usr/bin:/bin ${[...asAgent, bwrapPath(bwrap), ...args].map(shellWord).join(" ")} "$@"\n`;
      await fs.promises.writeFile(launcher, script, { mode: 0o700 });
      return launcher;
    },

    kill(owner) {
      for (const child of running.get(owner.agentId) ?? []) child.kill("SIGKILL");
    },

    async release(owner) {
      this.kill(owner);
      await fs.promises.rm(folderOf(owner), { recursive: true, force: true });
    },
  };
}

/** Where the egress proxy's socket and the server's Node are mounted inside a sandbox with network. */
const EGRESS_SOCKET = "/run/clawdeck/egress.sock";
const SANDBOX_NODE = "/run/clawdeck/node";
export const SANDBOX_PROXY = "http://127.0.0.1:3128";

/**
 * The first process of a sandbox with network: it listens on the sandbox's own loopback (port 3128) and passes each
 * connection to the egress proxy's socket, runs the program given after it (with the pipes a browser is driven
 * through, fds 3 and 4, when there are any), and ends as the program ended.
 */
const FORWARDER = `
const net = require("node:net");
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const server = net.createServer((inside) => {
  const out = net.connect(${JSON.stringify(EGRESS_SOCKET)});
  const end = () => { inside.destroy(); out.destroy(); };
  inside.on("error", end); out.on("error", end); inside.on("close", end); out.on("close", end);
  inside.pipe(out); out.pipe(inside);
});
const passed = (fd) => { try { fs.fstatSync(fd); return fd; } catch { return "ignore"; } };
server.listen(3128, "127.0.0.1", () => {
  const [program, ...args] = process.argv.slice(1);
  const child = spawn(program, args, { stdio: ["inherit", "inherit", "inherit", passed(3), passed(4)] });
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
});
`;

/** What differs between the sandbox of a command and that of a browser; the wall around them is the same. */
interface WallOptions {
  /** Mounted writable at /workspace (a browser has none of the agent's files). */
  workspaceDir: string | null;
  cwd: string;
  tmpBytes: number;
  env: Record<string, string>;
  egress?: { socketPath: string };
  /** prlimit's options. */
  limits: string[];
  /** The program and its arguments. */
  program: string[];
}

function wallArgs(options: WallOptions): string[] {
  const args = ["--unshare-all", "--die-with-parent", "--new-session", "--uid", "1000", "--gid", "1000", "--hostname", "computer", "--clearenv"];
  args.push(...systemArgs());
  args.push("--proc", "/proc", "--dev", "/dev", "--size", String(options.tmpBytes), "--tmpfs", "/tmp");
  if (options.workspaceDir) args.push("--bind", options.workspaceDir, "/workspace");
  args.push("--chdir", options.cwd);
  for (const [name, value] of Object.entries(options.env)) args.push("--setenv", name, value);
  if (options.egress) {
    args.push("--ro-bind", process.execPath, SANDBOX_NODE, "--bind", options.egress.socketPath, EGRESS_SOCKET);
    for (const name of ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) args.push("--setenv", name, SANDBOX_PROXY);
  }
  args.push("--", "/usr/bin/prlimit", ...options.limits, "--");
  if (options.egress) args.push(SANDBOX_NODE, "-e", FORWARDER);
  args.push(...options.program);
  return args;
}

function sandboxArgs(sandbox: Sandbox, request: ExecRequest): string[] {
  const { limits } = request;
  return wallArgs({
    workspaceDir: sandbox.workspaceDir,
    cwd: request.cwd ? `/workspace/${request.cwd}` : "/workspace",
    tmpBytes: TMP_BYTES,
    env: SANDBOX_ENV,
    egress: request.egress,
    limits: [`--cpu=${limits.cpuSeconds}`, `--as=${limits.memoryBytes}`, `--fsize=${limits.fileBytes}`, `--nproc=${limits.processes}`, "--nofile=1024", "--core=0"],
    program: ["/bin/sh", "-c", request.command],
  });
}

/**
 * The sandbox of an agent's browser: the same wall, without the agent's files, with a larger private /tmp for its
 * profile, and the network only through the egress proxy. Chromium reserves far more address space than it uses,
 * so its memory is held by V8's heap limit rather than an address-space limit.
 */
const BROWSER_TMP_BYTES = 256 * 1024 * 1024;
const BROWSER_ENV: Record<string, string> = { PATH: "/usr/bin:/bin", HOME: "/tmp", TMPDIR: "/tmp", LANG: "C.UTF-8" };
const CHROMIUM = ["/usr/lib/chromium/chromium", "/usr/lib/chromium-browser/chromium-browser", "/usr/bin/chromium"];

/** A word of a shell script, quoted. */
function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The bubblewrap binary as a path (a script's PATH is not the server's). */
function bwrapPath(bwrap: string): string {
  if (bwrap.includes("/")) return bwrap;
  const found = spawnSync("/bin/sh", ["-c", `command -v ${shellWord(bwrap)}`], { encoding: "utf8", env: BARE_ENV });
  return found.stdout.trim() || bwrap;
}

/** The read-only system every sandbox sees: `/usr`, the usual links into it, and a few files of `/etc`. */
function systemArgs(): string[] {
  const args: string[] = [];
  for (const [from, to] of SYSTEM_BINDS) args.push("--ro-bind", from, to);
  for (const [target, link] of SYSTEM_LINKS) if (fs.existsSync(path.join("/", target))) args.push("--symlink", target, link);
  for (const file of ETC_FILES) args.push("--ro-bind-try", file, file);
  return args;
}

/** Output of one stream: the start and the end of it, up to the limit, and how much of the middle was dropped. */
class KeptOutput {
  private head = "";
  private tail = "";
  private headBytes = 0;
  private tailBytes = 0;
  dropped = 0;
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly limit: number) {}

  /** Takes raw bytes; returns their text (for the live view). */
  add(chunk: Buffer): string {
    const text = this.decoder.write(chunk);
    const headLimit = Math.floor(this.limit * (1 - TAIL_SHARE));
    let rest = text;
    if (this.headBytes < headLimit) {
      const room = headLimit - this.headBytes;
      const taken = takeBytes(rest, room);
      this.head += taken;
      this.headBytes += Buffer.byteLength(taken);
      rest = rest.slice(taken.length);
    }
    if (rest) {
      this.tail += rest;
      this.tailBytes += Buffer.byteLength(rest);
      const tailLimit = this.limit - headLimit;
      if (this.tailBytes > tailLimit * 2) this.trimTail(tailLimit);
    }
    return text;
  }

  private trimTail(tailLimit: number) {
    const buffer = Buffer.from(this.tail);
    if (buffer.length <= tailLimit) return;
    let start = buffer.length - tailLimit;
    // Never cut a character in two.
    while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start += 1;
    this.dropped += start;
    this.tail = buffer.subarray(start).toString("utf8");
    this.tailBytes = buffer.length - start;
  }

  finish(): string {
    this.tail += this.decoder.end();
    this.trimTail(this.limit - Math.floor(this.limit * (1 - TAIL_SHARE)));
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n… ${this.dropped} bytes not kept …\n${this.tail}`;
  }
}

/** The longest start of `text` that fits in `bytes` bytes of UTF-8. */
function takeBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  let end = Math.min(text.length, bytes);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > bytes) end -= 1;
  // Do not end on the first half of a surrogate pair.
  if (end > 0 && /[\ud800-\udbff]/.test(text[end - 1]!)) end -= 1;
  return text.slice(0, end);
}

function watch(child: ChildProcess, sandbox: Sandbox, request: ExecRequest): Promise<ExecResult> {
  const started = performance.now();
  const output: Record<CommandStream, KeptOutput> = { stdout: new KeptOutput(request.limits.outputBytes), stderr: new KeptOutput(request.limits.outputBytes) };
  let stoppedBy: StopReason | null = null;
  const stop = (reason: StopReason) => {
    stoppedBy ??= reason;
    child.kill("SIGKILL");
  };
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream]!.on("data", (chunk: Buffer) => {
      const text = output[stream].add(chunk);
      if (text) request.onOutput?.(stream, text);
    });
  }
  const timer = setTimeout(() => stop("timeout"), request.limits.wallMs);
  const onAbort = () => stop("cancelled");
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener("abort", onAbort, { once: true });
  // The workspace may not grow past its limit while the command runs (each file is held to its own by the kernel).
  let measuring = false;
  const sizeWatch = setInterval(() => {
    if (measuring) return;
    measuring = true;
    void folderBytes(sandbox.workspaceDir, request.limits.workspaceBytes)
      .then((bytes) => {
        if (bytes > request.limits.workspaceBytes) stop("workspace_full");
      })
      .finally(() => (measuring = false));
  }, 250);
  return new Promise((resolve, reject) => {
    child.once("error", (error) => {
      clearTimeout(timer);
      clearInterval(sizeWatch);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      clearInterval(sizeWatch);
      request.signal.removeEventListener("abort", onAbort);
      resolve({
        exitCode: code,
        signal,
        stoppedBy,
        durationMs: Math.round(performance.now() - started),
        cpuMs: null,
        stdout: output.stdout.finish(),
        stderr: output.stderr.finish(),
        stdoutDropped: output.stdout.dropped,
        stderrDropped: output.stderr.dropped,
      });
    });
  });
}

/** Bytes of the regular files under `dir` (links not followed); stops counting once past `limit`. */
export async function folderBytes(dir: string, limit = Number.POSITIVE_INFINITY): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0 && total <= limit) {
    const folder = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) total += (await fs.promises.lstat(full).catch(() => ({ size: 0 }))).size;
    }
  }
  return total;
}

/** Gives a folder and everything in it to the sandbox's host user (the server runs as root). */
function ownTree(dir: string, uid: number) {
  const pending = [dir];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    fs.lchownSync(folder, uid, uid);
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else fs.lchownSync(full, uid, uid);
    }
  }
}

/** Runs a trivial sandbox once: whether bubblewrap is installed and the kernel lets it make namespaces. */
async function probe(bwrap: string): Promise<EngineAvailability> {
  if (process.platform !== "linux") return { ok: false, reason: `Agent computers need Linux; this server runs on ${process.platform}.` };
  const found = spawnSync(bwrap, ["--version"], { encoding: "utf8", env: BARE_ENV });
  if (found.error || found.status !== 0) {
    return { ok: false, reason: "Agent computers need bubblewrap, which is not installed on this server (Debian and Ubuntu: apt-get install bubblewrap)." };
  }
  const tried = spawnSync(bwrap, ["--unshare-all", "--die-with-parent", ...systemArgs(), "--", "/bin/true"], {
    encoding: "utf8",
    env: BARE_ENV,
    timeout: 10_000,
  });
  if (tried.status !== 0) {
    const said = (tried.stderr || tried.error?.message || "").trim().split("\n")[0];
    return { ok: false, reason: `Agent computers are off: this system does not let bubblewrap make a sandbox (${said || "no reason given"}); user namespaces may be disabled.` };
  }
  return { ok: true };
}
