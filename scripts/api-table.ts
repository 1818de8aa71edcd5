/**
 * The README's API table, made from the route handlers themselves: each row's methods and path (from the route file's
 * place under app/api), body and query fields (from the route's zod schemas), who may call it (the least role of its
 * capability, or its `doc.role`) and what it does (its `doc.summary`).
 *
 *   npm run docs:api              writes the table into README.md, between the api-table markers
 *   npm run docs:api -- --check   exits 1, showing the difference, when README.md's table is not the generated one
 *   npm run docs:api -- --print   prints the table
 *
 * It runs under tsx, whose resolver loads next-auth (which imports `next/server` without an extension); the route
 * files are imported only when the table is made, so the rest of this module loads anywhere.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { $ZodType, $ZodTypes } from "zod/v4/core";
import { capabilities } from "../lib/access/capabilities";
import { roleLabels } from "../lib/access/role-names";
import type { RouteDescription } from "../lib/http/route";

const root = path.resolve(import.meta.dirname, "..");
const apiDir = path.join(root, "app", "api");
export const README = path.join(root, "README.md");
const TABLE_START = "<!-- api-table:start -->";
const TABLE_END = "<!-- api-table:end -->";

/** The methods a route file may export, in the order a row lists them. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** How a row names what a method does, when that method needs another role than the row's first. */
const VERBS: Record<string, string> = { GET: "read", HEAD: "read", POST: "create", PUT: "change", PATCH: "edit", DELETE: "delete", OPTIONS: "ask" };

/** Query keys every route takes, described above the table rather than in each row: `?workspace=` names the workspace. */
const SHARED_QUERY_KEYS = new Set(["workspace"]);

/** One method of one route, with what its handler says of itself. */
export interface Endpoint {
  method: string;
  path: string;
  description: RouteDescription & { doc: NonNullable<RouteDescription["doc"]> };
}

/** Every `route.ts` under app/api, as absolute paths. */
function routeFiles(dir = apiDir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

/** The URL path a route file serves: its folders under app/api, with `[id]` written `{id}`. */
function urlPathOf(file: string): string {
  const folders = path.relative(apiDir, path.dirname(file)).split(path.sep).filter(Boolean);
  return ["/api", ...folders.map((f) => f.replace(/^\[(.+)\]$/, "{$1}"))].join("/");
}

/** Orders paths folder by folder, so a path's sub-paths follow it. */
function comparePaths(a: string, b: string): number {
  const [x, y] = [a.split("/"), b.split("/")];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length - y.length;
}

/** What a handler says of itself: `describeRoute` of lib/http/route.ts. */
type Describe = (handler: unknown) => RouteDescription | undefined;

/** The endpoints a route module exports; a handler without a `doc` is refused, so no route goes undocumented. */
export function endpointsOf(urlPath: string, mod: Record<string, unknown>, describe: Describe): Endpoint[] {
  return METHODS.filter((method) => method in mod).map((method) => {
    const description = describe(mod[method]);
    if (!description?.doc) {
      throw new Error(`${method} ${urlPath} has no doc: give its route() a \`doc: { summary }\`, or wrap a plain handler in documented().`);
    }
    return { method, path: urlPath, description: { ...description, doc: description.doc } };
  });
}

/** Every endpoint under app/api, path by path, each path's methods in the usual order. */
async function loadEndpoints(): Promise<Endpoint[]> {
  const { describeRoute } = await import("../lib/http/route");
  const files = routeFiles().sort((a, b) => comparePaths(urlPathOf(a), urlPathOf(b)));
  const endpoints: Endpoint[] = [];
  for (const file of files) endpoints.push(...endpointsOf(urlPathOf(file), (await import(file)) as Record<string, unknown>, describeRoute));
  return endpoints;
}

/** A schema's definition, past what does not change its shape: optional, nullable, defaults, and pipes (their input). */
function bare(schema: $ZodType): $ZodTypes["_zod"]["def"] {
  const def = (schema as $ZodTypes)._zod.def;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      return bare(def.innerType);
    case "pipe":
      return bare(def.in);
    case "lazy":
      return bare(def.getter());
    default:
      return def;
  }
}

/** Whether an object may leave the key out: zod marks an optional or defaulted schema's input (`optin`). */
const isOptional = (schema: $ZodType) => schema._zod.optin !== undefined;

/** The values of an enum or literal, as `"a"|"b"`, or null for any other schema. */
function choicesOf(schema: $ZodType, quote: (v: unknown) => string = (v) => JSON.stringify(v)): string | null {
  const def = bare(schema);
  if (def.type === "enum") return Object.values(def.entries).map(quote).join("|");
  if (def.type === "literal") return def.values.map(quote).join("|");
  return null;
}

/** A compact picture of what a body accepts: objects as `{key, key?: {…}}`, one picture per branch of a union. */
export function bodyShapes(schema: $ZodType): string[] {
  const def = bare(schema);
  if (def.type === "union") return def.options.flatMap(bodyShapes);
  return [shapeOf(schema, 0)];
}

/** How a field's value is shown after its key: nested objects, arrays of objects, enums and tuples; nothing for the rest. */
function detailOf(schema: $ZodType, depth: number): string | null {
  const def = bare(schema);
  if (depth > 3) return null;
  if (def.type === "object" || def.type === "union") return shapeOf(schema, depth + 1);
  if (def.type === "array") return bare(def.element).type === "object" ? `[${shapeOf(def.element, depth + 1)}]` : null;
  if (def.type === "tuple") return `[${def.items.map((item) => detailOf(item, depth + 1) ?? typeName(item)).join(", ")}]`;
  return choicesOf(schema);
}

/** A scalar's kind, by its string format when it has one (`uuid`), else its type (`string`). */
function typeName(schema: $ZodType): string {
  const def = bare(schema);
  return "format" in def && typeof def.format === "string" ? def.format : def.type;
}

/** One schema as `{a, b?: "x"|"y", c: [{d}]}`; a union as its branches joined by "or". */
function shapeOf(schema: $ZodType, depth: number): string {
  const def = bare(schema);
  if (def.type === "union") return def.options.map((option) => shapeOf(option, depth)).join(" or ");
  if (def.type !== "object") return detailOf(schema, depth) ?? typeName(schema);
  const fields = Object.entries(def.shape).map(([key, field]) => {
    const detail = detailOf(field, depth);
    return `${key}${isOptional(field) ? "?" : ""}${detail ? `: ${detail}` : ""}`;
  });
  return `{${fields.join(", ")}}`;
}

/** A query schema's keys as `?a=&b=x|y` (an enum's values after its key), without the keys every route shares. */
export function queryString(schema: $ZodType): string {
  const def = bare(schema);
  if (def.type !== "object") throw new Error(`A query schema must be an object, not ${def.type}.`);
  const keys = Object.entries(def.shape)
    .filter(([key]) => !SHARED_QUERY_KEYS.has(key))
    .map(([key, field]) => `${key}=${choicesOf(field, String) ?? ""}`);
  return keys.length > 0 ? `?${keys.join("&")}` : "";
}

/** Who may call an endpoint: its doc's words, else the least role of its capability, else what its audience implies. */
function roleOf({ description }: Endpoint): string {
  if (description.doc.role) return description.doc.role;
  if (description.can) return roleLabels[capabilities[description.can]].toLowerCase();
  return { workspace: "member", user: "signed in", public: "none" }[description.audience];
}

/** One row of the table: methods of one path that share who may call them. */
interface Row {
  endpoints: Endpoint[];
  role: string;
}

/**
 * The role of a row whose methods need different least roles: the first method's, then each other role with what it
 * is needed for ("member; manager to change").
 */
function combinedRole(endpoints: Endpoint[]): string {
  const first = roleOf(endpoints[0]!);
  const others = new Map<string, string[]>();
  for (const e of endpoints) if (roleOf(e) !== first) others.set(roleOf(e), [...(others.get(roleOf(e)) ?? []), VERBS[e.method]!]);
  return [first, ...[...others].map(([role, verbs]) => `${role} to ${[...new Set(verbs)].join(" or ")}`)].join("; ");
}

/** Items grouped by a key, groups in the order their first item comes (Node 20 has no `Map.groupBy`). */
function groupBy<T>(items: T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return [...groups.values()];
}

/**
 * The table's rows: the methods of one path share a row when their roles come from their capabilities (the row says
 * which method needs more); a method whose doc gives its own role shares a row only with methods of the same role.
 */
function rowsOf(endpoints: Endpoint[]): Row[] {
  return groupBy(endpoints, (e) => e.path).flatMap((group): Row[] => {
    if (group.every((e) => !e.description.doc.role)) return [{ endpoints: group, role: combinedRole(group) }];
    return groupBy(group, roleOf).map((same) => ({ endpoints: same, role: roleOf(same[0]!) }));
  });
}

/** A table cell: pipes escaped, so that they stay inside the cell (code spans included). */
const cell = (text: string) => text.replaceAll("|", "\\|");

/** The route cell of a row: each method with its path and query, then its body's shapes. */
function routeCell(row: Row): string {
  return row.endpoints
    .map(({ method, path: urlPath, description: { query, body } }) => {
      const call = `\`${method} ${urlPath}${query ? queryString(query) : ""}\``;
      return body ? `${call} ${bodyShapes(body).map((shape) => `\`${shape}\``).join(" or ")}` : call;
    })
    .join(", ");
}

/** The Markdown table of the endpoints: route | role | what. */
export function renderTable(endpoints: Endpoint[]): string {
  const lines = rowsOf(endpoints).map((row) => {
    const what = row.endpoints.map((e) => e.description.doc.summary).join("; ");
    return `| ${cell(routeCell(row))} | ${cell(row.role)} | ${cell(what)} |`;
  });
  return ["| route | role | what |", "| --- | --- | --- |", ...lines].join("\n");
}

/** The API table the routes make today. */
export async function apiTable(): Promise<string> {
  return renderTable(await loadEndpoints());
}

/** Where the table sits in the README: the text between the markers. */
function tableBounds(readme: string): { start: number; end: number } {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md needs ${TABLE_START} and ${TABLE_END} around the API table.`);
  return { start: start + TABLE_START.length, end };
}

/** The API table the README holds. */
export function tableIn(readme: string): string {
  const { start, end } = tableBounds(readme);
  return readme.slice(start, end).trim();
}

/** The README with `table` between the markers. */
export function withTable(readme: string, table: string): string {
  const { start, end } = tableBounds(readme);
  return `${readme.slice(0, start)}\n${table}\n${readme.slice(end)}`;
}

/** The lines that differ between two texts, as a unified diff's body: `-` only in `before`, `+` only in `after`. */
export function lineDiff(before: string, after: string): string {
  const [a, b] = [before.split("\n"), after.split("\n")];
  // Longest common subsequence, from the end, so the walk below goes forward.
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) [i, j] = [i + 1, j + 1];
    else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  return out.join("\n");
}

/** Writes the table into the README, or with `--check` says how the README's differs (exit code 1), or prints it. */
async function main(args: string[]): Promise<number> {
  const table = await apiTable();
  if (args.includes("--print")) {
    process.stdout.write(`${table}\n`);
    return 0;
  }
  const readme = fs.readFileSync(README, "utf8");
  if (args.includes("--check")) {
    if (tableIn(readme) === table) return 0;
    console.error(`README.md's API table is not what the routes say (npm run docs:api rewrites it):\n${lineDiff(tableIn(readme), table)}`);
    return 1;
  }
  const updated = withTable(readme, table);
  if (updated !== readme) fs.writeFileSync(README, updated);
  console.log(updated === readme ? "README.md's API table is up to date." : "README.md's API table rewritten.");
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
