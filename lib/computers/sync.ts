import fs from "node:fs";
import path from "node:path";
import type { Db } from "../db/client";
import { currentFiles, readFileVersion, sha256Of, writeFiles, type CurrentFile, type FileAuthor, type FileLimits, type WrittenVersion } from "./files";
import { normalisePath, PathError } from "./paths";
import type { Sandbox } from "./engine";

/**
 * The agent's folder on this machine is a copy of its files in the
 * database, made current before each command (`materialise`) and read back
 * after it (`writeBack`): what the command changed becomes new versions,
 * what it removed is deleted. A manifest beside the folder remembers which
 * version each copied file is, so an unchanged file is neither copied nor
 * read again. Nothing but regular files and folders is kept: a link, a pipe
 * or a device the command made is removed before the next copy and never
 * stored, so no path of the database ever leads out of the workspace.
 *
 * No command of the agent runs while its folder is copied or read (the
 * caller holds the agent's lock, and a command's processes end with it).
 */

interface ManifestEntry {
  version: number;
  sha256: string;
  size: number;
  mtimeMs: number;
}
type Manifest = Record<string, ManifestEntry>;

const manifestFile = (sandbox: Sandbox) => path.join(path.dirname(sandbox.workspaceDir), "manifest.json");

function readManifest(sandbox: Sandbox): Manifest {
  try {
    return JSON.parse(fs.readFileSync(manifestFile(sandbox), "utf8")) as Manifest;
  } catch {
    return {};
  }
}

function saveManifest(sandbox: Sandbox, manifest: Manifest) {
  fs.writeFileSync(manifestFile(sandbox), JSON.stringify(manifest), { mode: 0o600 });
}

interface DiskEntry {
  /** Workspace-relative path. */
  path: string;
  kind: "file" | "folder" | "other";
  size: number;
  mtimeMs: number;
}

/** Every entry under the workspace folder, without following links; folders before what they hold. */
function walk(root: string): DiskEntry[] {
  const found: DiskEntry[] = [];
  const pending = [""];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      const stat = fs.lstatSync(path.join(root, child));
      if (stat.isDirectory()) {
        found.push({ path: child, kind: "folder", size: 0, mtimeMs: stat.mtimeMs });
        pending.push(child);
      } else found.push({ path: child, kind: stat.isFile() ? "file" : "other", size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  return found;
}

/** Reads a regular file without following a link at its end (the folders above it were checked by the walk). */
function readRegular(file: string): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Makes the agent's folder hold exactly its current files; returns them. */
export async function materialise(db: Db, sandbox: Sandbox): Promise<CurrentFile[]> {
  const root = sandbox.workspaceDir;
  const manifest = readManifest(sandbox);
  const files = await currentFiles(db, sandbox.owner.agentId);
  const wanted = new Map(files.map((f) => [f.path, f]));
  // Remove what is not a current file: anything but files and folders first (a link must never be written through).
  const onDisk = walk(root);
  for (const entry of onDisk) {
    if (entry.kind === "other" || (entry.kind === "file" && !wanted.has(entry.path))) fs.rmSync(path.join(root, entry.path), { force: true, recursive: true });
  }
  const folders = new Set(onDisk.filter((e) => e.kind === "folder").map((e) => e.path));
  const next: Manifest = {};
  for (const file of files) {
    const full = path.join(root, file.path);
    const known = manifest[file.path];
    const stat = fs.lstatSync(full, { throwIfNoEntry: false });
    if (known && known.sha256 === file.sha256 && stat?.isFile() && stat.size === known.size && stat.mtimeMs === known.mtimeMs) {
      next[file.path] = known;
      continue;
    }
    // A folder where a file belongs (or the other way round) gives way to the database's tree.
    const parts = file.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      const at = fs.lstatSync(path.join(root, folder), { throwIfNoEntry: false });
      if (at && !at.isDirectory()) fs.rmSync(path.join(root, folder), { force: true });
      if (!at?.isDirectory()) fs.mkdirSync(path.join(root, folder), { recursive: true, mode: 0o755 });
      folders.add(folder);
    }
    if (stat?.isDirectory()) fs.rmSync(full, { recursive: true, force: true });
    const version = await readFileVersion(db, sandbox.owner.agentId, file.path, file.version);
    if (!version) continue;
    fs.writeFileSync(full, version.content, { mode: 0o644, flag: "w" });
    const written = fs.lstatSync(full);
    next[file.path] = { version: file.version, sha256: file.sha256, size: written.size, mtimeMs: written.mtimeMs };
  }
  saveManifest(sandbox, next);
  return files;
}

export interface WriteBack {
  written: (WrittenVersion & { before: Buffer | null; after: Buffer | null })[];
  /** Entries the command made that are not kept: links, pipes, devices, and names that cannot be paths. */
  ignored: string[];
  /** Files larger than one file may be: left out, named here. */
  tooLarge: string[];
}

/** Reads back what a command changed in the agent's folder and stores it as new versions (or deletions). */
export async function writeBack(db: Db, sandbox: Sandbox, author: FileAuthor, limits: FileLimits): Promise<WriteBack> {
  const root = sandbox.workspaceDir;
  const manifest = readManifest(sandbox);
  const ignored: string[] = [];
  const tooLarge: string[] = [];
  const changes: { path: string; content: Buffer | null; before: Buffer | null }[] = [];
  const seen = new Set<string>();
  const stamps = new Map<string, { size: number; mtimeMs: number }>();
  for (const entry of walk(root)) {
    if (entry.kind === "folder") continue;
    let clean: string;
    try {
      clean = normalisePath(entry.path);
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      ignored.push(entry.path);
      continue;
    }
    if (entry.kind === "other" || clean !== entry.path) {
      ignored.push(entry.path);
      continue;
    }
    seen.add(entry.path);
    const known = manifest[entry.path];
    if (known && known.size === entry.size && known.mtimeMs === entry.mtimeMs) continue;
    if (entry.size > limits.maxFileBytes) {
      tooLarge.push(entry.path);
      continue;
    }
    const content = readRegular(path.join(root, entry.path));
    stamps.set(entry.path, { size: entry.size, mtimeMs: entry.mtimeMs });
    if (known && sha256Of(content) === known.sha256) {
      manifest[entry.path] = { ...known, mtimeMs: entry.mtimeMs };
      continue;
    }
    changes.push({ path: entry.path, content, before: known ? await previousContent(db, sandbox, entry.path, known.version) : null });
  }
  for (const [file, known] of Object.entries(manifest)) {
    if (!seen.has(file)) changes.push({ path: file, content: null, before: await previousContent(db, sandbox, file, known.version) });
  }
  const written = await writeFiles(db, sandbox.owner, author, changes, limits);
  const byPath = new Map(changes.map((c) => [c.path, c]));
  for (const version of written) {
    const change = byPath.get(version.path)!;
    if (version.deleted) delete manifest[version.path];
    else {
      const stamp = stamps.get(version.path)!;
      manifest[version.path] = { version: version.version, sha256: sha256Of(change.content!), size: stamp.size, mtimeMs: stamp.mtimeMs };
    }
  }
  saveManifest(sandbox, manifest);
  return { written: written.map((w) => ({ ...w, before: byPath.get(w.path)!.before, after: byPath.get(w.path)!.content })), ignored, tooLarge };
}

async function previousContent(db: Db, sandbox: Sandbox, file: string, version: number): Promise<Buffer | null> {
  return (await readFileVersion(db, sandbox.owner.agentId, file, version))?.content ?? null;
}
