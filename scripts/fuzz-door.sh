#!/usr/bin/env bash
# The long mode of the npm API's property suites (tests/ts/door.property.test.mjs, and its core properties
# through the browser door, tests/ts/door-browser.property.test.mjs): runs them again and again,
# each time with new random seeds and FUZZ_RUNS runs per property, until MINUTES have passed or a property
# fails (fast-check then prints the counterexample and the seed to replay it).
#   bash scripts/fuzz-door.sh [MINUTES] [RUNS_PER_ROUND] [ENTRY]     (defaults: 60, 50,000, every entry point)
# ENTRY picks the properties whose names match it (node --test-name-pattern), so that one entry point gets the
# whole budget, e.g. `bash scripts/fuzz-door.sh 60 50000 '^PartialJsonParser'`.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
runs=${2:-50000}
entry=${3:-}
pattern=()
[ -z "$entry" ] || pattern=(--test-name-pattern "$entry")
[ -f dist/node.js ] || bash scripts/build.sh
end=$(( $(date +%s) + minutes * 60 ))
round=0
while [ "$(date +%s)" -lt "$end" ]; do
  round=$((round + 1))
  if ! FUZZ_RUNS=$runs node --test "${pattern[@]}" tests/ts/door.property.test.mjs tests/ts/door-browser.property.test.mjs \
    > /tmp/fuzz-door.$$.log 2>&1; then
    cat /tmp/fuzz-door.$$.log
    echo "fuzz-door: round $round failed" >&2
    exit 1
  fi
  if ! grep -qE '^(#|ℹ) pass [1-9]' /tmp/fuzz-door.$$.log; then
    echo "fuzz-door: no property matches '$entry'" >&2
    exit 1
  fi
  echo "fuzz-door: round $round passed ($runs runs per property${entry:+ matching $entry}) at $(date -u +%H:%M:%S)" >&2
done
rm -f /tmp/fuzz-door.$$.log
echo "fuzz-door: $round rounds in $minutes minutes${entry:+ of the properties matching $entry}, no failure" >&2
