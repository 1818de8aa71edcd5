import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const LOCK_FILE = "clawdeck.lock";

interface LockOwner {
  pid: number;
  host: string;
  command: string;
  since: string;
}

export class DataFolderInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly owner: LockOwner,
  ) {
    super(
      `The data folder ${folder} is in use by process ${owner.pid} (${owner.command}, since ${owner.since}). ` +
        `PGlite allows one process per folder: stop that process, or point CLAWDECK_DATA_DIR at another folder.`,
    );
    this.name = "DataFolderInUseError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockOwner>;
    if (typeof parsed.pid !== "number") return undefined;
    return { pid: parsed.pid, host: String(parsed.host ?? ""), command: String(parsed.command ?? "?"), since: String(parsed.since ?? "?") };
  } catch {
    return undefined;
  }
}

/**
 * Claims a PGlite data folder for this process. PGlite has no lock between
 * processes, and two writers on one folder silently lose data, so a second
 * opener is refused with the holder named. A lock left by a dead process is
 * taken over. Returns the release function.
 */
export function lockDataFolder(folder: string): () => void {
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, LOCK_FILE);
  const me: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    command: process.argv.slice(1, 3).map((a) => path.basename(a)).join(" ") || "node",
    since: new Date().toISOString(),
  };

  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: "wx", mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = readOwner(file);
    if (owner && owner.pid !== process.pid && owner.host === me.host && isAlive(owner.pid)) {
      throw new DataFolderInUseError(folder, owner);
    }
    if (owner && owner.pid === process.pid) {
      throw new DataFolderInUseError(folder, owner);
    }
    // Stale (dead owner, unreadable, or another host's leftover): remove and retry atomically.
    fs.rmSync(file, { force: true });
  }
  throw new Error(`Could not lock the data folder ${folder}`);
}
