// First-load JavaScript of every page, from a production build (run `npx next build` first):
//
//   npm run report:js                 the table and a RESULT line
//   npm run report:js -- --limit 250  also exits 1 when a page loads more than 250 kB (gzip)
//
// A page's first load is what the browser fetches before it can hydrate: the app's root scripts
// (`rootMainFiles` of .next/build-manifest.json, the bundler's runtime included) and the chunks of every
// segment the page renders (root layout, nested layouts, the page), which Next lists per segment under
// `entryJSFiles` in the page's client reference manifest. Chunks loaded later (next/dynamic, import())
// are not in those lists. Each chunk is counted once per page, gzipped at level 9 as a server would send it.
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";

const dir = path.resolve(process.env.NEXT_DIST_DIR ?? ".next");
const args = process.argv.slice(2);
const limitAt = args.indexOf("--limit");
const limitKb = limitAt >= 0 ? Number(args[limitAt + 1]) : null;
if (limitAt >= 0 && !(limitKb > 0)) throw new Error("--limit takes a size in kB, such as --limit 250");

const read = (file) => fs.readFileSync(path.join(dir, file), "utf8");
if (!["build-manifest.json", "app-path-routes-manifest.json"].every((f) => fs.existsSync(path.join(dir, f)))) {
  console.error(`No finished production build in ${dir}: run \`npx next build\` first.`);
  process.exit(2);
}

const buildManifest = JSON.parse(read("build-manifest.json"));
const routes = JSON.parse(read("app-path-routes-manifest.json"));
const rootFiles = buildManifest.rootMainFiles ?? [];

const gzipSizes = new Map();
function gzipSize(file) {
  if (!gzipSizes.has(file)) gzipSizes.set(file, zlib.gzipSync(fs.readFileSync(path.join(dir, file)), { level: 9 }).length);
  return gzipSizes.get(file);
}

/** The client reference manifest is a script that assigns `globalThis.__RSC_MANIFEST[entry]`. */
function entryFiles(entry) {
  const file = path.join("server", "app", `${entry}_client-reference-manifest.js`);
  if (!fs.existsSync(path.join(dir, file))) return null;
  const sandbox = { globalThis: {}, self: {} };
  sandbox.globalThis = sandbox;
  sandbox.self = sandbox;
  vm.runInNewContext(read(file), sandbox, { filename: file });
  const manifest = sandbox.__RSC_MANIFEST?.[entry];
  if (!manifest) throw new Error(`${file} has no manifest for ${entry}`);
  return Object.values(manifest.entryJSFiles ?? {}).flat();
}

const kb = (bytes) => bytes / 1000;
const rows = [];
for (const [entry, route] of Object.entries(routes)) {
  if (!entry.endsWith("/page")) continue;
  const files = entryFiles(entry);
  if (!files) continue;
  const chunks = [...new Set([...rootFiles, ...files])].filter((f) => f.endsWith(".js"));
  const gzip = chunks.reduce((sum, f) => sum + gzipSize(f), 0);
  const raw = chunks.reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
  rows.push({ route, chunks: chunks.length, raw, gzip });
}
if (rows.length === 0) {
  console.error(`No app pages found in ${dir}.`);
  process.exit(2);
}
rows.sort((a, b) => b.gzip - a.gzip || a.route.localeCompare(b.route));

const shared = rootFiles.filter((f) => f.endsWith(".js")).reduce((sum, f) => sum + gzipSize(f), 0);
console.log(`First-load JavaScript per page (gzip level 9), from ${path.relative(process.cwd(), dir) || dir}; shared root scripts: ${kb(shared).toFixed(1)} kB\n`);
console.log("| page | chunks | raw kB | gzip kB |");
console.log("| --- | ---: | ---: | ---: |");
for (const r of rows) console.log(`| \`${r.route}\` | ${r.chunks} | ${kb(r.raw).toFixed(1)} | ${kb(r.gzip).toFixed(1)} |`);
const top = rows[0];
console.log(`\nRESULT bench=js pages=${rows.length} max_kb=${kb(top.gzip).toFixed(1)} page=${top.route} shared_kb=${kb(shared).toFixed(1)}`);
if (limitKb !== null && kb(top.gzip) > limitKb) {
  console.error(`${rows.filter((r) => kb(r.gzip) > limitKb).length} page(s) over ${limitKb} kB`);
  process.exit(1);
}
