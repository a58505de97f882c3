#!/usr/bin/env bash
# Tests/repeat-suites.sh RUNS TARGET...: runs each test target RUNS times in a row (Swift Testing's
# default parallel mode, one `swift test` process per run, as Tests/run-all.sh runs it) over an
# existing build, and prints one line per run: target, run number, result, seconds. Evidence for
# "a CI that cannot flake" (issue 31 §6): exit 0 only when every run of every target passed.
# Env: LATCHKEY_SCRATCH (build folder, default <root>/.build), CI (default true: a missing
# requirement fails).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build}
export CI=${CI:-true}
export LATCHKEY_BIN=${LATCHKEY_BIN:-$SCRATCH/debug/latchkey}
export LATCHKEY_IT_PYTHON=${LATCHKEY_IT_PYTHON:-$(command -v python3)}
[ $# -ge 2 ] || { echo "usage: $0 RUNS TARGET..." >&2; exit 2; }
runs=$1; shift
case $runs in ''|*[!0-9]*) echo "RUNS must be a number" >&2; exit 2 ;; esac
LOGS=$(mktemp -d /tmp/latchkey-repeat.XXXXXX)
failed=0
for target in "$@"; do
  total=0
  for i in $(seq 1 "$runs"); do
    started=$(date +%s)
    swift test --skip-build --scratch-path "$SCRATCH" --filter "^$target\\." > "$LOGS/$target-$i.log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - started )); total=$(( total + secs ))
    summary=$(grep -aE "Test run with [0-9]+ tests?" "$LOGS/$target-$i.log" | tail -1)
    if [ "$rc" = 0 ]; then
      echo "$target run $i/$runs: passed in ${secs}s ($summary)"
    else
      failed=$(( failed + 1 ))
      echo "$target run $i/$runs: FAILED (exit $rc) in ${secs}s; log $LOGS/$target-$i.log"
      grep -aE "✘|error:|failed" "$LOGS/$target-$i.log" | head -20 | sed 's/^/    /'
    fi
  done
  echo "$target: $runs runs, ${total}s in all"
done
[ "$failed" = 0 ] && { echo "all runs passed"; rm -rf "$LOGS"; }
[ "$failed" = 0 ]
