#!/usr/bin/env bash
# What `pnpm test` runs: every package's tests through turbo (three packages at a time, all of them even
# when one fails; extra arguments go to turbo, e.g. `pnpm test --filter @debug-gym/core`), then one
# verdict from scripts/test-summary.mjs, which reads turbo's run summary: a package whose run failed
# without a failed test (global set-up, collection, no test files, coverage thresholds) fails it by name.
# `--e2e` first (what `pnpm test:e2e` passes): the end-to-end tier instead (every package's test/e2e/,
# soak and sweep tests too slow for the everyday command; `.ci/run` runs both).
# DEBUG_GYM_BUILD_TYPES=0: the packages the tests depend on are built without declaration files (tests
# run the JavaScript; turbo keys the build cache on it, so a later `pnpm build` still writes them).
set -uo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
task=test
concurrency=3
if [ "${1:-}" = "--e2e" ]; then
  shift
  # Sandboxes at full size and pytest sweeps: two packages at a time on the 2 cores this is sized for.
  task=test:e2e
  concurrency=2
fi
start=$(node -p 'Date.now()')
DEBUG_GYM_BUILD_TYPES=0 turbo run "$task" --concurrency=$concurrency --continue --summarize "$@"
status=$?
exec node scripts/test-summary.mjs --task "$task" --since "$start" --turbo-exit "$status"
