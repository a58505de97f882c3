#!/usr/bin/env bash
# Writes device/hot-path.order: the functions a cached `latchkey token` runs, in the order callgrind
# first meets them. device/build-static.sh hands it to lld (--symbol-ordering-file), which lays
# those functions out side by side, so the hot path touches a few pages of the 6 MB of code instead
# of one page per function scattered through it: peak RSS 6.5 -> 3.4 MiB (docs/performance.md).
# Run after device/build-static.sh (it needs the unstripped release binary); regenerate when the
# hot path changes. A name the binary no longer has is skipped by the linker, so a stale list only
# costs memory, never correctness.
# usage: device/hot-path-order.sh        (needs valgrind and python3)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build}
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/latchkey
[ -x "$BIN" ] || { echo "hot-path-order: run device/build-static.sh first ($BIN is missing)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "hot-path-order: valgrind is not installed" >&2; exit 1; }
WORK=$(mktemp -d /tmp/latchkey-order.XXXXXX)
IDP_PID=
cleanup() { [ -n "$IDP_PID" ] && kill "$IDP_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
"${PYTHON:-python3}" "$ROOT/Tests/Harness/scripted_idp.py" --scenario ok --interval 1 --approve-after 1 > "$WORK/port" &
IDP_PID=$!
deadline=$((SECONDS + 30))
until [ -s "$WORK/port" ]; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "hot-path-order: scripted_idp.py printed no port in 30 s" >&2; exit 1; }
  sleep 0.05
done
mkdir -m 700 "$WORK/state"
"$BIN" --state-dir "$WORK/state" login --issuer "http://127.0.0.1:$(head -n1 "$WORK/port")" --client-id order --json > /dev/null
kill "$IDP_PID"; IDP_PID=
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/cg.out" "$BIN" --state-dir "$WORK/state" token > /dev/null 2>&1
# Every function named in the profile, first appearance first; addresses without a name are dropped.
grep -E '^c?fn=\([0-9]+\) ' "$WORK/cg.out" | sed -E "s/^c?fn=\([0-9]+\) //; s/'[0-9]+\$//" | grep -v '^0x' |
  awk '!seen[$0]++' > "$ROOT/device/hot-path.order"
echo "device/hot-path.order: $(wc -l < "$ROOT/device/hot-path.order") functions"
