#!/usr/bin/env bash
# Whole-process benchmarks of the `latchkey` command line against the targets in
# ../shared/spec/overview.md "Performance targets" (measurements, not timed tests):
#   - `latchkey token` with a valid cached token: wall time (hyperfine, no shell) and peak RSS;
#     next to `--version` and a static C `int main(){return 0;}` (the exec + exit floor);
#   - peak RSS of a whole device `login` against the scripted server;
#   - device-flow polling precision from the scripted server's JSON-lines log;
#   - 32 concurrent `token` processes at expiry -> number of refresh requests;
#   - static binary size and sha256.
# Prints a markdown table (and the raw figures above it).
# usage: Benchmarks/cli-bench.sh [PATH_TO_STATIC_LATCHKEY]
#   without a path it builds one with device/build-static.sh (LATCHKEY_SCRATCH, default .build-perf)
# env: RUNS (hyperfine runs, default 300), WARMUP (default 20), CONTENDERS (default 32)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
RUNS=${RUNS:-300}
WARMUP=${WARMUP:-20}
CONTENDERS=${CONTENDERS:-32}
PYTHON=${PYTHON:-python3}

need() { command -v "$1" >/dev/null 2>&1; }
# GNU time gives the peak RSS (%M, KiB); install it once if missing (idempotent).
if [ ! -x /usr/bin/time ]; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq time >/dev/null; else sudo apt-get install -y -qq time >/dev/null; fi
fi
need hyperfine || { echo "cli-bench: hyperfine is required" >&2; exit 1; }
"$PYTHON" -c 'import cryptography' 2>/dev/null || { echo "cli-bench: python3 module cryptography is required" >&2; exit 1; }

if [ $# -ge 1 ]; then
  BIN=$(realpath "$1")
else
  export LATCHKEY_SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build-perf}
  device/build-static.sh >&2
  BIN=$LATCHKEY_SCRATCH/latchkey-static
fi
[ -x "$BIN" ] || { echo "cli-bench: $BIN is not executable" >&2; exit 1; }

WORK=$(mktemp -d /tmp/latchkey-cli-bench.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts the scripted server with the given arguments; sets PORT; its log is $WORK/$1.jsonl.
start_idp() {
  local name=$1; shift
  "$PYTHON" Tests/Harness/scripted_idp.py --scenario ok --log "$WORK/$name.jsonl" "$@" > "$WORK/$name.port" &
  pids+=($!)
  for _ in $(seq 1 200); do [ -s "$WORK/$name.port" ] && break; sleep 0.05; done
  PORT=$(head -n1 "$WORK/$name.port")
  [ -n "$PORT" ] || { echo "cli-bench: scripted server $name did not start" >&2; exit 1; }
}

# --- the process floor: a static C program that does nothing ---
HELLO=
if need gcc; then
  printf 'int main(void){return 0;}\n' > "$WORK/hello.c"
  gcc -static -O2 -o "$WORK/hello" "$WORK/hello.c" && strip "$WORK/hello" && HELLO=$WORK/hello
fi

# --- sign in (device flow) against the scripted server; approval on poll 4 gives 3 poll gaps ---
INTERVAL=1
start_idp login --interval "$INTERVAL" --approve-after 4
STATE=$WORK/state
mkdir -m 700 "$STATE"
/usr/bin/time -f '%M %e' -o "$WORK/login.time" \
  "$BIN" --state-dir "$STATE" login --issuer "http://127.0.0.1:$PORT" --client-id c --json > "$WORK/login.out"
grep -q '"event":"authorized"' "$WORK/login.out" || { echo "cli-bench: login failed: $(cat "$WORK/login.out")" >&2; exit 1; }
read -r LOGIN_RSS LOGIN_WALL < "$WORK/login.time"
"$BIN" --state-dir "$STATE" token > /dev/null   # must be served from the cache

# --- token hot path, --version, floor ---
hf() {  # name, command...; writes $WORK/NAME.json
  local name=$1; shift
  hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style none --export-json "$WORK/$name.json" "$@" > /dev/null
}
hf token "$BIN --state-dir $STATE token"
hf version "$BIN --version"
[ -n "$HELLO" ] && hf hello "$HELLO"

rss() {  # max of 20 peak-RSS samples, KiB
  local max=0 r
  for _ in $(seq 1 20); do
    /usr/bin/time -f '%M' -o "$WORK/rss" "$@" > /dev/null
    r=$(tail -n1 "$WORK/rss"); [ "$r" -gt "$max" ] && max=$r
  done
  echo "$max"
}
TOKEN_RSS=$(rss "$BIN" --state-dir "$STATE" token)
VERSION_RSS=$(rss "$BIN" --version)
HELLO_RSS=; [ -n "$HELLO" ] && HELLO_RSS=$(rss "$HELLO")

# --- refresh under contention: tokens live 5 s, so after 6 s every `token` must refresh ---
start_idp contention --interval 1 --approve-after 1 --at-ttl 5
CSTATE=$WORK/cstate
mkdir -m 700 "$CSTATE"
"$BIN" --state-dir "$CSTATE" login --issuer "http://127.0.0.1:$PORT" --client-id c --json > /dev/null
sleep 6
cpids=()
for i in $(seq 1 "$CONTENDERS"); do
  "$BIN" --state-dir "$CSTATE" token --min-ttl 0 > "$WORK/contender.$i" 2>&1 &
  cpids+=($!)
done
CONT_FAIL=0
for p in "${cpids[@]}"; do wait "$p" || CONT_FAIL=$((CONT_FAIL + 1)); done
CONT_DISTINCT=$(cat "$WORK"/contender.* | sort -u | wc -l)

SIZE=$(stat -c %s "$BIN")
SHA=$(sha256sum "$BIN" | cut -d' ' -f1)
VERSION=$("$BIN" --version)

"$PYTHON" - "$WORK" "$INTERVAL" "$SIZE" "$SHA" "$VERSION" "$TOKEN_RSS" "$VERSION_RSS" "${HELLO_RSS:-}" \
  "$LOGIN_RSS" "$LOGIN_WALL" "$CONTENDERS" "$CONT_FAIL" "$CONT_DISTINCT" "$RUNS" <<'EOF'
import json, os, sys
(work, interval, size, sha, version, token_rss, version_rss, hello_rss, login_rss, login_wall,
 contenders, cont_fail, cont_distinct, runs) = sys.argv[1:]
interval = float(interval)

def hf(name):
    path = os.path.join(work, name + ".json")
    if not os.path.exists(path):
        return None
    r = json.load(open(path))["results"][0]
    return r

def ms(x):
    return f"{x * 1000:.2f} ms"

rows = []
def row(what, figure, target, ok):
    rows.append((what, figure, target, "yes" if ok else ("**no**" if ok is False else "–")))

tok, ver, hello = hf("token"), hf("version"), hf("hello")
row("`token` (valid cached token), median wall", f"{ms(tok['median'])} (mean {ms(tok['mean'])} ± σ {ms(tok['stddev'])}, min {ms(tok['min'])})",
    "≤ 2 ms", tok["median"] <= 0.002)
row("`--version`, median wall", f"{ms(ver['median'])} (mean {ms(ver['mean'])} ± σ {ms(ver['stddev'])}, min {ms(ver['min'])})", "", None)
if hello:
    row("static C `int main(){return 0;}` (floor), median wall",
        f"{ms(hello['median'])} (mean {ms(hello['mean'])} ± σ {ms(hello['stddev'])}, min {ms(hello['min'])})", "", None)
row("`token` peak RSS (max of 20)", f"{int(token_rss) / 1024:.1f} MiB ({token_rss} KiB)", "≤ 8 MB", int(token_rss) * 1024 <= 8_000_000)
row("`--version` peak RSS (max of 20)", f"{int(version_rss) / 1024:.1f} MiB", "", None)
if hello_rss:
    row("static C floor peak RSS", f"{int(hello_rss) / 1024:.1f} MiB", "", None)
row("device `login` peak RSS (whole run)", f"{int(login_rss) / 1024:.1f} MiB ({login_rss} KiB; {login_wall} s wall)",
    "≤ 16 MB", int(login_rss) * 1024 <= 16_000_000)

# Polling: gaps between the end of one poll's answer and the next poll, from the server's view.
polls = [json.loads(l) for l in open(os.path.join(work, "login.jsonl"))]
polls = [p for p in polls if p.get("path") == "/token" and p.get("poll")]
gaps = [p["gap"] for p in polls if p.get("gap") is not None]
early = sum(1 for p in polls if p.get("early"))
approved = [p for p in polls if p.get("status") == 200]
row("device polls: gaps after the previous answer", ", ".join(f"{g:.3f} s" for g in gaps) + f" (interval {interval:g} s; {len(polls)} polls)",
    f"min ≥ {interval:g} s", bool(gaps) and min(gaps) >= interval)
row("device polls flagged early by the server", str(early), "0", early == 0)
if approved:
    a = approved[0]
    # The approving poll could have been sent `interval` after the previous answer; how late was it,
    # and when did the token arrive, counted from the moment approval took effect (previous answer).
    late = a["gap"] - interval
    arrive = a["t_done"] - (a["t"] - a["gap"])
    row("approval poll sent late by (gap − interval)", f"{late * 1000:.1f} ms", "", None)
    row("token arrived after approval took effect", f"{arrive:.3f} s", f"≤ 1 interval ({interval:g} s) + answer time",
        arrive <= interval + 0.25)

clog = [json.loads(l) for l in open(os.path.join(work, "contention.jsonl"))]
refreshes = sum(1 for e in clog if e.get("path") == "/token" and e.get("params", {}).get("grant_type") == "refresh_token")
row(f"{contenders} concurrent `token` at expiry: refresh requests", f"{refreshes} ({cont_fail} processes failed, {cont_distinct} distinct tokens printed)",
    "exactly 1", refreshes == 1 and cont_fail == "0" and cont_distinct == "1")
row("static stripped binary", f"{int(size):,} bytes ({int(size) / 1048576:.2f} MiB)", "≤ 16 MB, aim 10 MB", int(size) <= 16_000_000)

print(f"binary: {version}, sha256 {sha}")
print(f"hyperfine: -N --warmup 20 --runs {runs}; load average: {open('/proc/loadavg').read().split()[:3]}")
print()
print("| measurement | figure | target | met |")
print("| --- | --- | --- | --- |")
for r in rows:
    print("| " + " | ".join(r) + " |")
EOF
