#!/usr/bin/env bash
# Build the one binary that ships: `latchkey`, fully static (no shared libraries at all), stripped.
# Prints `path:`, `size:` and `sha256:` lines; fails unless ldd says "not a dynamic executable".
# env: LATCHKEY_SCRATCH (build folder, default <root>/.build); LATCHKEY_MBEDTLS=3.6 (link Debian 13's
# mbedTLS 3.6 instead of the system's 2.28), LATCHKEY_MBEDTLS_CACHE (device/fetch-mbedtls.sh)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build}
cd "$ROOT"
# -static-executable links glibc statically too; glibc warns that getaddrinfo in a static binary
# still wants the host's NSS at run time: lookups through /etc/hosts and DNS work (docs/deploy.md).
# lld with --gc-sections and --icf=all drops unreferenced sections and folds identical functions:
# about 5 % of the binary (docs/performance.md "Binary size"), for appliance flash. The library's
# public API (signing, QR writers, test-facing types) is mostly unused by the CLI: -function-sections
# gives each function its own section and -internalize-at-link lets the linker drop unused public
# symbols too (the executable is the whole link unit): 327 KB less, measured in issue 14.
# --no-eh-frame-hdr drops the unwinder's FDE search table (188 KB): nothing in this binary unwinds
# on a working path. Swift errors are plain returns; the C++ in the runtime is built without
# exceptions, so its only throws (bad_alloc, length_error) end in std::terminate either way; the
# one pthread_exit caller is dispatch_main, which latchkey never calls. A crash still prints its
# message; it loses only the frames of a backtrace (docs/performance.md "Binary size").
# For the same reason the unwind tables themselves (.eh_frame, about 890 KB) are removed after
# stripping. Without the search table nothing reaches them: the unwinder finds no frame and a crash
# backtrace is cut short, as it already was. Wave 2 saw a binary crash at start with .eh_frame
# removed while .eh_frame_hdr still pointed into it; with no header there is nothing to follow, and
# the script runs the result (`--version` below) so a binary that cannot start fails the build.
# -Osize: the binary goes to appliance flash, and the hot path (`token`) is dominated by process
# start-up, not by our code (docs/performance.md). Without the implicit `_StringProcessing` import
# its regex engine and Unicode property tables (about 1.5 MB) stay out; nothing here needs them.
# -disable-concrete-type-metadata-mangled-name-accessors: the compiler's default is to find a
# concrete type's metadata at run time by demangling its name (swift_getTypeByMangledName), once per
# type per process; with accessor functions instead, a cached `latchkey token` runs 924 K → 780 K
# instructions (callgrind) for 4 KB more binary (docs/performance.md, issue 24).
# --symbol-ordering-file lays out the functions a cached `latchkey token` runs side by side
# (device/hot-path.order, written by device/hot-path-order.sh): peak RSS 6.5 -> 3.4 MiB.
# All are given here, not in Package.swift: there they would be unsafe flags, which SwiftPM refuses
# in a package that others depend on by version (docs/library.md).
# Reproducible (device/reproducible-check.sh): the build folder's path must not reach the binary.
# Debug info, #file/#filePath and the C target's __FILE__ name the checkout as /latchkey, so two
# clones at different paths give the same bytes (the build ID hashes the unstripped output, debug
# info included, so a path there changes the stripped binary too).
PREFIX_MAPS=(-Xswiftc -file-prefix-map -Xswiftc "$ROOT=/latchkey" -Xcc "-ffile-prefix-map=$ROOT=/latchkey")
# LATCHKEY_MBEDTLS=3.6: mbedTLS 3.6 LTS from Debian 13, verified by apt and cached outside the
# checkout (device/fetch-mbedtls.sh); its headers and static archives come before the system's 2.28.
# The default is still Debian 12's 2.28 (libmbedtls-dev): the shared acceptance cli suite, which
# every submission must pass, requires "(mbedTLS 2.28.x)" in --version (issue 38 says why 3.6).
MBEDTLS_FLAGS=()
MBEDTLS_EXPECTED=""
if [ "${LATCHKEY_MBEDTLS:-system}" = 3.6 ]; then
  eval "$("$ROOT/device/fetch-mbedtls.sh")"
  MBEDTLS_ROOT=${MBEDTLS_INCLUDE%/usr/include}
  MBEDTLS_FLAGS=(-Xcc -I"$MBEDTLS_INCLUDE" -Xlinker -L"$MBEDTLS_LIB" -Xcc "-ffile-prefix-map=$MBEDTLS_ROOT=/mbedtls")
  MBEDTLS_EXPECTED=${MBEDTLS_DEB_VERSION%%-*}
fi
case $SCRATCH in
  "$ROOT"/*) ;;
  *) PREFIX_MAPS+=(-Xswiftc -file-prefix-map -Xswiftc "$SCRATCH=/latchkey-build" -Xcc "-ffile-prefix-map=$SCRATCH=/latchkey-build") ;;
esac
swift build -c release --scratch-path "$SCRATCH" --product latchkey "${PREFIX_MAPS[@]}" "${MBEDTLS_FLAGS[@]}" \
  -Xswiftc -Osize -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
  --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -use-ld=lld \
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -internalize-at-link \
  -Xlinker --gc-sections -Xlinker --icf=all -Xlinker --no-eh-frame-hdr \
  -Xlinker --symbol-ordering-file="$ROOT/device/hot-path.order" -Xlinker --no-warn-symbol-ordering 2>&1 |
  grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Wrapping)|getaddrinfo|statically linked applications requires' >&2
BIN_DIR=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)
OUT="$SCRATCH/latchkey-static"
cp "$BIN_DIR/latchkey" "$OUT"
# .comment holds only compiler version strings (lintian: binary-has-unneeded-section).
# Two sections cannot be made identical across checkouts, so they do not ship: .swift_modhash
# (a hash over each module's compiler inputs, paths included; read by debuggers, not by the
# runtime) and the GNU build ID (lld hashes the unstripped output, whose debug info names the
# build folder). Without them two clones at different paths give the same bytes
# (device/reproducible-check.sh).
strip --strip-all --remove-section=.comment --remove-section=.swift_modhash --remove-section=.note.gnu.build-id "$OUT"
objcopy --remove-section=.eh_frame "$OUT"
ldd_out=$(ldd "$OUT" 2>&1 || true)   # ldd exits 1 on a static binary
if ! grep -q "not a dynamic executable" <<< "$ldd_out"; then
  echo "build-static: $OUT is dynamically linked:" >&2
  echo "$ldd_out" >&2
  exit 1
fi
size=$(stat -c %s "$OUT")
echo "path: $OUT"
echo "size: $size bytes ($(echo "scale=2; $size / 1048576" | bc) MiB)"
# The size target (overview.md: at most 9 MB, read as MiB): a change that grows past it fails here.
LIMIT=${LATCHKEY_STATIC_LIMIT:-9437184}
if [ "$size" -gt "$LIMIT" ]; then
  echo "build-static: $OUT is $size bytes, over the $LIMIT-byte limit" >&2
  exit 1
fi
echo "sha256: $(sha256sum "$OUT" | cut -d' ' -f1)"
version=$("$OUT" --version) || { echo "build-static: $OUT does not start" >&2; exit 1; }
echo "version: $version"
if [ -n "$MBEDTLS_EXPECTED" ]; then
  case $version in
    *"(mbedTLS $MBEDTLS_EXPECTED)") ;;
    *) echo "build-static: $OUT says '$version', not mbedTLS $MBEDTLS_EXPECTED (the fetched libmbedtls-dev $MBEDTLS_DEB_VERSION)" >&2; exit 1 ;;
  esac
fi
