import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import type { CommandOutcome, Computers } from "../computers/computers";
import { isText, lineCounts } from "../computers/computers";
import { currentFiles, folderEntries, formatBytes, readFileVersion, writeFiles } from "../computers/files";
import { normalisePath, PathError } from "../computers/paths";
import { isAppError } from "../errors";
import { isPrivateRun } from "../access/access";
import { truncate } from "../text";
import { ToolError, type ToolContext, type ToolDefinition, type ToolEffect, type ToolPreview } from "./types";

/**
 * The tools of an agent's computer: a shell in its sandbox and its files.
 * Commands run with no network; every file lives in the database with its
 * history (lib/computers). Paths are relative to the workspace; one that
 * leads out of it is refused with a sentence the model can act on.
 */

/** Text of a file a read hands the model; the rest is counted. */
export const FILES_READ_MAX_CHARS = 50_000;
/** Largest contents one `files.write` takes. */
export const FILES_WRITE_MAX_CHARS = 1_000_000;
const MAX_COMMAND_CHARS = 10_000;

/** The person a private chat's writes stay with (see `canReadFileVersion`); null for every other run. */
const privateToOf = (ctx: ToolContext) => (isPrivateRun({ userId: ctx.userId, trigger: ctx.trigger, sessionId: ctx.sessionId }) ? ctx.userId : null);

function computersOf(ctx: ToolContext): Computers {
  if (!ctx.computers) throw new ToolError("This server has no computers for agents: commands and files are off here.", { refused: true });
  return ctx.computers;
}

/** A path the model gave, normalised, or a refusal that says why. */
function pathOf(input: string, options: { allowRoot?: boolean } = {}): string {
  try {
    return normalisePath(input, options);
  } catch (error) {
    if (error instanceof PathError) throw new ToolError(error.message, { refused: true });
    throw error;
  }
}

const pathField = z.string().min(1).max(4096).describe("A path relative to the workspace, such as notes/plan.md");

// ---------------------------------------------------------------- shell.exec

const shellInput = z.object({
  command: z.string().trim().min(1).max(MAX_COMMAND_CHARS).describe("A shell command (sh -c), run in the agent's sandbox"),
  cwd: z.string().max(4096).optional().describe("The folder to start in, relative to the workspace (its root by default)"),
  timeoutSeconds: z.number().int().min(1).max(600).optional().describe("Wall-clock limit in seconds (at most the server's limit)"),
  network: z
    .boolean()
    .optional()
    .describe("Give the command the internet (public addresses only, through an HTTP proxy in http_proxy/https_proxy). Off by default; a person usually has to approve it."),
});

/** A command without the network stays in its sandbox; with it, it reads from and can send to the outside. */
const CONTAINED: readonly ToolEffect[] = ["executes_code", "writes_computer"];
const NETWORKED: readonly ToolEffect[] = [...CONTAINED, "reads_external", "sends_externally"];

export type ShellOutput = Omit<CommandOutcome, "taint" | "signal"> & { signal: string | null; summary: string; taint: string[] };

function describeCommand(command: string, out: CommandOutcome): string {
  const how =
    out.stoppedBy === "timeout"
      ? "was stopped at its time limit"
      : out.stoppedBy === "cancelled"
        ? "was stopped"
        : out.stoppedBy === "workspace_full"
          ? "was stopped: it filled the workspace past its limit"
          : out.signal
            ? `was ended by ${out.signal}`
            : `exited with code ${out.exitCode}`;
  const lines = [`I ran \`${truncate(command, 200, "…")}\`: it ${how} after ${(out.durationMs / 1000).toFixed(1)} s.`];
  const shown = (out.stdout || out.stderr).trimEnd();
  if (shown) lines.push("", "```", truncate(shown.split("\n").slice(-20).join("\n"), 2000, "…"), "```");
  if (out.files.length > 0) {
    lines.push("", `Files: ${out.files.map((f) => `${f.path} (${f.change}${f.added !== null ? `, +${f.added} −${f.removed}` : ""})`).join(", ")}.`);
  }
  if (out.network) {
    if (out.network.hosts.length > 0) lines.push("", `Network: it reached ${out.network.hosts.join(", ")}.`);
    for (const refusal of out.network.refused.slice(0, 5)) lines.push(`- ${refusal}`);
  }
  return lines.join("\n");
}

export const shellExecTool: ToolDefinition<z.infer<typeof shellInput>, ShellOutput> = {
  name: "shell.exec",
  compute: "sandbox",
  description:
    "Run a shell command in your own computer: a Linux sandbox whose /workspace holds your files (they persist between commands). There is no network unless you ask for it with network: true. Output is kept up to 64 kB per stream.",
  input: shellInput,
  effects: NETWORKED,
  effectsOf: (input) => (input.network ? NETWORKED : CONTAINED),
  timeoutMs: 11 * 60_000,
  taint: (_input, output) => output.taint,
  preview: (input) => ({
    title: "Run a command in the agent's computer",
    fields: [
      { label: "Folder", value: `/workspace${input.cwd ? `/${safePathText(input.cwd)}` : ""}` },
      { label: "Network", value: input.network ? "On: public addresses only, through Clawdeck's proxy" : "Off" },
      { label: "Time limit", value: `${input.timeoutSeconds ?? 60} seconds` },
    ],
    body: input.command,
  }),
  async execute(ctx, input) {
    const computers = computersOf(ctx);
    const available = await computers.availability();
    if (!available.ok) throw new ToolError(available.reason, { refused: true });
    const cwd = pathOf(input.cwd ?? "", { allowRoot: true });
    if (cwd) {
      const files = await currentFiles(ctx.db, ctx.agentId, cwd);
      if (!files.some((f) => f.path.startsWith(`${cwd}/`))) throw new ToolError(`There is no folder ${cwd} in the workspace.`);
    }
    const out = await computers.run(
      ctx.db,
      { workspaceId: ctx.workspaceId, agentId: ctx.agentId, runId: ctx.runId, stepId: ctx.stepId, taint: ctx.taint, privateTo: privateToOf(ctx) },
      { command: input.command, cwd, timeoutSeconds: input.timeoutSeconds, network: input.network ? { allow: ctx.fetchAllow ?? [] } : null },
      { signal: ctx.signal, onOutput: ctx.progress },
    );
    return { ...out, summary: describeCommand(input.command, out) };
  },
};

/** A path as it may be shown on a card, whatever the model sent. */
function safePathText(path: string): string {
  try {
    return normalisePath(path, { allowRoot: true });
  } catch {
    return JSON.stringify(truncate(path, 120, "…"));
  }
}

// ---------------------------------------------------------------- files.read

const readInput = z.object({ path: pathField, version: z.number().int().min(1).optional().describe("An earlier version (the current one by default)") });

export interface FilesReadOutput {
  path: string;
  version: number;
  size: number;
  /** The text (cut at 50,000 characters), or null for a file that is not text. */
  text: string | null;
  truncated: boolean;
  summary: string;
  taint: string[];
}

export const filesReadTool: ToolDefinition<z.infer<typeof readInput>, FilesReadOutput> = {
  name: "files.read",
  description: "Read a file of your computer's workspace (text up to 50,000 characters).",
  input: readInput,
  effects: ["reads_workspace"],
  taint: (_input, output) => output.taint,
  preview: (input) => ({ title: "Read a file", fields: [{ label: "File", value: safePathText(input.path) }] }),
  async execute(ctx, input) {
    computersOf(ctx);
    const path = pathOf(input.path);
    const file = await readFileVersion(ctx.db, ctx.agentId, path, input.version);
    if (!file) throw new ToolError(input.version ? `${path} has no version ${input.version}.` : `There is no file ${path} in the workspace.`);
    const text = isText(file.content) ? file.content.toString("utf8") : null;
    const truncated = text !== null && text.length > FILES_READ_MAX_CHARS;
    return {
      path,
      version: file.version,
      size: file.size,
      text: text === null ? null : text.slice(0, FILES_READ_MAX_CHARS),
      truncated,
      summary: text === null ? `${path} (version ${file.version}) is ${formatBytes(file.size)} of data that is not text.` : `${path} (version ${file.version}):\n\n\`\`\`\n${truncate(text, 2000, "…")}\n\`\`\``,
      taint: file.taint,
    };
  },
};

// ---------------------------------------------------------------- files.list

const listInput = z.object({ path: z.string().max(4096).optional().describe("A folder relative to the workspace (its root by default)") });

export interface FilesListOutput {
  path: string;
  entries: { path: string; kind: "file" | "folder"; size: number; version: number | null }[];
  summary: string;
}

export const filesListTool: ToolDefinition<z.infer<typeof listInput>, FilesListOutput> = {
  name: "files.list",
  description: "List a folder of your computer's workspace: its files (with size and version) and folders.",
  input: listInput,
  effects: ["reads_workspace"],
  taint: () => null,
  preview: (input) => ({ title: "List files", fields: [{ label: "Folder", value: `/workspace${input.path ? `/${safePathText(input.path)}` : ""}` }] }),
  async execute(ctx, input) {
    computersOf(ctx);
    const folder = pathOf(input.path ?? "", { allowRoot: true });
    const entries = folderEntries(await currentFiles(ctx.db, ctx.agentId, folder), folder).map(({ updatedAt: _at, ...e }) => e);
    const where = folder ? `/workspace/${folder}` : "/workspace";
    const summary =
      entries.length === 0
        ? `${where} is empty.`
        : `${where} holds:\n\n${entries.map((e) => `- ${e.kind === "folder" ? `${e.path}/` : `${e.path} (${formatBytes(e.size)}, version ${e.version})`}`).join("\n")}`;
    return { path: folder, entries, summary };
  },
};

// ---------------------------------------------------------------- files.write and files.delete

const writeInput = z.object({ path: pathField, content: z.string().max(FILES_WRITE_MAX_CHARS).describe("The whole new contents of the file") });
const deleteInput = z.object({ path: pathField });

export interface FilesWriteOutput {
  path: string;
  version: number;
  /** What happened to the file; `unchanged` when it already held these contents. */
  change: "added" | "changed" | "deleted" | "unchanged";
  added: number | null;
  removed: number | null;
  summary: string;
}

/** The diff of a file's current version against new contents (null contents: deleted), as a reviewer reads it. */
async function diffPreview(ctx: { db: ToolContext["db"]; agentId: string }, rawPath: string, next: string | null): Promise<string | undefined> {
  let path: string;
  try {
    path = normalisePath(rawPath);
  } catch {
    return undefined;
  }
  const current = await readFileVersion(ctx.db, ctx.agentId, path);
  if (current && !isText(current.content)) return `${path} is not text: its ${formatBytes(current.size)} would be ${next === null ? "deleted" : "replaced"}.`;
  const before = current?.content.toString("utf8") ?? "";
  return createTwoFilesPatch(current ? `a/${path}` : "/dev/null", next === null ? "/dev/null" : `b/${path}`, before, next ?? "", current ? `version ${current.version}` : "", next === null ? "" : "new version", { context: 3 });
}

async function changeFiles(ctx: ToolContext, rawPath: string, content: string | null): Promise<FilesWriteOutput> {
  const computers = computersOf(ctx);
  const path = pathOf(rawPath);
  const before = await readFileVersion(ctx.db, ctx.agentId, path);
  if (content === null && !before) throw new ToolError(`There is no file ${path} in the workspace.`);
  const after = content === null ? null : Buffer.from(content, "utf8");
  try {
    const [written] = await writeFiles(
      ctx.db,
      { workspaceId: ctx.workspaceId, agentId: ctx.agentId },
      { runId: ctx.runId, stepId: ctx.stepId, taint: ctx.taint, privateTo: privateToOf(ctx) },
      [{ path, content: after }],
      computers.fileLimits,
    );
    if (!written) return { path, version: before!.version, change: "unchanged", added: 0, removed: 0, summary: `${path} already held these contents (version ${before!.version}).` };
    const counts = lineCounts(before?.content ?? null, after);
    const change = written.deleted ? "deleted" : written.previous === 0 ? "added" : "changed";
    const lines = counts.added === null ? "" : ` (+${counts.added} −${counts.removed} lines)`;
    const summary = written.deleted ? `I deleted ${path} (it was version ${before!.version}).` : `I wrote ${path}: version ${written.version}${lines}.`;
    return { path, version: written.version, change, ...counts, summary };
  } catch (error) {
    if (isAppError(error)) throw new ToolError(error.message, { refused: true });
    throw error;
  }
}

export const filesWriteTool: ToolDefinition<z.infer<typeof writeInput>, FilesWriteOutput> = {
  name: "files.write",
  description: "Write a whole file of your computer's workspace (created with its folders if new). Every write is kept as a version.",
  input: writeInput,
  effects: ["writes_computer"],
  taint: () => null,
  preview: (input) => ({
    title: "Write a file in the agent's computer",
    fields: [
      { label: "File", value: safePathText(input.path) },
      { label: "Size", value: formatBytes(Buffer.byteLength(input.content)) },
    ],
    body: truncate(input.content, 4000, "…"),
  }),
  async previewNow(ctx, input): Promise<ToolPreview> {
    return { ...this.preview(input), body: undefined, diff: await diffPreview(ctx, input.path, input.content) };
  },
  execute: (ctx, input) => changeFiles(ctx, input.path, input.content),
};

export const filesDeleteTool: ToolDefinition<z.infer<typeof deleteInput>, FilesWriteOutput> = {
  name: "files.delete",
  description: "Delete a file of your computer's workspace (its versions stay in the history).",
  input: deleteInput,
  effects: ["writes_computer"],
  taint: () => null,
  preview: (input) => ({ title: "Delete a file in the agent's computer", fields: [{ label: "File", value: safePathText(input.path) }] }),
  async previewNow(ctx, input): Promise<ToolPreview> {
    return { ...this.preview(input), diff: await diffPreview(ctx, input.path, null) };
  },
  execute: (ctx, input) => changeFiles(ctx, input.path, null),
};
