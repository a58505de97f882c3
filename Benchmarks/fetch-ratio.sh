#!/usr/bin/env bash
# The whole pipeline of one authenticated call to a small loopback resource:
#   `latchkey fetch URL`   (one process: read the session, send, print)
# against
#   `curl -H "$(latchkey token --format header)" URL`   (two processes, run by a shell)
# alternating one of each per round (RUNS, default 200), each timed from spawn to exit. Both use
# the cached token (Bearer session, scripted server, /resource). Prints medians, p90 and the ratio.
# usage: Benchmarks/fetch-ratio.sh PATH_TO_LATCHKEY       (a release or static build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:?usage: Benchmarks/fetch-ratio.sh PATH_TO_LATCHKEY}")
RUNS=${RUNS:-200}
PYTHON=${PYTHON:-python3}
CURL=${CURL:-$(command -v curl)}
WORK=$(mktemp -d /tmp/latchkey-fetch-ratio.XXXXXX)
IDP_PID=
cleanup() { [ -n "$IDP_PID" ] && kill "$IDP_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

"$PYTHON" "$ROOT/Tests/Harness/scripted_idp.py" --scenario ok --interval 1 --approve-after 1 > "$WORK/port" &
IDP_PID=$!
for _ in $(seq 1 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(head -n1 "$WORK/port")
mkdir -m 700 "$WORK/state"
"$BIN" --state-dir "$WORK/state" login --issuer "http://127.0.0.1:$PORT" --client-id bench --dpop never --json > "$WORK/login.out"
URL="http://127.0.0.1:$PORT/resource"
# Both must answer the same body before anything is timed.
A=$("$BIN" --state-dir "$WORK/state" fetch "$URL")
B=$("$CURL" -s -H "$("$BIN" --state-dir "$WORK/state" token --format header)" "$URL")
[ "$A" = "$B" ] || { echo "fetch-ratio: outputs differ: $A vs $B" >&2; exit 1; }

"$PYTHON" "$ROOT/Benchmarks/alternate.py" "$RUNS" "whole-pipeline" "$("$PYTHON" -c '
import json, sys
b, state, url, curl = sys.argv[1:5]
print(json.dumps({"latchkey fetch URL": [b, "--state-dir", state, "fetch", url],
                  "curl -H \"$(latchkey token --format header)\" URL":
                      ["/bin/sh", "-c", "exec \"$0\" -s -H \"$(\"$1\" --state-dir \"$2\" token --format header)\" \"$3\"",
                       curl, b, state, url]}))' "$BIN" "$WORK/state" "$URL" "$CURL")"
