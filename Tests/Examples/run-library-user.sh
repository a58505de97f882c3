#!/usr/bin/env bash
# Builds the example package Tests/Examples/LibraryUser (a library user: the root package by path,
# its products only) and runs it against the scripted server (Tests/Harness/scripted_idp.py):
#   - scenario `ok`: device sign-in, a token through TokenSource, one resource call, no refresh;
#   - scenario `resource-rejects-first`: the first resource call gets 401 invalid_token, so
#     AuthorizedTransport must refresh exactly once and call again (the server log must show one
#     refresh and two resource calls).
# First it checks that every ```swift block of docs/library.md is one of the example's files
# (check-library-snippets.sh). Env: SCRATCH (build dir parent; default: the package's own .build),
# PYTHON (with `cryptography`; default python3), CI (true: a missing requirement fails, never skips).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PACKAGE="$ROOT/Tests/Examples/LibraryUser"
PY=${PYTHON:-python3}
BUILD_DIR=${SCRATCH:+$SCRATCH/library-user}
BUILD_DIR=${BUILD_DIR:-$PACKAGE/.build}
WORK=$(mktemp -d /tmp/latchkey-library-user.XXXXXX)
SERVER_PID=""
failures=()

cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; failures+=("$*"); }

echo "--- docs/library.md snippets"
"$ROOT/Tests/Examples/check-library-snippets.sh" || fail "docs/library.md snippets (above)"

if ! "$PY" -c "import cryptography" 2>/dev/null; then
  if [ "${CI:-}" = true ]; then echo "FAIL: $PY has no cryptography module (scripted_idp.py needs it)"; exit 1; fi
  echo "SKIPPED (not CI): $PY has no cryptography module, so the scripted server cannot start"; exit 0
fi

echo "--- swift build --package-path Tests/Examples/LibraryUser (scratch $BUILD_DIR)"
started=$(date +%s.%N)
swift build --package-path "$PACKAGE" --scratch-path "$BUILD_DIR" 2>&1 |
  grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Wrapping)'
build_status=${PIPESTATUS[0]}
echo "example build: $(printf '%.1f' "$(echo "$(date +%s.%N) - $started" | bc)")s"
echo "--- swift test --package-path Tests/Examples/LibraryUser (the LatchkeyTesting snippet)"
if ! swift test --package-path "$PACKAGE" --scratch-path "$BUILD_DIR" 2>&1 | grep -E "✔|✘|error|Test run"; then :; fi
if ! swift test --skip-build --package-path "$PACKAGE" --scratch-path "$BUILD_DIR" >/dev/null 2>&1; then
  echo "FAIL: the LatchkeyTesting snippet's test"; exit 1
fi
BIN="$BUILD_DIR/debug/library-user"
if [ "$build_status" != 0 ] || [ ! -x "$BIN" ]; then echo "FAIL: example build (exit $build_status)"; exit 1; fi

# run SCENARIO: starts the server, runs the example, checks its exit status and output, leaves
# the server's request log in $WORK/SCENARIO.jsonl.
run() {
  local scenario=$1 log="$WORK/$1.jsonl" port="" out="$WORK/$1.out"
  "$PY" -u "$ROOT/Tests/Harness/scripted_idp.py" --scenario "$scenario" --log "$log" > "$WORK/$scenario.port" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do
    port=$(head -n 1 "$WORK/$scenario.port" 2>/dev/null)
    [[ "$port" =~ ^[0-9]+$ ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if ! [[ "$port" =~ ^[0-9]+$ ]]; then
    fail "$scenario: scripted_idp.py did not start: $(cat "$WORK/$scenario.port")"; return
  fi
  echo "--- $scenario: library-user http://127.0.0.1:$port"
  timeout 120 "$BIN" "http://127.0.0.1:$port" > "$out" 2>&1
  local status=$?
  sed 's/^/    /' "$out"
  kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  [ "$status" = 0 ] || fail "$scenario: library-user exited $status"
  for expected in "Open http://127.0.0.1:$port/device and enter WDJB-MJHT before " \
                  "Signed in as scripted-user-1 (ID token verified: true)" \
                  "Saved profile kiosk for http://127.0.0.1:$port" \
                  "Cached token is the same: true" \
                  'resource: 200 {"resource": "scripted", "subject": "scripted-user-1"}'; do
    grep -qF -- "$expected" "$out" || fail "$scenario: output lacks: $expected"
  done
}

# expect SCENARIO REFRESHES RESOURCE_STATUSES: what the server saw.
expect() {
  local scenario=$1 refreshes=$2 statuses=$3
  "$PY" - "$WORK/$scenario.jsonl" "$refreshes" "$statuses" <<'PY' || fail "$scenario: server log (above)"
import json, sys
entries = [json.loads(line) for line in open(sys.argv[1])]
refreshes = [e for e in entries if e["path"] == "/token" and e["params"].get("grant_type") == "refresh_token"]
resource = [e for e in entries if e["path"] == "/resource"]
device = [e for e in entries if e["path"] == "/device_authorization"]
problems = []
if len(refreshes) != int(sys.argv[2]) or any(e["status"] != 200 for e in refreshes):
    problems.append(f"refreshes: {[e['status'] for e in refreshes]}, expected {sys.argv[2]} answered 200")
statuses = ",".join(str(e["status"]) for e in resource)
if statuses != sys.argv[3]:
    problems.append(f"resource calls answered {statuses or 'none'}, expected {sys.argv[3]}")
if any(e["headers"]["authorization"] != "Bearer" for e in resource):
    problems.append("a resource call without a Bearer token")
# The example's own RequestAuthenticator puts client_id in the body; the ID token's audience depends on it.
if [e["params"].get("client_id") for e in device] != ["library-user"]:
    problems.append(f"device authorization client_id: {[e['params'].get('client_id') for e in device]}")
print(f"    server: {len(refreshes)} refresh(es), resource calls answered {statuses}")
for p in problems:
    print("    " + p)
sys.exit(1 if problems else 0)
PY
}

run ok && expect ok 0 200
run resource-rejects-first && expect resource-rejects-first 1 401,200

if ((${#failures[@]})); then
  printf 'library-user FAILED: %s\n' "${failures[@]}"
  exit 1
fi
echo "library-user: ok (2 scenarios)"
