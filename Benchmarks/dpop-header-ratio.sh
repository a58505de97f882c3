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

"$PYTHON" - "$RUNS" "$WORK" "$BIN" "$PORT" <<'PY'
import os, statistics, sys, time
runs, work, binary, port = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {
    "token": [binary, "--state-dir", f"{work}/state", "token"],
    "token --format header --method GET --url": [binary, "--state-dir", f"{work}/state", "token", "--format", "header",
                                                 "--method", "GET", "--url", f"http://127.0.0.1:{port}/resource"],
}
devnull = os.open(os.devnull, os.O_WRONLY)
def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed")
    return (time.perf_counter_ns() - t0) / 1e6
times = {k: [] for k in cmds}
for _ in range(runs):
    for name, argv in cmds.items():
        times[name].append(once(argv))
base = statistics.median(times["token"])
print(f"{runs} alternating rounds; whole-process wall time in ms")
print("| command | median | p90 | ratio to `token` (medians) |")
print("| --- | --- | --- | --- |")
for name, t in times.items():
    t.sort()
    med, p90 = statistics.median(t), t[int(0.9 * len(t))]
    print(f"| `{name}` | {med:.2f} | {p90:.2f} | {med / base:.2f} |")
PY
