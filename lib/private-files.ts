import fs from "node:fs";
import path from "node:path";

/**
 * The data folder holds the embedded database (its WAL carries password
 * hashes and encrypted credentials) and the generated secrets: nobody but
 * the server's own user may read it. Folders are 0700, files 0600.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the folder (and missing parents) if needed and makes it 0700, whatever it was before. */
export function ensurePrivateFolder(folder: string): void {
  fs.mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(folder, PRIVATE_DIR_MODE);
}

/**
 * Makes every folder under `root` (itself included) 0700 and every file
 * 0600: fixes folders made by older versions or copied in with loose modes.
 * Symbolic links are left alone (their target may be anyone's). Returns
 * how many entries were changed.
 */
export function makeTreePrivate(root: string): number {
  let changed = 0;
  const visit = (entry: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch (error) {
      // A file the database removed while we walked.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    if (stat.isSymbolicLink()) return;
    const want = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((stat.mode & 0o7777) !== want) {
      fs.chmodSync(entry, want);
      changed += 1;
    }
    if (stat.isDirectory()) for (const child of fs.readdirSync(entry)) visit(path.join(entry, child));
  };
  visit(root);
  return changed;
}

let tightened = 0;
let savedUmask: number | undefined;

/**
 * Runs `work` with the process umask at 077, so files created meanwhile
 * (PGlite's start-up writes) are private from their first byte. The umask
 * is process-wide: anything else the server creates during those seconds is
 * private too, which is harmless. Overlapping calls share one change. In a
 * worker thread, where the umask cannot be set, `work` runs unchanged and
 * only `makeTreePrivate` afterwards protects the files.
 */
export async function withPrivateUmask<T>(work: () => Promise<T>): Promise<T> {
  let entered = false;
  try {
    if (tightened === 0) savedUmask = process.umask(0o077);
    tightened += 1;
    entered = true;
  } catch {
    // ERR_WORKER_UNSUPPORTED_OPERATION
  }
  try {
    return await work();
  } finally {
    if (entered && --tightened === 0 && savedUmask !== undefined) {
      process.umask(savedUmask);
      savedUmask = undefined;
    }
  }
}
