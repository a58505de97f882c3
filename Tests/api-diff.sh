#!/usr/bin/env bash
# The public API of the library products against a release tag (issue 23; docs/library.md
# "Releasing"): `swift package diagnose-api-breaking-changes` builds the tag's tree beside this one
# and lists every public declaration removed or changed since. Fails on any break not listed in
# Tests/api-breakage-allowlist.txt: one exact message a line (e.g. `API breakage: struct Foo has
# been removed`), nothing else (with a `#` comment line in it the tool ignored the whole file).
# Without a tag argument it compares with the newest N.N.N tag and, when there is none yet, says
# so and succeeds: there is nothing to compare.
# usage: Tests/api-diff.sh [TAG]   env: LATCHKEY_SCRATCH (build dir, default <root>/.build)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build}
cd "$ROOT"
tag=${1:-$(git describe --tags --abbrev=0 --match '[0-9]*.[0-9]*.[0-9]*' 2>/dev/null || true)}
if [ -z "$tag" ]; then
  echo "api-diff: no release tag (N.N.N) yet, nothing to compare"
  exit 0
fi
allow=()
[ -s "$ROOT/Tests/api-breakage-allowlist.txt" ] && allow=(--breakage-allowlist-path "$ROOT/Tests/api-breakage-allowlist.txt")
log=$(mktemp /tmp/latchkey-api-diff.XXXXXX)
trap 'rm -f "$log"' EXIT
started=$(date +%s)
swift package --scratch-path "$SCRATCH" diagnose-api-breaking-changes "$tag" "${allow[@]}" \
  --products Latchkey LatchkeyCrypto LatchkeyHTTP LatchkeyJOSE LatchkeyQR LatchkeyTesting LatchkeyFoundationCompat \
  > "$log" 2>&1
status=$?
# The tool's build output is long; its findings and errors are what matter.
grep -E 'breaking change|API breakage|error:' "$log" || tail -n 20 "$log"
echo "api-diff: against $tag, exit $status, $(( $(date +%s) - started )) s"
exit "$status"
