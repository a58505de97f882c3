#!/usr/bin/env bash
# How often one command opens the token file (and the lock file), counted with `strace -e openat`
# against the scripted server with a DPoP-bound session (scenario `dpop`):
#   token (cached), token (refresh: --force-refresh), fetch (cached), fetch (refresh + 1 redirect:
#   the profile's min-ttl is set above the token's lifetime, so every fetch refreshes first).
# usage: Benchmarks/file-reads.sh PATH_TO_LATCHKEY        (needs strace and python3)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:?usage: Benchmarks/file-reads.sh PATH_TO_LATCHKEY}")
PYTHON=${PYTHON:-python3}
command -v strace >/dev/null || { echo "file-reads: strace is not installed (apt-get install strace)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/latchkey-file-reads.XXXXXX)
IDP_PID=
cleanup() { [ -n "$IDP_PID" ] && kill "$IDP_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

"$PYTHON" "$ROOT/Tests/Harness/scripted_idp.py" --scenario dpop --interval 1 --approve-after 1 --at-ttl 3600 --log "$WORK/idp.log" > "$WORK/port" &
IDP_PID=$!
for _ in $(seq 1 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(head -n1 "$WORK/port")
URL="http://127.0.0.1:$PORT"
mkdir -m 700 "$WORK/state"
lk() { "$BIN" --state-dir "$WORK/state" "$@"; }
lk login --issuer "$URL" --client-id bench --dpop always --json > "$WORK/login.out"
grep -q '"event":"authorized"' "$WORK/login.out" || { echo "file-reads: login failed" >&2; cat "$WORK/login.out" >&2; exit 1; }

count() {  # label, then the command's arguments
    local label=$1; shift
    local before=$(grep -c '"/token"' "$WORK/idp.log" || true)
    strace -f -qq -e trace=openat,rename,renameat,renameat2 -o "$WORK/trace" "$BIN" --state-dir "$WORK/state" "$@" > /dev/null
    local tokens lock writes
    tokens=$(grep -c 'openat(.*default\.tokens"' "$WORK/trace" || true)
    lock=$(grep -c 'openat(.*default\.lock"' "$WORK/trace" || true)
    writes=$(grep -cE "rename(at2?)?\(.*default\.tokens\"" "$WORK/trace" || true)
    local after=$(grep -c '"/token"' "$WORK/idp.log" || true)
    printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "$tokens" "$writes" "$lock" "$(grep -c 'openat(' "$WORK/trace" || true)" "$((after - before))"
}
echo "| command | token file opened | token file written (renamed into place) | lock file opened | all openat | token requests |"
echo "| --- | --- | --- | --- | --- | --- |"
count "token (cached)" token --format bare
count "token (refresh)" token --force-refresh
count "fetch (cached)" fetch "$URL/resource"
lk config set min-ttl 7200 > /dev/null
count "fetch (refresh + 1 redirect)" fetch "$URL/redirect?hops=1"
