import crypto from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { agentFileVersions, agents, fileBlobs } from "../db/schema";
import { AppError } from "../errors";
import { isInside, normalisePath, PathError } from "./paths";

/**
 * An agent's files, kept in the database: every write is a new version of a
 * path whose contents are stored once per workspace by their hash, so every
 * instance sees the same files and every change has a history. The folder a
 * command runs in is only a copy (see `sync.ts`).
 */

export interface FileLimits {
  /** Largest single file, in bytes. */
  maxFileBytes: number;
  /** Most bytes all of an agent's current files may hold. */
  maxAgentBytes: number;
  /** Most files an agent may hold. */
  maxAgentFiles: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = { maxFileBytes: 10 * 1024 * 1024, maxAgentBytes: 200 * 1024 * 1024, maxAgentFiles: 10_000 };

/**
 * Who wrote a change: a step of a run, or a person (a restore), and the untrusted sources that had reached the writer
 * (a restore carries the restored version's).
 */
export type FileAuthor = ({ runId: string; stepId: string | null; userId?: undefined } | { userId: string; runId?: undefined; stepId?: undefined }) & {
  taint: readonly string[];
  /** The person whose private chat wrote it (only they, and those who read every chat, may read it). */
  privateTo: string | null;
};

export interface CurrentFile {
  path: string;
  version: number;
  sha256: string;
  size: number;
  runId: string | null;
  taint: string[];
  privateTo: string | null;
  updatedAt: Date;
}

export interface FileChange {
  path: string;
  /** Null deletes the file. */
  content: Buffer | null;
}

export interface WrittenVersion {
  path: string;
  version: number;
  size: number;
  deleted: boolean;
  /** The version it replaced (0 when the path was new). */
  previous: number;
}

export const sha256Of = (content: Buffer) => crypto.createHash("sha256").update(content).digest("hex");

/** A path as the API and the tools take it: normalised, or a 400 with the sentence saying why. */
export function workspacePath(input: string, options: { allowRoot?: boolean } = {}): string {
  try {
    return normalisePath(input, options);
  } catch (error) {
    if (error instanceof PathError) throw new AppError("bad_request:path", error.message, { details: { problem: error.problem } });
    throw error;
  }
}

/** Every current file of an agent (each path's latest version, unless that version deleted it), by path. */
export async function currentFiles(db: Db, agentId: string, folder = ""): Promise<CurrentFile[]> {
  const rows = rowsOf<{ path: string; version: number; sha256: string | null; size: number; run_id: string | null; taint: string[]; private_to: string | null; created_at: string | Date }>(
    await db.execute(sql`
      select distinct on (path) path, version, sha256, size, run_id, taint, private_to, created_at
      from ${agentFileVersions}
      where agent_id = ${agentId} ${folder ? sql`and (path = ${folder} or starts_with(path, ${`${folder}/`}))` : sql``}
      order by path, version desc`),
  );
  return rows
    .filter((r) => r.sha256 !== null)
    .map((r) => ({
      path: r.path,
      version: Number(r.version),
      sha256: r.sha256!,
      size: Number(r.size),
      runId: r.run_id,
      taint: typeof r.taint === "string" ? (JSON.parse(r.taint) as string[]) : r.taint,
      privateTo: r.private_to,
      updatedAt: new Date(r.created_at),
    }));
}

/** One version of a file (the current one by default) with its contents, or null when there is none. */
export async function readFileVersion(db: Db, agentId: string, path: string, version?: number) {
  const [row] = await db
    .select({
      version: agentFileVersions.version,
      sha256: agentFileVersions.sha256,
      size: agentFileVersions.size,
      runId: agentFileVersions.runId,
      taint: agentFileVersions.taint,
      privateTo: agentFileVersions.privateTo,
      workspaceId: agentFileVersions.workspaceId,
      createdAt: agentFileVersions.createdAt,
    })
    .from(agentFileVersions)
    .where(and(eq(agentFileVersions.agentId, agentId), eq(agentFileVersions.path, path), version === undefined ? undefined : eq(agentFileVersions.version, version)))
    .orderBy(desc(agentFileVersions.version))
    .limit(1);
  if (!row || row.sha256 === null) return null;
  const [blob] = await db
    .select({ hex: sql<string>`encode(${fileBlobs.content}, 'hex')` })
    .from(fileBlobs)
    .where(and(eq(fileBlobs.workspaceId, row.workspaceId), eq(fileBlobs.sha256, row.sha256)));
  if (!blob) return null;
  const content = Buffer.from(blob.hex, "hex");
  return { path, version: row.version, size: row.size, sha256: row.sha256, runId: row.runId, taint: row.taint, privateTo: row.privateTo, updatedAt: row.createdAt, content };
}

/** Every version of one path, newest first (deletions included, without contents). */
export async function fileHistory(db: Db, agentId: string, path: string) {
  return db
    .select({
      version: agentFileVersions.version,
      size: agentFileVersions.size,
      deleted: sql<boolean>`${agentFileVersions.sha256} is null`,
      runId: agentFileVersions.runId,
      stepId: agentFileVersions.stepId,
      userId: agentFileVersions.userId,
      privateTo: agentFileVersions.privateTo,
      at: agentFileVersions.createdAt,
    })
    .from(agentFileVersions)
    .where(and(eq(agentFileVersions.agentId, agentId), eq(agentFileVersions.path, path)))
    .orderBy(desc(agentFileVersions.version));
}

/** The entries directly inside `folder`: its files, and the folders that hold files deeper down. */
export function folderEntries(files: CurrentFile[], folder: string) {
  const entries = new Map<string, { path: string; kind: "file" | "folder"; size: number; version: number | null; updatedAt: Date }>();
  for (const file of files) {
    if (!isInside(file.path, folder) || file.path === folder) continue;
    const rest = folder ? file.path.slice(folder.length + 1) : file.path;
    const slash = rest.indexOf("/");
    if (slash < 0) {
      entries.set(file.path, { path: file.path, kind: "file", size: file.size, version: file.version, updatedAt: file.updatedAt });
      continue;
    }
    const sub = folder ? `${folder}/${rest.slice(0, slash)}` : rest.slice(0, slash);
    const known = entries.get(sub);
    if (known) {
      known.size += file.size;
      if (file.updatedAt > known.updatedAt) known.updatedAt = file.updatedAt;
    } else entries.set(sub, { path: sub, kind: "folder", size: file.size, version: null, updatedAt: file.updatedAt });
  }
  return [...entries.values()].sort((a, b) => (a.kind === b.kind ? a.path.localeCompare(b.path) : a.kind === "folder" ? -1 : 1));
}

/**
 * Writes a set of changes to an agent's files as one transaction: each
 * changed path gets its next version, contents are stored once, and the
 * limits are checked against the tree as it will be (a change that leaves a
 * file as it is writes nothing). Writes of one agent are serialised on its
 * row, so versions never collide across instances.
 */
export async function writeFiles(
  db: Db,
  target: { workspaceId: string; agentId: string },
  author: FileAuthor,
  changes: FileChange[],
  limits: FileLimits = DEFAULT_FILE_LIMITS,
): Promise<WrittenVersion[]> {
  for (const change of changes) {
    if (change.content && change.content.length > limits.maxFileBytes) {
      throw new AppError("unprocessable:file_too_large", `${change.path} is ${formatBytes(change.content.length)}; one file may hold at most ${formatBytes(limits.maxFileBytes)}.`, {
        details: { path: change.path, size: change.content.length, limit: limits.maxFileBytes },
      });
    }
  }
  if (changes.length === 0) return [];
  return db.transaction(async (tx) => {
    await tx.select({ id: agents.id }).from(agents).where(and(eq(agents.id, target.agentId), eq(agents.workspaceId, target.workspaceId))).for("update");
    const current = new Map((await currentFiles(tx, target.agentId)).map((f) => [f.path, f]));
    const latest = new Map(
      rowsOf<{ path: string; version: number }>(
        await tx.execute(sql`select path, max(version)::int as version from ${agentFileVersions} where agent_id = ${target.agentId} group by path`),
      ).map((r) => [r.path, Number(r.version)]),
    );
    const planned: { path: string; sha256: string | null; size: number; content: Buffer | null }[] = [];
    const after = new Map([...current].map(([path, f]) => [path, f.size]));
    for (const change of changes) {
      const sha = change.content ? sha256Of(change.content) : null;
      const now = current.get(change.path);
      if (sha === null ? !now : now?.sha256 === sha) continue;
      planned.push({ path: change.path, sha256: sha, size: change.content?.length ?? 0, content: change.content });
      if (change.content) after.set(change.path, change.content.length);
      else after.delete(change.path);
    }
    if (planned.length === 0) return [];
    const bytes = [...after.values()].reduce((sum, size) => sum + size, 0);
    if (after.size > limits.maxAgentFiles || bytes > limits.maxAgentBytes) {
      throw new AppError(
        "unprocessable:workspace_full",
        `The agent's workspace would hold ${after.size} files and ${formatBytes(bytes)}; it may hold at most ${limits.maxAgentFiles} files and ${formatBytes(limits.maxAgentBytes)}.`,
        { details: { files: after.size, bytes, maxFiles: limits.maxAgentFiles, maxBytes: limits.maxAgentBytes } },
      );
    }
    const blobs = new Map(planned.filter((p) => p.content).map((p) => [p.sha256!, p.content!]));
    // Contents travel as hex text: the embedded driver turns a binary parameter into text a byte at a time, which holds
    // the server for seconds on a file of a few megabytes; Buffer's own hex is fast on both drivers.
    for (const [sha, content] of blobs) {
      await tx
        .insert(fileBlobs)
        .values({ workspaceId: target.workspaceId, sha256: sha, size: content.length, content: sql`decode(${content.toString("hex")}, 'hex')` })
        .onConflictDoNothing();
    }
    const written: WrittenVersion[] = planned.map((p) => {
      const previous = latest.get(p.path) ?? 0;
      return { path: p.path, version: previous + 1, size: p.size, deleted: p.content === null, previous: current.get(p.path)?.version ?? 0 };
    });
    await tx.insert(agentFileVersions).values(
      planned.map((p, i) => ({
        workspaceId: target.workspaceId,
        agentId: target.agentId,
        path: p.path,
        version: written[i]!.version,
        sha256: p.sha256,
        size: p.size,
        runId: author.runId ?? null,
        stepId: author.stepId ?? null,
        userId: author.userId ?? null,
        taint: [...new Set(author.taint)],
        privateTo: author.privateTo,
      })),
    );
    return written;
  });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
