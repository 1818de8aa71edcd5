#!/usr/bin/env bash
# Runs every test: typecheck, lint, unit, integration on PGlite (and on PostgreSQL
# when TEST_DATABASE_URL is set), then the browser tests in Chromium against a
# production build. Installs what the tests need when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's time, printed at the end: where a run's minutes go.
stages=()
stage_label=""
stage_started=$SECONDS
end_stage() {
  if [ -n "$stage_label" ]; then stages+=("$(printf '%5ss  %s' "$((SECONDS - stage_started))" "$stage_label")"); fi
  stage_label=""
}
step() {
  end_stage
  stage_label="$*"
  stage_started=$SECONDS
  printf '\n\033[1m== %s ==\033[0m\n' "$*"
}
started=$SECONDS

if [ ! -x node_modules/.bin/next ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "Installing dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  step "Installing Chromium for the browser tests"
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "Chromium is missing at $CHROMIUM: install Debian's 'chromium' package, or set CHROMIUM_PATH." >&2
    exit 1
  fi
fi

step "Typecheck"
npx tsc --noEmit
# Checked once: the production build below need not type-check the same code again (next.config.ts reads this).
export CLAWDECK_TYPECHECKED=1

step "Lint"
npx eslint --max-warnings 0 .

mkdir -p .test-data
rm -f .test-data/report-*.json
vitest_leg() {
  npx vitest run --project "$1" --reporter=default --reporter=json --outputFile.json=".test-data/report-$1.json"
}

step "Unit tests"
vitest_leg unit

step "Integration tests on PGlite"
vitest_leg integration-pglite

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  step "Integration tests on PostgreSQL"
  vitest_leg integration-postgres
else
  echo "(TEST_DATABASE_URL is not set: skipping the PostgreSQL leg)"
fi

step "Production build"
npx next build

step "Browser tests (Chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME=.test-data/report-e2e.json npx playwright test --reporter=list,json

end_stage
printf '\nAll tests passed in %ss.\nStages:\n' "$((SECONDS - started))"
printf '  %s\n' "${stages[@]}"
node scripts/test-summary.mjs
