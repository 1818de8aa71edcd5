// Prints the test counts of each leg from the runners' JSON reports, and one closing line.
import fs from "node:fs";

const legs = [];
for (const [label, file] of [
  ["unit", ".test-data/report-unit.json"],
  ["integration (PGlite)", ".test-data/report-integration-pglite.json"],
  ["integration (PostgreSQL)", ".test-data/report-integration-postgres.json"],
]) {
  if (!fs.existsSync(file)) continue;
  const r = JSON.parse(fs.readFileSync(file, "utf8"));
  legs.push({ label, passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0), skipped: r.numPendingTests + r.numTodoTests });
}
const e2eFile = ".test-data/report-e2e.json";
if (fs.existsSync(e2eFile)) {
  const s = JSON.parse(fs.readFileSync(e2eFile, "utf8")).stats;
  // A test that failed once and passed on its retry (a busy machine) is counted as passed and named as retried.
  legs.push({ label: "browser (Chromium)", passed: s.expected + s.flaky, failed: s.unexpected, skipped: s.skipped, retried: s.flaky });
}
const total = { passed: 0, failed: 0, skipped: 0 };
console.log("\nTest legs:");
for (const leg of legs) {
  console.log(`  ${leg.label.padEnd(26)} ${leg.passed} passed, ${leg.failed} failed${leg.skipped ? `, ${leg.skipped} skipped` : ""}${leg.retried ? ` (${leg.retried} passed only on a retry: listed as flaky above)` : ""}`);
  total.passed += leg.passed;
  total.failed += leg.failed;
  total.skipped += leg.skipped;
}
console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}`);
process.exit(total.failed > 0 || total.passed === 0 ? 1 : 0);
