#!/usr/bin/env bash
# Whole-process time of `latchkey token --format header --method GET --url …` for a DPoP-bound
# session (reads the two files, then makes a proof: DRBG seed, P-256 sign) against plain
# `latchkey token` on the same session, alternating one of each per round (RUNS, default 300),
# each timed from spawn to exit. Prints medians, p90 and the ratio. The server is stopped before
# timing: both must work without the network.
# usage: Benchmarks/dpop-header-ratio.sh PATH_TO_LATCHKEY       (a release or static build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:?usage: Benchmarks/dpop-header-ratio.sh PATH_TO_LATCHKEY}")
RUNS=${RUNS:-300}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/latchkey-dpop-ratio.XXXXXX)
IDP_PID=
cleanup() { [ -n "$IDP_PID" ] && kill "$IDP_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

"$PYTHON" "$ROOT/Tests/Harness/scripted_idp.py" --scenario dpop --interval 1 --approve-after 1 > "$WORK/port" &
IDP_PID=$!
for _ in $(seq 1 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(head -n1 "$WORK/port")
mkdir -m 700 "$WORK/state"
"$BIN" --state-dir "$WORK/state" login --issuer "http://127.0.0.1:$PORT" --client-id bench --json > "$WORK/login.out"
grep -q '"token_binding":"dpop"' "$WORK/login.out" || { echo "dpop-header-ratio: no DPoP login" >&2; exit 1; }
kill "$IDP_PID"; IDP_PID=

STATE="$WORK/state"
"$PYTHON" "$ROOT/Benchmarks/alternate.py" "$RUNS" "whole-process" "$("$PYTHON" -c '
import json, sys
b, s, port = sys.argv[1:4]
print(json.dumps({"token": [b, "--state-dir", s, "token"],
                  "token --format header --method GET --url": [b, "--state-dir", s, "token", "--format", "header",
                      "--method", "GET", "--url", f"http://127.0.0.1:{port}/resource"]}))' "$BIN" "$STATE" "$PORT")"
