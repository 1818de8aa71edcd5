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

# Debian's Chromium for the browser tests, and bubblewrap for agents' computers (the tests run real sandboxes).
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
if [ "${#missing[@]}" -gt 0 ]; then
  step "Installing ${missing[*]}"
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "Missing: ${missing[*]}. Install Debian's packages of those names (or set CHROMIUM_PATH)." >&2
    exit 1
  fi
fi

mkdir -p .test-data/logs
rm -f .test-data/report-*.json .test-data/logs/*.log

# Runs commands side by side (`name` then the command, each a string), each with its output kept in a log that is
# printed whole when the command ends, so the output of one job is never cut into another's. Fails if any failed,
# after every job has ended. Each job's time is a stage of its own in the summary.
together() {
  end_stage
  local names=() pids=() starts=() began=$SECONDS
  while [ "$#" -gt 0 ]; do
    local name=$1 command=$2; shift 2
    printf '\n\033[1m== %s (started) ==\033[0m\n' "$name"
    bash -c "$command" >".test-data/logs/${name//[^A-Za-z0-9]/_}.log" 2>&1 &
    names+=("$name"); pids+=($!); starts+=("$SECONDS")
  done
  local failed=0
  for i in "${!pids[@]}"; do
    local status=0
    wait "${pids[$i]}" || status=$?
    local name=${names[$i]}
    printf '\n\033[1m== %s (%s after %ss) ==\033[0m\n' "$name" "$([ "$status" = 0 ] && echo passed || echo FAILED)" "$((SECONDS - starts[i]))"
    cat ".test-data/logs/${name//[^A-Za-z0-9]/_}.log"
    stages+=("$(printf '%5ss  %s (side by side)' "$((SECONDS - starts[i]))" "$name")")
    [ "$status" = 0 ] || failed=1
  done
  stages+=("$(printf '%5ss  %s' "$((SECONDS - began))" "(wall time of the jobs above)")")
  [ "$failed" = 0 ] || { echo "At least one of the jobs above failed." >&2; exit 1; }
}

vitest_leg() {
  echo "npx vitest run --project $1 --reporter=default --reporter=json --outputFile.json=.test-data/report-$1.json"
}

# Checked once: the production build need not type-check the same code again (next.config.ts reads this).
export CLAWDECK_TYPECHECKED=1
# No telemetry from test builds either.
export NEXT_TELEMETRY_DISABLED="${NEXT_TELEMETRY_DISABLED:-1}"
together "Typecheck" "npx tsc --noEmit" "Lint" "npx eslint --max-warnings 0 ."

step "Unit tests"
$(vitest_leg unit)

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  # Every integration test runs on PostgreSQL. Beside it, on PGlite, the tests where the two drivers differ and a
  # smoke set (see vitest.config.ts), then the production build for the browser tests, which run on PGlite.
  together \
    "Integration tests on PostgreSQL" "$(vitest_leg integration-postgres)" \
    "Integration tests on PGlite, then the production build" "CLAWDECK_PGLITE_TESTS=both-drivers $(vitest_leg integration-pglite) && npx next build"
else
  echo "(TEST_DATABASE_URL is not set: every integration test runs on PGlite, and none on PostgreSQL)"
  step "Integration tests on PGlite"
  $(vitest_leg integration-pglite)
  step "Production build"
  npx next build
fi

step "Browser tests (Chromium)"
PLAYWRIGHT_JSON_OUTPUT_NAME=.test-data/report-e2e.json npx playwright test --reporter=list,json

end_stage
printf '\nAll tests passed in %ss.\nStages:\n' "$((SECONDS - started))"
printf '  %s\n' "${stages[@]}"
node scripts/test-summary.mjs
