import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../lib/db/client";
import { LOCK_FILE, lockDataFolder } from "../../lib/db/folder-lock";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawdeck-lock-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function openFromAnotherProcess(dataDir: string) {
  return spawnSync(process.execPath, ["--import", "tsx", "tests/support/open-folder.ts", dataDir], { encoding: "utf8", timeout: 60_000 });
}

describe("PGlite data folder guard", () => {
  it("refuses a second process while the first holds the folder, naming the holder", async () => {
    const dataDir = path.join(root, "held", "pglite");
    const handle = await openDatabase({ driver: "pglite", dataDir });
    try {
      const second = openFromAnotherProcess(dataDir);
      expect(second.status).toBe(3);
      expect(second.stderr).toContain(`is in use by process ${process.pid}`);
      expect(second.stderr).toContain("CLAWDECK_DATA_DIR");
      expect(second.stdout).not.toContain("opened");
    } finally {
      await handle.close();
    }
    expect(fs.existsSync(path.join(root, "held", LOCK_FILE))).toBe(false);
    const third = openFromAnotherProcess(dataDir);
    expect(third.stderr).toBe("");
    expect(third.stdout).toContain("opened");
  });

  it("takes over a lock left by a process that no longer exists", () => {
    const folder = path.join(root, "stale");
    fs.mkdirSync(folder, { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
    fs.writeFileSync(path.join(folder, LOCK_FILE), JSON.stringify({ pid: dead, host: os.hostname(), command: "old", since: "then" }));
    const release = lockDataFolder(folder);
    expect(JSON.parse(fs.readFileSync(path.join(folder, LOCK_FILE), "utf8")).pid).toBe(process.pid);
    release();
    expect(fs.existsSync(path.join(folder, LOCK_FILE))).toBe(false);
  });

  it("refuses a second opener inside the same process too", () => {
    const folder = path.join(root, "twice");
    const release = lockDataFolder(folder);
    try {
      expect(() => lockDataFolder(folder)).toThrow(/in use by process/);
    } finally {
      release();
    }
  });
});
