#!/usr/bin/env bash
# Uses Latchkey as a library user does (issue 23): a throwaway `git clone` of this repository's
# committed HEAD, tagged with the CLI's version (Sources/latchkey/Run/ToolVersion.swift), and a
# separate package that depends on it by URL and version, `.package(url: "file://<clone>", from:
# "<version>")`, naming products only. SwiftPM refuses unsafe build flags in such a dependency (not in
# a path one), so this is the check that the package can be depended on at all. The consumer is
# Tests/Examples/LibraryUser with its path dependency swapped for the URL one; it is resolved, built,
# its test (the LatchkeyTesting snippet) run, and the program run against the scripted server
# (Tests/Harness/scripted_idp.py):
#   - scenario `ok`: device sign-in, a token through TokenSource, one resource call, no refresh;
#   - scenario `resource-rejects-first`: the first resource call gets 401 invalid_token, so
#     AuthorizedTransport must refresh exactly once and call again (the server log must show one
#     refresh and two resource calls).
# First it checks that every ```swift block of docs/library.md is one of the example's files
# (check-library-snippets.sh), and that the public type counts are docs/library.md's and the core
# is within its budget (public-api-count.sh --check). Env: SCRATCH (parent of the reused work folder `library-user`;
# default <root>/.build), PYTHON (with `cryptography`; default python3), CI (true: a missing
# requirement fails, never skips). Uncommitted changes are not in the clone: commit first.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PACKAGE="$ROOT/Tests/Examples/LibraryUser"
PY=${PYTHON:-python3}
# Reused between runs: SwiftPM only updates its mirror of the clone, and the build of a fresh
# checkout is incremental (here: 18 s for the whole script when Sources/ did not change, 1.5-2 min
# when they did, on 2 shared cores).
CONSUMER_WORK=${SCRATCH:-$ROOT/.build}/library-user
CLONE="$CONSUMER_WORK/latchkey"        # the package identity is the URL's last component
CONSUMER="$CONSUMER_WORK/consumer"
BUILD_DIR="$CONSUMER_WORK/build"
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
echo "--- public types against docs/library.md and the core's budget"
"$ROOT/Tests/Examples/public-api-count.sh" --check || fail "public type counts (above)"
echo "--- no public member on a package or internal type"
(cd "$ROOT" && python3 Tests/Examples/public-members.py Latchkey LatchkeyRegistration LatchkeyCrypto LatchkeyHTTP \
  LatchkeyJOSE LatchkeyQR LatchkeyTesting LatchkeyFoundationCompat) || fail "public members of package types (above)"

if ! "$PY" -c "import cryptography" 2>/dev/null; then
  if [ "${CI:-}" = true ]; then echo "FAIL: $PY has no cryptography module (scripted_idp.py needs it)"; exit 1; fi
  echo "SKIPPED (not CI): $PY has no cryptography module, so the scripted server cannot start"; exit 0
fi

# The release under test: the committed HEAD, tagged as the version the CLI reports.
VERSION=$(sed -nE 's/.*static let number = "([0-9]+\.[0-9]+\.[0-9]+)".*/\1/p' "$ROOT/Sources/latchkey/Run/ToolVersion.swift")
[ -n "$VERSION" ] || { echo "FAIL: no version in Sources/latchkey/Run/ToolVersion.swift"; exit 1; }
started=$(date +%s.%N)
mkdir -p "$CONSUMER_WORK"
rm -rf "$CLONE" "$CONSUMER"
if ! git clone --quiet --no-hardlinks "$ROOT" "$CLONE" || ! git -C "$CLONE" tag -f "$VERSION" HEAD >/dev/null; then
  echo "FAIL: git clone $ROOT"; exit 1
fi
HEAD_COMMIT=$(git -C "$CLONE" rev-parse HEAD)
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no -- Package.swift Sources)" ] ||
  echo "note: Package.swift or Sources/ has uncommitted changes; the consumer tests the committed HEAD only"
# The consumer: the example package, its path dependency replaced by the versioned URL one.
mkdir -p "$CONSUMER"
cp -R "$PACKAGE/Sources" "$PACKAGE/TestingSnippets" "$CONSUMER/"
path_dependency='.package(name: "Latchkey", path: "../../..")'
grep -qF "$path_dependency" "$PACKAGE/Package.swift" || { echo "FAIL: $PACKAGE/Package.swift lacks $path_dependency"; exit 1; }
sed "s|$path_dependency|.package(url: \"file://$CLONE\", from: \"$VERSION\")|" "$PACKAGE/Package.swift" > "$CONSUMER/Package.swift"
echo "--- consumer: .package(url: \"file://$CLONE\", from: \"$VERSION\") (tag $VERSION = ${HEAD_COMMIT:0:12}; scratch $BUILD_DIR)"
# A fresh resolution each run: the tag moves with every commit, and SwiftPM keeps a version it has
# resolved once (Package.resolved, workspace-state.json) without looking at the tag's commit again.
rm -f "$BUILD_DIR/workspace-state.json"
swift build --package-path "$CONSUMER" --scratch-path "$BUILD_DIR" 2>&1 |
  grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Wrapping)'
build_status=${PIPESTATUS[0]}
echo "consumer clone, resolve and build: $(printf '%.1f' "$(echo "$(date +%s.%N) - $started" | bc)")s"
BIN="$BUILD_DIR/debug/library-user"
if [ "$build_status" != 0 ] || [ ! -x "$BIN" ]; then echo "FAIL: consumer build (exit $build_status)"; exit 1; fi
resolved=$(git -C "$BUILD_DIR/checkouts/latchkey" rev-parse HEAD 2>/dev/null)
if [ "$resolved" != "$HEAD_COMMIT" ]; then
  echo "FAIL: the consumer resolved latchkey at ${resolved:-nothing}, not the tagged $HEAD_COMMIT"; exit 1
fi
echo "--- swift test --package-path <consumer> (the LatchkeyTesting snippet)"
# One run: its status is the check, its summary lines are what the log shows.
swift test --package-path "$CONSUMER" --scratch-path "$BUILD_DIR" > "$WORK/consumer-test.log" 2>&1
test_status=$?
grep -E "✔|✘|error|Test run" "$WORK/consumer-test.log"
if [ "$test_status" != 0 ]; then
  tail -n 20 "$WORK/consumer-test.log"; echo "FAIL: the LatchkeyTesting snippet's test (exit $test_status)"; exit 1
fi

# run SCENARIO: starts the server, runs the example, checks its exit status and output, leaves
# the server's request log in $WORK/SCENARIO.jsonl.
run() {
  local scenario=$1 log="$WORK/$1.jsonl" port="" out="$WORK/$1.out"
  "$PY" -u "$ROOT/Tests/Harness/scripted_idp.py" --scenario "$scenario" --log "$log" > "$WORK/$scenario.port" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + 30))
  while :; do
    port=$(head -n 1 "$WORK/$scenario.port" 2>/dev/null)
    [[ "$port" =~ ^[0-9]+$ ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    [ "$SECONDS" -lt "$deadline" ] || break
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
echo "library-user: ok (versioned dependency $VERSION, 2 scenarios)"
