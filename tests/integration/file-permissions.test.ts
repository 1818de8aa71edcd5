import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../../lib/db/client";
import { LOCK_FILE } from "../../lib/db/folder-lock";
import { parseEnv } from "../../lib/env";
import { loadSecrets } from "../../lib/secrets";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawdeck-modes-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Every entry under a folder whose mode is not 0700 (folders) or 0600 (files), as "mode path". */
function loose(folder: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    const mode = stat.mode & 0o777;
    if (mode !== (stat.isDirectory() ? 0o700 : 0o600)) found.push(`${mode.toString(8)} ${path.relative(folder, entry) || "."}`);
    if (stat.isDirectory()) for (const child of fs.readdirSync(entry)) visit(path.join(entry, child));
  };
  visit(folder);
  return found;
}

function count(folder: string): { dirs: number; files: number } {
  const total = { dirs: 0, files: 0 };
  const visit = (entry: string) => {
    if (fs.statSync(entry).isDirectory()) {
      total.dirs += 1;
      for (const child of fs.readdirSync(entry)) visit(path.join(entry, child));
    } else total.files += 1;
  };
  visit(folder);
  return total;
}

async function makePgliteFolder(folder: string): Promise<string> {
  const handle = await openDatabase({ driver: "pglite", dataDir: path.join(folder, "pglite") });
  await handle.db.execute(sql`create table notes (body text)`);
  await handle.db.execute(sql`insert into notes select 'x' from generate_series(1, 1000)`);
  await handle.close();
  return folder;
}

describe("the data folder is private to the server's user", () => {
  it("a fresh PGlite folder: every folder is 0700 and every file 0600, while open and after closing", async () => {
    const dataFolder = path.join(root, "fresh");
    const handle = await openDatabase({ driver: "pglite", dataDir: path.join(dataFolder, "pglite") });
    try {
      await handle.db.execute(sql`create table notes (body text)`);
      await handle.db.execute(sql`insert into notes select 'x' from generate_series(1, 1000)`);
      await handle.db.execute(sql`checkpoint`);
      const { dirs, files } = count(dataFolder);
      expect(dirs).toBeGreaterThan(10);
      expect(files).toBeGreaterThan(500);
      expect(fs.existsSync(path.join(dataFolder, LOCK_FILE))).toBe(true);
      expect(loose(dataFolder)).toEqual([]);
    } finally {
      await handle.close();
    }
    expect(loose(dataFolder)).toEqual([]);
  });

  it("an existing folder with 0666 files and 0755 folders is made private when it is opened", async () => {
    const dataFolder = path.join(root, "existing");
    // The PGlite leg hands out a migrated template; the PostgreSQL leg has none, so make a folder here.
    const template = inject("pgliteTemplate") ?? (await makePgliteFolder(path.join(root, "template")));
    fs.cpSync(template, dataFolder, { recursive: true, filter: (src) => path.basename(src) !== LOCK_FILE });
    const loosen = (entry: string) => {
      const isDir = fs.statSync(entry).isDirectory();
      fs.chmodSync(entry, isDir ? 0o755 : 0o666);
      if (isDir) for (const child of fs.readdirSync(entry)) loosen(path.join(entry, child));
    };
    loosen(dataFolder);
    fs.writeFileSync(path.join(dataFolder, "secrets.json"), "{}", { mode: 0o644 });
    fs.chmodSync(path.join(dataFolder, "secrets.json"), 0o644);
    expect(loose(dataFolder).length).toBeGreaterThan(500);

    const handle = await openDatabase({ driver: "pglite", dataDir: path.join(dataFolder, "pglite") });
    await handle.close();
    expect(loose(dataFolder)).toEqual([]);
  });

  it("generated secrets are written 0600 in a 0700 folder, and an existing 0644 secrets file is fixed when read", () => {
    const folder = path.join(root, "secrets");
    const env = parseEnv({ CLAWDECK_DATA_DIR: folder, NODE_ENV: "production" });
    const first = loadSecrets(env);
    expect(loose(folder)).toEqual([]);

    fs.chmodSync(path.join(folder, "secrets.json"), 0o644);
    fs.chmodSync(folder, 0o755);
    const again = loadSecrets(env);
    expect(again.authSecret).toBe(first.authSecret);
    expect(loose(folder)).toEqual([]);
  });
});
