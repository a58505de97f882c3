#!/usr/bin/env bash
# `latchkey token` with a cached token, as a ratio to floors measured in the same run (issue 13):
#   - floor-c:     a static C program that reads a 2 KiB file and prints 40 bytes (the work `token`
#                  must do, with nothing else);
#   - hello-swift: a static Swift program using only the stdlib (the Swift runtime's own start-up);
#   - latchkey token, machine key source, profile signed in against the scripted server.
# The three are run alternately, one of each per round (RUNS rounds, default 300), so load changes
# hit all three alike; each run is timed from spawn to exit. Prints medians, p90, ratios, peak RSS, and
# the instructions each executes once (valgrind --tool=callgrind), a measure the load does not move.
# usage: Benchmarks/token-ratio.sh PATH_TO_STATIC_LATCHKEY      (device/build-static.sh makes one)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:?usage: Benchmarks/token-ratio.sh PATH_TO_STATIC_LATCHKEY}")
RUNS=${RUNS:-300}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/latchkey-token-ratio.XXXXXX)
IDP_PID=
cleanup() { [ -n "$IDP_PID" ] && kill "$IDP_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

head -c 2048 /dev/urandom | base64 -w0 | head -c 2048 > "$WORK/payload"
cat > "$WORK/floor.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv) {
    char buf[4096];
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) return 1;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < 40) return 1;
    buf[39] = '\n';
    return write(1, buf, 40) == 40 ? 0 : 1;
}
C
gcc -static -O2 -o "$WORK/floor-c" "$WORK/floor.c" && strip "$WORK/floor-c"
printf 'print("hello")\n' > "$WORK/hello.swift"
swiftc -O -static-executable -o "$WORK/hello-swift" "$WORK/hello.swift" 2>/dev/null && strip "$WORK/hello-swift"

"$PYTHON" "$ROOT/Tests/Harness/scripted_idp.py" --scenario ok --interval 1 --approve-after 1 > "$WORK/port" &
IDP_PID=$!
for _ in $(seq 1 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(head -n1 "$WORK/port")
mkdir -m 700 "$WORK/state"
"$BIN" --state-dir "$WORK/state" login --issuer "http://127.0.0.1:$PORT" --client-id bench --json > "$WORK/login.out"
grep -q '"event":"authorized"' "$WORK/login.out" || { echo "token-ratio: login failed" >&2; exit 1; }
kill "$IDP_PID"; IDP_PID=   # from here on `token` must not need the network

"$PYTHON" - "$RUNS" "$WORK" "$BIN" <<'PY'
import os, statistics, subprocess, sys, time
runs, work, binary = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cmds = {
    "floor-c": [f"{work}/floor-c", f"{work}/payload"],
    "hello-swift": [f"{work}/hello-swift"],
    "latchkey token": [binary, "--state-dir", f"{work}/state", "token"],
}
devnull = os.open(os.devnull, os.O_WRONLY)
def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status = os.waitpid(pid, 0)
    dt = time.perf_counter_ns() - t0
    if status != 0: raise SystemExit(f"{argv} exited {status}")
    return dt / 1e6
for argv in cmds.values():
    for _ in range(20): once(argv)   # warm-up
samples = {k: [] for k in cmds}
for _ in range(runs):
    for k, argv in cmds.items(): samples[k].append(once(argv))
def rss(argv):
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, capture_output=True, text=True)
    return max(int(x) for x in out.stderr.split() if x.isdigit())
def instructions(argv):
    # Instructions executed (valgrind's callgrind, Debian's valgrind): unlike time, this does not
    # move with the machine's load. "-" when valgrind is not installed.
    try:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
                             capture_output=True, text=True)
    except FileNotFoundError:
        return "-"
    for line in out.stderr.splitlines():
        if "Collected :" in line:
            return f"{int(line.split()[-1]):,}"
    return "-"
floor = statistics.median(samples["floor-c"])
hello = statistics.median(samples["hello-swift"])
print(f"runs: {runs} rounds, alternating; load average {open('/proc/loadavg').read().split()[:3]}")
print("| program | median | p90 | ratio to floor-c (median) | ratio to hello-swift | peak RSS | instructions |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for k, v in samples.items():
    v = sorted(v)
    med, p90 = statistics.median(v), v[int(len(v) * 0.9)]
    peak = max(rss(cmds[k]) for _ in range(10))
    print(f"| {k} | {med:.3f} ms | {p90:.3f} ms | {med / floor:.2f}× | {med / hello:.2f}× | {peak / 1024:.1f} MiB "
          f"| {instructions(cmds[k])} |")
PY
