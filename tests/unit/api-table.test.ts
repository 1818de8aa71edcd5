import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import type { RouteDescription } from "../../lib/http/route";
import { bodyShapes, endpointsOf, lineDiff, queryString, README, renderTable, tableIn, withTable, type Endpoint } from "../../scripts/api-table";

/**
 * The table the routes make, from the script itself under tsx: the route files load next-auth, whose extensionless
 * `next/server` import only tsx's resolver (not this project's unit runner) accepts.
 */
function generatedTable(): string {
  const script = path.resolve(import.meta.dirname, "../../scripts/api-table.ts");
  return execFileSync(process.execPath, ["--import", "tsx", script, "--print"], { encoding: "utf8" }).trimEnd();
}

/** An endpoint as a route file would give it, for the parts of the table that need no route files. */
function endpoint(method: string, urlPath: string, description: Partial<RouteDescription> & Pick<RouteDescription, "doc">): Endpoint {
  return { method, path: urlPath, description: { audience: "workspace", ...description, doc: description.doc! } };
}

describe("the README's API table", () => {
  const table = generatedTable();

  it("is the table the routes make (npm run docs:api writes it)", () => {
    const readme = tableIn(fs.readFileSync(README, "utf8"));
    if (readme !== table) expect.fail(`README.md's API table is not what the routes say; run npm run docs:api.\n${lineDiff(readme, table)}`);
  });

  it("names each route's methods, path, body fields, query keys, least role and summary", () => {
    expect(table).toContain(
      "| `GET /api/sessions?q=`, `POST /api/sessions` `{agentId}` or `{agentHandle}` | member | your chats (with `q`: those whose title or any message contains the words; only your own, whatever your role); start one (201 `{id}`) |",
    );
    expect(table).toContain(
      "| `GET /api/prices`, `PUT /api/prices` `{prices: [{input, output, cacheRead, cacheWrite, model}], defaultPrice: {input, output, cacheRead, cacheWrite}, compute?: {usdPerSecond}}` | reviewer; manager to change |",
    );
    expect(table).toContain('| `POST /api/invitations` `{email, role: "owner"\\|"manager"\\|"reviewer"\\|"member", replace?}` | manager (owner to invite an owner) |');
    expect(table).toContain("| `GET /api/workspaces`, `POST /api/workspaces` `{name, timeZone?}` | signed in |");
    expect(table).toContain("| `GET /api/health` | none |");
    expect(table.split("\n").length).toBeGreaterThan(40);
  });
});

describe("making the table", () => {
  it("refuses a route without a doc, so that no route goes unlisted", () => {
    expect(() => endpointsOf("/api/things", { GET: async () => new Response() }, () => ({ audience: "workspace" }))).toThrow(/GET \/api\/things has no doc/);
  });

  it("puts one path's methods in a row when their roles come from capabilities, saying which method needs more", () => {
    const list = endpoint("GET", "/api/things", { doc: { summary: "the things" } });
    const change = endpoint("PUT", "/api/things", { doc: { summary: "change them" }, can: "billing.manage", body: z.object({ name: z.string(), note: z.string().optional() }) });
    expect(renderTable([list, change]).split("\n").slice(2)).toEqual([
      "| `GET /api/things`, `PUT /api/things` `{name, note?}` | member; manager to change | the things; change them |",
    ]);
  });

  it("gives a method whose doc names its own role a row with the methods of that role only", () => {
    const read = endpoint("GET", "/api/things/{id}", { doc: { summary: "one thing", role: "its owner, reviewers and up" } });
    const rename = endpoint("PATCH", "/api/things/{id}", { doc: { summary: "rename", role: "its owner" } });
    const forget = endpoint("DELETE", "/api/things/{id}", { doc: { summary: "forget", role: "its owner" } });
    const mine = endpoint("POST", "/api/mine", { audience: "user", doc: { summary: "make one" } });
    expect(renderTable([read, rename, forget, mine]).split("\n").slice(2)).toEqual([
      "| `GET /api/things/{id}` | its owner, reviewers and up | one thing |",
      "| `PATCH /api/things/{id}`, `DELETE /api/things/{id}` | its owner | rename; forget |",
      "| `POST /api/mine` | signed in | make one |",
    ]);
  });

  it("draws bodies and queries of zod and zod/mini schemas alike, defaults counting as optional", () => {
    const body = z.object({ kind: z.enum(["a", "b"]), items: z.array(z.object({ id: z.uuid(), at: z.number().default(0) })), pair: z.tuple([z.uuid(), z.string()]) });
    expect(bodyShapes(body)).toEqual(['{kind: "a"|"b", items: [{id, at?}], pair: [uuid, string]}']);
    expect(bodyShapes(zm.union([zm.object({ token: zm.string() }), zm.object({ name: zm.optional(zm.string()) })]))).toEqual(["{token}", "{name?}"]);
    const query = z.object({ from: z.string().optional(), group: z.enum(["x", "y"]).default("x"), workspace: z.string().optional() }).transform((q) => q);
    expect(queryString(query)).toBe("?from=&group=x|y");
  });

  it("replaces only what is between the markers, and shows what changed", () => {
    const readme = "intro\n<!-- api-table:start -->\nold\n<!-- api-table:end -->\nafter\n";
    expect(withTable(readme, "new")).toBe("intro\n<!-- api-table:start -->\nnew\n<!-- api-table:end -->\nafter\n");
    expect(tableIn(withTable(readme, "new"))).toBe("new");
    expect(lineDiff("a\nb\nc", "a\nx\nc")).toBe("- b\n+ x");
    expect(() => tableIn("no markers")).toThrow(/api-table:start/);
  });
});
