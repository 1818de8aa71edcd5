import { and, desc, eq, inArray } from "drizzle-orm";
import type { Viewer } from "../access/access";
import { canReadFileVersion, readableRunsWhere } from "../access/reads";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { agentRuns, agents, steps } from "../db/schema";
import { AppError } from "../errors";
import { currentFiles, fileHistory, folderEntries, readFileVersion, workspacePath, writeFiles, type FileLimits } from "./files";
import { isText } from "./computers";

/**
 * An agent's computer as people read it through the API: its folders, a
 * file's contents and history, a restore. Every read is shaped for the
 * viewer: a version a private chat wrote is shown only to its person and
 * to those who read every chat (`canReadFileVersion`).
 */

async function assertAgent(db: Db, workspaceId: string, agentId: string) {
  const [agent] = await db.select({ id: agents.id }).from(agents).where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspaceId)));
  if (!agent) throw new AppError("not_found:agent");
}

/** The entries directly inside a folder of the agent's computer that the viewer may read. */
export async function listAgentFiles(db: Db, workspaceId: string, agentId: string, folderInput: string, viewer: Viewer) {
  await assertAgent(db, workspaceId, agentId);
  const folder = workspacePath(folderInput, { allowRoot: true });
  const readable = (await currentFiles(db, agentId, folder)).filter((f) => canReadFileVersion(viewer, f));
  const entries = folderEntries(readable, folder).map((e) => ({ ...e, updatedAt: e.updatedAt.toISOString() }));
  return { path: folder, entries };
}

/** One version of a file (the current one by default), if the viewer may read it; 404 otherwise, alike. */
export async function readAgentFile(db: Db, workspaceId: string, agentId: string, pathInput: string, version: number | undefined, viewer: Viewer) {
  await assertAgent(db, workspaceId, agentId);
  const path = workspacePath(pathInput);
  const file = await readFileVersion(db, agentId, path, version);
  if (!file || !canReadFileVersion(viewer, file)) throw new AppError("not_found:file", version ? `${path} has no version ${version} you may read.` : `There is no file ${path} you may read.`);
  return file;
}

/** Every version of a file the viewer may read, newest first. */
export async function agentFileHistory(db: Db, workspaceId: string, agentId: string, pathInput: string, viewer: Viewer) {
  await assertAgent(db, workspaceId, agentId);
  const path = workspacePath(pathInput);
  const versions = (await fileHistory(db, agentId, path)).filter((v) => canReadFileVersion(viewer, v));
  if (versions.length === 0) throw new AppError("not_found:file", `There is no file ${path} you may read.`);
  return {
    path,
    versions: versions.map((v) => ({ version: v.version, size: v.size, deleted: v.deleted, runId: v.runId, stepId: v.stepId, restoredBy: v.userId, at: v.at.toISOString() })),
  };
}

/**
 * Makes an earlier version of a file its current one again: a new version with that version's contents, written by
 * the person (audited). It keeps the restored version's taint and privacy.
 */
export async function restoreAgentFile(db: Db, workspaceId: string, agentId: string, input: { path: string; version: number }, by: Viewer, limits: FileLimits) {
  const file = await readAgentFile(db, workspaceId, agentId, input.path, input.version, by);
  const [written] = await writeFiles(db, { workspaceId, agentId }, { userId: by.userId, taint: file.taint, privateTo: file.privateTo }, [{ path: file.path, content: file.content }], limits);
  await recordAudit(db, {
    workspaceId,
    actor: { kind: "user", id: by.userId },
    action: "agent_file.restored",
    target: { type: "agent", id: agentId },
    detail: { path: file.path, from: input.version, to: written?.version ?? null },
  });
  const current = written?.version ?? (await readFileVersion(db, agentId, file.path))!.version;
  return { path: file.path, version: current, restoredFrom: input.version };
}

/**
 * The agent's latest commands the viewer may read (those of runs they may open), newest first: the command, where it
 * ran, its output as kept, and how it ended. The agent page's terminal.
 */
export async function recentCommands(db: Db, workspaceId: string, agentId: string, viewer: Viewer, limit = 20) {
  await assertAgent(db, workspaceId, agentId);
  const rows = await db
    .select({ stepId: steps.id, runId: steps.runId, input: steps.input, output: steps.output, status: steps.status, error: steps.error, startedAt: steps.startedAt, createdAt: steps.createdAt })
    .from(steps)
    .innerJoin(agentRuns, eq(agentRuns.id, steps.runId))
    .where(and(eq(steps.workspaceId, workspaceId), eq(agentRuns.agentId, agentId), eq(steps.tool, "shell.exec"), readableRunsWhere(viewer)))
    .orderBy(desc(steps.createdAt))
    .limit(limit);
  return rows.map((r) => {
    const input = (r.input ?? {}) as { command?: unknown; cwd?: unknown };
    const output = (r.output ?? null) as { exitCode?: number | null; stdout?: string; stderr?: string; stoppedBy?: string | null; signal?: string | null; durationMs?: number } | null;
    return {
      stepId: r.stepId,
      runId: r.runId,
      command: typeof input.command === "string" ? input.command : "",
      cwd: typeof input.cwd === "string" ? input.cwd : "",
      status: r.status,
      error: r.error,
      exitCode: output?.exitCode ?? null,
      stoppedBy: output?.stoppedBy ?? null,
      signal: output?.signal ?? null,
      durationMs: output?.durationMs ?? null,
      output: output ? [output.stdout ?? "", output.stderr ?? ""].filter(Boolean).join("") : "",
      at: (r.startedAt ?? r.createdAt).toISOString(),
    };
  });
}

/** What the agent's browser showed last, in a run the viewer may read: the address and the screenshot of that call. */
export async function latestBrowserView(db: Db, workspaceId: string, agentId: string, viewer: Viewer) {
  const [row] = await db
    .select({ output: steps.output, finishedAt: steps.finishedAt, createdAt: steps.createdAt })
    .from(steps)
    .innerJoin(agentRuns, eq(agentRuns.id, steps.runId))
    .where(and(eq(steps.workspaceId, workspaceId), eq(agentRuns.agentId, agentId), inArray(steps.tool, ["browser.open", "browser.act"]), eq(steps.status, "succeeded"), readableRunsWhere(viewer)))
    .orderBy(desc(steps.createdAt))
    .limit(1);
  const output = (row?.output ?? null) as { url?: unknown; title?: unknown; screenshotPath?: unknown; screenshotVersion?: unknown } | null;
  if (!row || typeof output?.url !== "string" || typeof output.screenshotPath !== "string") return null;
  return {
    url: output.url,
    title: typeof output.title === "string" ? output.title : "",
    screenshotPath: output.screenshotPath,
    screenshotVersion: typeof output.screenshotVersion === "number" ? output.screenshotVersion : null,
    at: (row.finishedAt ?? row.createdAt).toISOString(),
  };
}

const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/**
 * A file's bytes as a response that cannot run in the app's origin: text is served as plain text whatever its name
 * (an agent's `page.html` is not a page of the app), known raster images as themselves, everything else (SVG
 * included) as a download; nothing is sniffed and nothing may run.
 */
export function fileResponse(path: string, content: Buffer, download: boolean): Response {
  const name = path.split("/").pop() ?? "file";
  const extension = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  const image = IMAGE_TYPES[extension];
  const text = !image && isText(content);
  const type = image ?? (text ? "text/plain; charset=utf-8" : "application/octet-stream");
  const attachment = download || (!image && !text);
  return new Response(new Uint8Array(content), {
    headers: {
      "Content-Type": type,
      "Content-Length": String(content.length),
      "Content-Disposition": `${attachment ? "attachment" : "inline"}; filename*=UTF-8''${encodeURIComponent(name)}`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self'",
      "Cache-Control": "private, no-store",
    },
  });
}
