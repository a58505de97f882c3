#!/usr/bin/env bash
# Builds the static binary twice from scratch, from two clones of HEAD at different paths (of
# different lengths), each with its own HOME and TMPDIR, and prints both SHA-256s; exit 0 only
# when they are equal. Slow (two cold release builds, about 2.5 min each on 2 cores), so it is not
# a CI step: run it before a release, or when the toolchain or build flags change.
# The commit is HEAD as committed (uncommitted changes are not in the clones).
# usage: device/reproducible-check.sh [--arch x86_64|aarch64]
#        env: LATCHKEY_STATIC_LIMIT (passed to build-static.sh)
# --arch aarch64: the same for the aarch64 binary (device/build-static.sh --arch aarch64). Both
# builds read the one verified package cache (LATCHKEY_AARCH64_CACHE, default ~/.cache/latchkey-aarch64)
# rather than download 400 MB twice; its path is mapped out of the binary like the checkout's.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH=x86_64
case ${1:-} in
  --arch) ARCH=${2:?--arch needs a value} ;;
  --arch=*) ARCH=${1#*=} ;;
  "") ;;
  *) echo "usage: device/reproducible-check.sh [--arch x86_64|aarch64]" >&2; exit 2 ;;
esac
case $ARCH in
  x86_64|amd64) ARCH=x86_64; BUILD=.build; SCRATCH_VAR=LATCHKEY_SCRATCH ;;
  aarch64|arm64) ARCH=aarch64; BUILD=.build-aarch64; SCRATCH_VAR=LATCHKEY_AARCH64_SCRATCH
    export LATCHKEY_AARCH64_CACHE=${LATCHKEY_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latchkey-aarch64} ;;
  *) echo "reproducible-check: unsupported --arch $ARCH" >&2; exit 2 ;;
esac
echo "arch: $ARCH"
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
  (cd "$src" && env HOME="$WORK/$name/home" TMPDIR="$WORK/$name/tmp" "$SCRATCH_VAR=$src/$BUILD" \
     device/build-static.sh --arch "$ARCH" > "$WORK/$name/out.txt" 2> "$WORK/$name/err.txt") ||
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
  A=$WORK/a/latchkey/$BUILD/latchkey-static B=$WORK/b/a/much/longer/path/to/the/clone/latchkey/$BUILD/latchkey-static
  echo "NOT reproducible: $(cmp -l "$A" "$B" | wc -l) bytes differ; the first (offset, octal a, octal b):"
  cmp -l "$A" "$B" | head -5 || true
  echo "(sections: readelf -S; both builds kept in $WORK)"
  keep=1
  exit 1
fi
