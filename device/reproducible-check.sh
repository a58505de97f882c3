#!/usr/bin/env bash
# Builds the static binary twice from scratch, from two clones of HEAD at different paths (of
# different lengths), each with its own HOME and TMPDIR, and prints both SHA-256s; exit 0 only
# when they are equal. Slow (two cold release builds, about 2.5 min each on 2 cores), so it is not
# a CI step: run it before a release, or when the toolchain or build flags change.
# The commit is HEAD as committed (uncommitted changes are not in the clones).
# usage: device/reproducible-check.sh        env: LATCHKEY_STATIC_LIMIT (passed to build-static.sh)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/latchkey-repro.XXXXXX)
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$WORK"' EXIT
commit=$(git -C "$ROOT" rev-parse HEAD)
echo "commit: $commit"
build() {
  local name=$1 src=$2
  mkdir -p "$WORK/$name/home" "$WORK/$name/tmp" "$(dirname "$src")"
  git clone -q --no-hardlinks "$ROOT" "$src"
  git -C "$src" checkout -q "$commit"
  (cd "$src" && env HOME="$WORK/$name/home" TMPDIR="$WORK/$name/tmp" LATCHKEY_SCRATCH="$src/.build" \
     device/build-static.sh > "$WORK/$name/out.txt" 2> "$WORK/$name/err.txt") ||
    { echo "build $name failed:"; tail -20 "$WORK/$name/err.txt" "$WORK/$name/out.txt"; exit 1; }
  sed -n 's/^sha256: //p' "$WORK/$name/out.txt"
}
start=$SECONDS
a=$(build a "$WORK/a/latchkey")
echo "a ($WORK/a/latchkey): $a  [$((SECONDS - start)) s]"
start=$SECONDS
b=$(build b "$WORK/b/a/much/longer/path/to/the/clone/latchkey")
echo "b ($WORK/b/a/much/longer/path/to/the/clone/latchkey): $b  [$((SECONDS - start)) s]"
if [ "$a" = "$b" ] && [ -n "$a" ]; then
  echo "reproducible: both builds are $a"
else
  A=$WORK/a/latchkey/.build/latchkey-static B=$WORK/b/a/much/longer/path/to/the/clone/latchkey/.build/latchkey-static
  echo "NOT reproducible: $(cmp -l "$A" "$B" | wc -l) bytes differ; the first (offset, octal a, octal b):"
  cmp -l "$A" "$B" | head -5 || true
  echo "(sections: readelf -S; both builds kept in $WORK)"
  keep=1
  exit 1
fi
