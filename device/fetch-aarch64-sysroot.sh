#!/usr/bin/env bash
# Fetch what the aarch64 build links, all from Debian's arm64 packages, and make a sysroot and a
# Swift resource folder that the toolchain's 6.3.1 compiler can build against. Prints:
#   AARCH64_SYSROOT=<dir>  AARCH64_RESOURCE=<dir>  AARCH64_MBEDTLS_INCLUDE=<dir>
#   AARCH64_MBEDTLS_LIB=<dir>  AARCH64_DEBS=<dir>  AARCH64_SWIFT_RUNTIME=<version>
# (shell assignments: `eval "$(device/fetch-aarch64-sysroot.sh)"`). Everything else goes to stderr.
#
# What is fetched (docs/deploy.md "CPUs"; the measurements are in the shared spec arm64.md):
#   trixie   swiftlang 6.0.3 (its static runtime, usr/libexec/swift/lib/swift_static, and the
#            stdlib's .swiftinterface files; ~400 MB, the one big download), libc6 and libc6-dev
#            (the runtime was built against trixie's glibc 2.41), libgcc-14-dev and
#            libstdc++-14-dev (crt files, libgcc.a, libstdc++.a for the runtime's C++),
#            linux-libc-dev (kernel headers glibc's include);
#   bookworm libmbedtls-dev 2.28 (static .a files): the same mbedTLS release the x86_64 binary
#            links, since the acceptance cli suite asks for "(mbedTLS 2.28.x)" in --version.
#
# Verified by apt as usual: a private apt configuration (its own sources list, lists, cache and an
# empty dpkg status, the same pattern as device/fetch-mbedtls.sh) reads the signed InRelease files
# with the machine's debian-archive-keyring, and `apt-get download` checks each .deb against the
# SHA256 of the signed Packages index. The machine's apt sources and dpkg architectures are not
# changed (no sources entry is written under /etc, no `dpkg --add-architecture`).
# The cache is outside the checkout; a second run with the cache in place touches no network.
#
# Every version is pinned (two builds link the same bytes, device/reproducible-check.sh). When
# Debian replaces one, this script fails naming what the archive has now; raising the pin here is
# how a fix reaches the aarch64 binary.
#
# The Swift runtime is 6.0.3 and the compiler 6.3.1; what that takes (all done here, once):
#  1. the stdlib's binary .swiftmodule files (6.0.3's) are removed from the resource folder, keeping
#     the .swiftinterface files: 6.3.1 refuses the binary ones ("module compiled with Swift 6.0.3
#     cannot be imported"), and rebuilds each module from its interface on the first build;
#  2. the -licu… lines are removed from static-executable-args.lnk and static-stdlib-args.lnk:
#     Debian's runtime has no ICU archives, and nothing linked here uses ICU;
#  3. <resource>/clang links to the toolchain's clang resource folder (its limits.h, stddef.h);
#  4. <sysroot>/usr/lib/swift_static links to the resource folder (the driver looks for
#     swiftrt.o there).
#
# env: LATCHKEY_AARCH64_CACHE   cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/latchkey-aarch64)
#      LATCHKEY_DEBIAN_MIRROR   Debian archive URL (default: the one the machine's apt sources use
#                               for bookworm main; its -security sibling from bookworm-security)
#      LATCHKEY_SWIFT           the toolchain's swiftc (default: `swiftc` on PATH)
set -euo pipefail
# package=version suite; keep sorted by suite.
PINS=(
  "swiftlang=6.0.3-2 trixie"
  "libc6=2.41-12+deb13u5 trixie"
  "libc6-dev=2.41-12+deb13u5 trixie"
  "libgcc-14-dev=14.2.0-19 trixie"
  "libstdc++-14-dev=14.2.0-19 trixie"
  "linux-libc-dev=6.12.118-1 trixie-security"
  "libmbedtls-dev=2.28.3-1 bookworm"
)
ARCH=arm64
TRIPLET=aarch64-linux-gnu
CACHE=${LATCHKEY_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latchkey-aarch64}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
die() { echo "fetch-aarch64-sysroot: $*" >&2; exit 1; }

SWIFTC=${LATCHKEY_SWIFT:-$(command -v swiftc || true)}
[ -n "$SWIFTC" ] || die "no swiftc on PATH (set LATCHKEY_SWIFT)"
TOOLCHAIN=$(cd "$(dirname "$(readlink -f "$SWIFTC")")/.." && pwd)
CLANG_RES=$(ls -d "$TOOLCHAIN"/lib/clang/* 2>/dev/null | sort -V | tail -1)
[ -d "$CLANG_RES/include" ] || die "no clang resource folder under $TOOLCHAIN/lib/clang"

# One folder per set of pins: a raised pin makes a new sysroot, never a mix.
KEY=$(printf '%s\n' "${PINS[@]}" | sha256sum | cut -c1-12)
SYS="$CACHE/sysroot-$KEY"
RES="$CACHE/resource-$KEY"
DEBS="$CACHE/apt/cache/archives"

emit() {
  echo "AARCH64_SYSROOT=$SYS"
  echo "AARCH64_RESOURCE=$RES"
  echo "AARCH64_MBEDTLS_INCLUDE=$SYS/usr/include"
  echo "AARCH64_MBEDTLS_LIB=$SYS/usr/lib/$TRIPLET"
  echo "AARCH64_DEBS=$DEBS"
  echo "AARCH64_SWIFT_RUNTIME=$(sed -n 's/^swiftlang=\([^ ]*\) .*/\1/p' <<< "${PINS[0]}")"
}
# The resource folder's clang link names this toolchain: re-point it if the toolchain moved.
if [ -f "$SYS/.complete" ] && [ -f "$RES/.complete" ]; then
  [ "$(readlink "$RES/clang")" = "$CLANG_RES" ] || ln -sfn "$CLANG_RES" "$RES/clang"
  emit; exit 0
fi

deb_file() { # name version -> the cached .deb, or nothing
  local v=${2//:/%3a}
  ls "$DEBS/$1_${v}_$ARCH.deb" "$DEBS/$1_${v}_all.deb" 2>/dev/null | head -1 || true
}
missing=()
for pin in "${PINS[@]}"; do
  pv=${pin%% *}
  [ -n "$(deb_file "${pv%%=*}" "${pv#*=}")" ] || missing+=("$pin")
done

if [ ${#missing[@]} -gt 0 ]; then
  [ -r "$KEYRING" ] || die "$KEYRING missing (package debian-archive-keyring)"
  mirror=${LATCHKEY_DEBIAN_MIRROR:-}
  [ -n "$mirror" ] || mirror=$(apt-cache policy 2>/dev/null | awk '$3 ~ /^bookworm\/main$/ {print $2; exit}')
  [ -n "$mirror" ] || die "no Debian mirror in the apt sources; set LATCHKEY_DEBIAN_MIRROR"
  security=$(apt-cache policy 2>/dev/null | awk '$3 ~ /^bookworm-security\/main$/ {print $2; exit}')
  APT="$CACHE/apt"
  mkdir -p "$APT/etc/preferences.d" "$APT/etc/sources.list.d" "$APT/state/lists/partial" "$DEBS/partial"
  : > "$APT/state/status"
  {
    for suite in bookworm trixie; do
      echo "deb [arch=$ARCH signed-by=$KEYRING] $mirror $suite main"
      [ -z "$security" ] || echo "deb [arch=$ARCH signed-by=$KEYRING] $security $suite-security main"
    done
  } > "$APT/etc/sources.list"
  apt_opts=(
    -o "Dir::Etc::SourceList=$APT/etc/sources.list" -o "Dir::Etc::SourceParts=$APT/etc/sources.list.d"
    -o "Dir::Etc::Preferences=$APT/etc/preferences" -o "Dir::Etc::PreferencesParts=$APT/etc/preferences.d"
    -o "Dir::State=$APT/state" -o "Dir::State::status=$APT/state/status" -o "Dir::Cache=$APT/cache"
    -o "APT::Architecture=$ARCH" -o "APT::Architectures::=$ARCH" -o "Acquire::Languages=none"
    -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
  )
  echo "fetch-aarch64-sysroot: fetching ${#missing[@]} arm64 package(s) through apt (swiftlang is ~400 MB)" >&2
  apt-get "${apt_opts[@]}" -q update >&2
  want=()
  for pin in "${missing[@]}"; do
    pv=${pin%% *}; name=${pv%%=*}; ver=${pv#*=}
    have=$(apt-cache "${apt_opts[@]}" madison "$name" | awk -F'|' '{gsub(/ /,"",$2); print $2}' | sort -u)
    grep -qxF "$ver" <<< "$have" ||
      die "the archive no longer has $name $ver; it has: $(tr '\n' ' ' <<< "$have"). Read the Debian changelog, then raise the pin in $0"
    want+=("$pv")
  done
  # `apt-get download` checks each file against the SHA256 of the signed index (only these
  # packages: with an empty dpkg status, `install --download-only` would fetch half of trixie).
  (cd "$DEBS" && apt-get "${apt_opts[@]}" -q download "${want[@]}" >&2)
fi

# ---- the sysroot: every package unpacked into one folder
tmp=$(mktemp -d "$CACHE/sysroot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for pin in "${PINS[@]}"; do
  pv=${pin%% *}; name=${pv%%=*}; ver=${pv#*=}
  deb=$(deb_file "$name" "$ver")
  [ -n "$deb" ] || die "$name $ver was not downloaded"
  got=$(dpkg-deb -f "$deb" Version)
  [ "$got" = "$ver" ] || die "$deb is $got, not $ver"
  if [ "$name" = swiftlang ]; then
    # Only the static runtime and the stdlib's interfaces are used (not the 2 GB of tools).
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/libexec/swift/lib/swift_static/*'
  else
    dpkg-deb -x "$deb" "$tmp"
  fi
done
# The .so links point at shared-library packages that are not fetched; the link is static only.
find "$tmp/usr/lib" -name '*.so' -type l -delete
# The .so linker scripts of libc6-dev name the shared libc; static links never read them, but a
# stray -lc must not find them either.
rm -f "$tmp/usr/lib/$TRIPLET/libc.so" "$tmp/usr/lib/$TRIPLET/libm.so"

# ---- the resource folder (steps 1-4 above)
stat=$tmp/usr/libexec/swift/lib/swift_static
[ -f "$stat/linux/static-executable-args.lnk" ] || die "swiftlang has no static runtime at usr/libexec/swift/lib/swift_static"
rtmp="$tmp/resource"
mv "$stat" "$rtmp"
# 1. binary modules out, interfaces kept
find "$rtmp" -path '*.swiftmodule/*' \( -name '*.swiftmodule' -o -name '*.swiftdoc' -o -name '*.abi.json' -o -name '*.swiftsourceinfo' \) -type f -delete
n_if=$(find "$rtmp" -name '*.swiftinterface' | wc -l)
[ "$n_if" -gt 0 ] || die "no .swiftinterface files in swiftlang's static runtime"
# 2. no ICU
sed -i '/^-licu/d' "$rtmp/linux/static-executable-args.lnk" "$rtmp/linux/static-stdlib-args.lnk"
# 3. the toolchain's clang headers
ln -sfn "$CLANG_RES" "$rtmp/clang"
touch "$rtmp/.complete"
rm -rf "$RES"; mv "$rtmp" "$RES"
# 4. the driver's swiftrt.o
ln -sfn "$RES" "$tmp/usr/lib/swift_static"
[ -f "$tmp/usr/lib/$TRIPLET/libmbedtls.a" ] || die "libmbedtls-dev has no libmbedtls.a"
[ -f "$tmp/usr/lib/$TRIPLET/libc.a" ] || die "libc6-dev has no libc.a"
touch "$tmp/.complete"
rm -rf "$SYS"; mv "$tmp" "$SYS"
trap - EXIT
echo "fetch-aarch64-sysroot: sysroot $SYS, resource folder $RES ($n_if interfaces)" >&2
emit
