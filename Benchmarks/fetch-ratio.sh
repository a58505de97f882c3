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

"$PYTHON" - "$RUNS" "$WORK" "$BIN" "$URL" "$CURL" <<'PY'
import os, statistics, sys, time
runs, work, binary, url, curl = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
state = f"{work}/state"
cmds = {
    "latchkey fetch URL": [binary, "--state-dir", state, "fetch", url],
    'curl -H "$(latchkey token --format header)" URL':
        ["/bin/sh", "-c", f'exec "$0" -s -H "$("$1" --state-dir "$2" token --format header)" "$3"', curl, binary, state, url],
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
base = statistics.median(times["latchkey fetch URL"])
print(f"{runs} alternating rounds; whole-pipeline wall time in ms")
print("| command | median | p90 | ratio to `fetch` (medians) |")
print("| --- | --- | --- | --- |")
for name, t in times.items():
    t.sort()
    med, p90 = statistics.median(t), t[int(0.9 * len(t))]
    print(f"| `{name}` | {med:.2f} | {p90:.2f} | {med / base:.2f} |")
PY
