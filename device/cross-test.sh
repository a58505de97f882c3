#!/usr/bin/env bash
# Run the acceptance suites (../shared/acceptance) against the aarch64 binary, under
# qemu-aarch64-static on this x86_64 machine.
#   device/cross-test.sh aarch64 [--suites jose,cli,store,device] [BINARY]
# BINARY defaults to the one device/build-static.sh --arch aarch64 made
# (${LATCHKEY_AARCH64_SCRATCH:-<root>/.build-aarch64}/latchkey-static). --suites (or
# LATCHKEY_CROSS_SUITES) picks suites by their run-all.sh names; the default is all eight.
# Prints run-all.sh's output (each suite's FAIL lines, last line and time), then a summary line
# per suite; exit 0 only when every selected suite passed.
#
# How the binary is run: qemu-user-static is installed when missing (apt-get, as the suites' own
# runner installs what they need). binfmt_misc is not used: it is a setting of the whole kernel,
# and often not available in a container. Instead the suites get a stand-in "binary": one fully
# static x86_64 file (device/cross-stub.c, built here with gcc) carrying qemu-aarch64-static and
# the aarch64 binary, which unpacks them once into $TMPDIR (or /tmp) and execs
# `qemu-aarch64-static -0 ARGV0 GUEST ARGS...`. Being a single static file, it also runs where the
# device suite puts it: alone in a bare root, with and without /proc.
# What emulation cannot show: qemu answers the guest's /proc/self/exe itself, even without /proc,
# so the "without /proc" rows exercise our code under qemu, not the real kernel's answer
# (docs/deploy.md "CPUs").
#
# env: LATCHKEY_ACCEPTANCE_DIR (default <root>/../shared/acceptance), ACCEPTANCE_WORK (default
#      <aarch64 scratch>/acceptance-work; its venv is reused), ACCEPTANCE_VENV (default: the x86_64
#      run's <root>/.build/acceptance-work/venv when it exists, so no second venv is made).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "cross-test: $*" >&2; exit 2; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case $1 in
  aarch64|arm64) ARCH=aarch64 ;;
  -h|--help) usage; exit 0 ;;
  *) die "unsupported architecture '$1' (aarch64; docs/deploy.md \"CPUs\")" ;;
esac
shift
SUITES=${LATCHKEY_CROSS_SUITES:-}
BIN=""
while [ $# -gt 0 ]; do
  case $1 in
    --suites|--only) [ $# -ge 2 ] || die "$1 needs a value"; SUITES=$2; shift 2 ;;
    --suites=*|--only=*) SUITES=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) [ -z "$BIN" ] || die "more than one binary ($BIN, $1)"; BIN=$1; shift ;;
  esac
done
SCRATCH=${LATCHKEY_AARCH64_SCRATCH:-$ROOT/.build-aarch64}
BIN=${BIN:-$SCRATCH/latchkey-static}
[ -f "$BIN" ] || die "no aarch64 binary at $BIN (run device/build-static.sh --arch aarch64)"
readelf -h "$BIN" 2>/dev/null | grep -q 'Machine: *AArch64' || die "$BIN is not an AArch64 ELF"
ACCEPTANCE_DIR=${LATCHKEY_ACCEPTANCE_DIR:-$ROOT/../shared/acceptance}
[ -f "$ACCEPTANCE_DIR/run-all.sh" ] || die "no acceptance suites at $ACCEPTANCE_DIR"

need=()
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v gcc >/dev/null && [ -e /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(gcc libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || die "missing: ${need[*]} (apt-get install ${need[*]})"
  echo "cross-test: installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
QEMU=$(command -v qemu-aarch64-static)

# The stand-in: stub, qemu, guest, trailer (device/cross-stub.c reads it from the end).
# Runs side by side share the stand-in: each writes its own temporary and renames it over.
mkdir -p "$SCRATCH/cross"
STUB=$SCRATCH/cross/latchkey
tmp_stub=$(mktemp "$STUB.XXXXXX")
gcc -static -O2 -Wall -Werror -o "$tmp_stub" "$ROOT/device/cross-stub.c"
id=$(cat "$QEMU" "$BIN" | sha256sum | cut -c1-16)
python3 - "$tmp_stub" "$QEMU" "$BIN" "$id" <<'EOF'
import os, struct, sys
stub, qemu, guest, ident = sys.argv[1:]
q, g = open(qemu, "rb").read(), open(guest, "rb").read()
with open(stub, "ab") as f:
    f.write(q); f.write(g); f.write(struct.pack("<QQQ", len(q), len(g), int(ident, 16)) + b"LKXSTUB1")
EOF
chmod 0755 "$tmp_stub"
mv "$tmp_stub" "$STUB"
version=$("$STUB" --version) || die "the aarch64 binary does not start under $QEMU"
echo "cross-test: $BIN ($version) under $QEMU ($("$QEMU" --version | head -1)), through $STUB"

if [ -z "${ACCEPTANCE_VENV:-}" ] && [ -x "$ROOT/.build/acceptance-work/venv/bin/python" ]; then
  export ACCEPTANCE_VENV=$ROOT/.build/acceptance-work/venv
fi
export ACCEPTANCE_WORK=${ACCEPTANCE_WORK:-$SCRATCH/acceptance-work}
mkdir -p "$ACCEPTANCE_WORK"
args=(--project "$ROOT")
[ -z "$SUITES" ] || args+=(--only "$SUITES")
log=$SCRATCH/cross/acceptance-${SUITES:-all}.log
start=$SECONDS
status=0
bash "$ACCEPTANCE_DIR/run-all.sh" "${args[@]}" "$STUB" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
echo "cross-test: aarch64 under qemu, $((SECONDS - start)) s in all; per suite:"
grep -E '^== [a-z]+: exit' "$log" | sed 's/^== /  /' || true
exit "$status"
