#!/usr/bin/env bash
# Build the one binary that ships: `latchkey`, fully static (no shared libraries at all), stripped.
# Prints `path:`, `size:` and `sha256:` lines; fails unless ldd says "not a dynamic executable".
# env: LATCHKEY_SCRATCH (build folder, default <root>/.build); LATCHKEY_MBEDTLS=3.6 (link Debian 13's
# mbedTLS 3.6 instead of the system's 2.28), LATCHKEY_MBEDTLS_CACHE (device/fetch-mbedtls.sh)
# --arch aarch64: the same binary for 64-bit ARM, built by the toolchain's 6.3.1 compiler against
# Debian 13's swiftlang 6.0.3 arm64 static runtime, glibc and Debian 12's arm64 mbedTLS 2.28, all
# fetched and verified by apt into a cache outside the checkout (device/fetch-aarch64-sysroot.sh);
# build folder LATCHKEY_AARCH64_SCRATCH (default <root>/.build-aarch64), so it never mixes with the
# x86_64 one. `--version` runs under qemu-aarch64-static (Debian's qemu-user-static, installed when
# missing). The shipped flags below are the same for both; what differs is only how to reach the
# other CPU and the 6.0.3 runtime (docs/deploy.md "CPUs").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH=x86_64
while [ $# -gt 0 ]; do
  case $1 in
    --arch) [ $# -ge 2 ] || { echo "build-static: --arch needs a value" >&2; exit 2; }; ARCH=$2; shift 2 ;;
    --arch=*) ARCH=${1#*=}; shift ;;
    -h|--help) sed -n '2,5p;' "$0"; echo "usage: device/build-static.sh [--arch x86_64|aarch64]"; exit 0 ;;
    *) echo "build-static: unknown argument $1 (usage: device/build-static.sh [--arch x86_64|aarch64])" >&2; exit 2 ;;
  esac
done
case $ARCH in
  x86_64|amd64) ARCH=x86_64; SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build} ;;
  aarch64|arm64) ARCH=aarch64; SCRATCH=${LATCHKEY_AARCH64_SCRATCH:-$ROOT/.build-aarch64} ;;
  *) echo "build-static: unsupported --arch $ARCH (x86_64 or aarch64; docs/deploy.md \"CPUs\" says why not armv7)" >&2; exit 2 ;;
esac
[ "$ARCH" = x86_64 ] || [ "$(uname -m)" = x86_64 ] || { echo "build-static: --arch $ARCH is cross-built from an x86_64 machine" >&2; exit 2; }
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
# The shipped flags, one list for every CPU (the comments above say why each is there).
SHIPPED_FLAGS=(
  -Xswiftc -Osize -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
  --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -use-ld=lld
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -internalize-at-link
  -Xlinker --gc-sections -Xlinker --icf=all -Xlinker --no-eh-frame-hdr
  -Xlinker --symbol-ordering-file="$ROOT/device/hot-path.order" -Xlinker --no-warn-symbol-ordering
)
# aarch64: the target, the sysroot of Debian arm64 packages and the 6.0.3 runtime's resource folder.
# LATCHKEY_SWIFT_RUNTIME_6_0 selects the executor install that the 6.0.3 runtime has (the global
# enqueue hooks) instead of 6.3's executor-factory SPI, which it lacks (docs/deploy.md "CPUs");
# it is given to the Swift and the C compiler alike. The cache's path is mapped like the checkout's.
CROSS_FLAGS=()
RUN=()
if [ "$ARCH" = aarch64 ]; then
  [ "${LATCHKEY_MBEDTLS:-system}" = system ] ||
    { echo "build-static: --arch aarch64 links Debian 12's arm64 mbedTLS 2.28 only (LATCHKEY_MBEDTLS is for x86_64)" >&2; exit 2; }
  eval "$("$ROOT/device/fetch-aarch64-sysroot.sh")"
  AARCH64_CACHE=$(dirname "$AARCH64_SYSROOT")
  CROSS_FLAGS=(--triple aarch64-unknown-linux-gnu --sdk "$AARCH64_SYSROOT"
    -Xswiftc -sdk -Xswiftc "$AARCH64_SYSROOT" -Xswiftc -resource-dir -Xswiftc "$AARCH64_RESOURCE"
    -Xswiftc -DLATCHKEY_SWIFT_RUNTIME_6_0 -Xcc -DLATCHKEY_SWIFT_RUNTIME_6_0
    -Xswiftc -file-prefix-map -Xswiftc "$AARCH64_CACHE=/aarch64-sysroot" -Xcc "-ffile-prefix-map=$AARCH64_CACHE=/aarch64-sysroot")
  MBEDTLS_EXPECTED=$(sed -n 's/^libmbedtls-dev=\([0-9.]*\)-.*/\1/p' <(grep -o 'libmbedtls-dev=[^ ]*' "$ROOT/device/fetch-aarch64-sysroot.sh" | head -1))
  if ! command -v qemu-aarch64-static >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "build-static: installing qemu-user-static (runs the aarch64 binary's --version)" >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends qemu-user-static >&2
    else
      echo "build-static: qemu-aarch64-static is missing (apt-get install qemu-user-static)" >&2; exit 1
    fi
  fi
  RUN=(qemu-aarch64-static)
fi
swift build -c release --scratch-path "$SCRATCH" --product latchkey "${CROSS_FLAGS[@]}" "${PREFIX_MAPS[@]}" "${MBEDTLS_FLAGS[@]}" \
  "${SHIPPED_FLAGS[@]}" 2>&1 |
  grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Write|Wrapping)|getaddrinfo|statically linked applications requires' >&2
BIN_DIR=$(swift build -c release --scratch-path "$SCRATCH" "${CROSS_FLAGS[@]}" --show-bin-path)
OUT="$SCRATCH/latchkey-static"
cp "$BIN_DIR/latchkey" "$OUT"
# .comment holds only compiler version strings (lintian: binary-has-unneeded-section).
# Two sections cannot be made identical across checkouts, so they do not ship: .swift_modhash
# (a hash over each module's compiler inputs, paths included; read by debuggers, not by the
# runtime) and the GNU build ID (lld hashes the unstripped output, whose debug info names the
# build folder). Without them two clones at different paths give the same bytes
# (device/reproducible-check.sh).
if [ "$ARCH" = x86_64 ]; then
  strip --strip-all --remove-section=.comment --remove-section=.swift_modhash --remove-section=.note.gnu.build-id "$OUT"
  objcopy --remove-section=.eh_frame "$OUT"
  ldd_out=$(ldd "$OUT" 2>&1 || true)   # ldd exits 1 on a static binary
  if ! grep -q "not a dynamic executable" <<< "$ldd_out"; then
    echo "build-static: $OUT is dynamically linked:" >&2
    echo "$ldd_out" >&2
    exit 1
  fi
else
  # The same sections go; binutils' strip reads x86 only, the toolchain's llvm-objcopy any ELF.
  OBJCOPY=$(dirname "$(readlink -f "$(command -v swiftc)")")/llvm-objcopy
  "$OBJCOPY" --strip-all --remove-section=.comment --remove-section=.swift_modhash --remove-section=.note.gnu.build-id "$OUT"
  "$OBJCOPY" --remove-section=.eh_frame "$OUT"
  # ldd cannot judge a foreign binary: no program interpreter and no dynamic section is static.
  hdr=$(readelf -h -l -d "$OUT" 2>&1)
  grep -q 'Machine: *AArch64' <<< "$hdr" || { echo "build-static: $OUT is not an AArch64 ELF" >&2; exit 1; }
  if grep -qE 'Requesting program interpreter|INTERP|DYNAMIC' <<< "$hdr"; then
    echo "build-static: $OUT is dynamically linked:" >&2
    grep -E 'interpreter|INTERP|DYNAMIC|NEEDED' <<< "$hdr" >&2
    exit 1
  fi
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
version=$("${RUN[@]}" "$OUT" --version) || { echo "build-static: $OUT does not start" >&2; exit 1; }
echo "version: $version"
if [ -n "$MBEDTLS_EXPECTED" ]; then
  case $version in
    *"(mbedTLS $MBEDTLS_EXPECTED)") ;;
    *) echo "build-static: $OUT says '$version', not mbedTLS $MBEDTLS_EXPECTED (the fetched libmbedtls-dev $MBEDTLS_DEB_VERSION)" >&2; exit 1 ;;
  esac
fi
