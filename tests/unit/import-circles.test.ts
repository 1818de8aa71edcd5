import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const lib = path.resolve("lib");

/** Every TypeScript file under `lib/`. */
function sources(dir = lib): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : full.endsWith(".ts") ? [full] : [];
  });
}

/** The folder of `lib/` a file is in; files directly in `lib/` are shared helpers that any folder may use. */
const folderOf = (file: string) => {
  const parts = path.relative(lib, file).split(path.sep);
  return parts.length > 1 ? parts[0]! : null;
};

/**
 * Which folders of `lib/` import which, by the imports that load code (an `import type` carries no code and no
 * order of loading), each edge with the first import that makes it.
 */
function folderEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sources()) {
    const from = folderOf(file);
    if (!from) continue;
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(/^(import|export)(?!\s+type\b)[^;]*?from\s+"(\.[^"]+)"/gm)) {
      const to = folderOf(path.resolve(path.dirname(file), `${m[2]}.ts`));
      if (!to || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${path.relative(lib, file)} → ${m[2]}`);
      edges.set(from, out);
    }
  }
  return edges;
}

describe("the folders of lib/ depend one way", () => {
  it("has no import circle between folders: each folder can be read, tested and moved without the ones that use it", () => {
    const edges = folderEdges();
    const circles: string[] = [];
    const visit = (folder: string, trail: string[]) => {
      if (trail.includes(folder)) {
        const loop = [...trail.slice(trail.indexOf(folder)), folder];
        circles.push(loop.map((f, i) => (i + 1 < loop.length ? `${f} (${edges.get(f)!.get(loop[i + 1]!)})` : f)).join(" → "));
        return;
      }
      for (const next of edges.get(folder)?.keys() ?? []) visit(next, [...trail, folder]);
    };
    for (const folder of edges.keys()) visit(folder, []);
    expect(circles).toEqual([]);
    // The edges this guards are real: the runtime uses the policy, the feed and the journal, never the other way.
    expect([...(edges.get("runtime")?.keys() ?? [])]).toEqual(expect.arrayContaining(["safety", "feed", "journal"]));
  });
});
