#!/usr/bin/env bash
# Fetch Debian 13's mbedTLS 3.6 LTS (libmbedtls-dev: headers and the static libmbedtls.a,
# libmbedx509.a, libmbedcrypto.a) for the shipped binary, and print where it is:
#   MBEDTLS_INCLUDE=<dir>   MBEDTLS_LIB=<dir>   MBEDTLS_DEB_VERSION=<version>   MBEDTLS_DEB=<file>
# (shell assignments: `eval "$(device/fetch-mbedtls.sh)"`). Everything else goes to stderr.
#
# The package is verified by apt: a private apt configuration (its own sources list, lists, cache
# and empty dpkg status) reads trixie's signed InRelease with the machine's debian-archive-keyring
# and checks the .deb against the SHA256 in the signed Packages index. Nothing of the machine's apt
# or dpkg configuration is read or written except the keyring and the mirror it already names.
# The cache is outside the checkout, so a clean clone does not download again; a second run with
# the cache in place touches no network.
#
# Only libmbedtls-dev is fetched: the build links its static archives (Sources/CMbedTLS/module.modulemap
# names the .a files), so the shared-library packages it depends on (libmbedtls21, libmbedx509-7,
# libmbedcrypto16) are never needed.
#
# The version is pinned, so two builds link the same bytes (device/reproducible-check.sh). When
# Debian publishes a fix, the mirror drops the old version and this script fails naming the new
# one; bumping MBEDTLS_PIN here is how a security fix reaches the binary (docs/security.md).
#
# env: LATCHKEY_MBEDTLS_CACHE  cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/latchkey-mbedtls)
#      LATCHKEY_MBEDTLS_ARCH   Debian architecture (default amd64)
#      LATCHKEY_DEBIAN_MIRROR  Debian archive URL (default: the one the machine's apt sources use
#                              for bookworm main; its -security sibling from bookworm-security)
set -euo pipefail
MBEDTLS_PIN=3.6.6-0.1~deb13u1
SUITE=trixie
ARCH=${LATCHKEY_MBEDTLS_ARCH:-amd64}
CACHE=${LATCHKEY_MBEDTLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latchkey-mbedtls}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

case $ARCH in
  amd64) triplet=x86_64-linux-gnu ;;
  arm64) triplet=aarch64-linux-gnu ;;
  *) echo "fetch-mbedtls: unsupported architecture $ARCH" >&2; exit 2 ;;
esac
ROOTFS="$CACHE/$ARCH/$MBEDTLS_PIN"

emit() {
  echo "MBEDTLS_INCLUDE=$ROOTFS/usr/include"
  echo "MBEDTLS_LIB=$ROOTFS/usr/lib/$triplet"
  echo "MBEDTLS_DEB_VERSION=$MBEDTLS_PIN"
  echo "MBEDTLS_DEB=$(ls "$CACHE/apt/cache/archives/"libmbedtls-dev_*_"$ARCH".deb 2>/dev/null | head -1)"
}

complete() {
  [ -f "$ROOTFS/usr/include/mbedtls/version.h" ] &&
    [ -f "$ROOTFS/usr/lib/$triplet/libmbedtls.a" ] &&
    [ -f "$ROOTFS/usr/lib/$triplet/libmbedx509.a" ] &&
    [ -f "$ROOTFS/usr/lib/$triplet/libmbedcrypto.a" ]
}

if complete; then emit; exit 0; fi

[ -r "$KEYRING" ] || { echo "fetch-mbedtls: $KEYRING missing (package debian-archive-keyring)" >&2; exit 1; }

# The mirror: whatever the machine's apt already uses for Debian (no host is named in the repo).
mirror=${LATCHKEY_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(apt-cache policy 2>/dev/null | awk '$3 ~ /^bookworm\/main$/ {print $2; exit}')
fi
[ -n "$mirror" ] || { echo "fetch-mbedtls: no Debian mirror in the apt sources; set LATCHKEY_DEBIAN_MIRROR" >&2; exit 1; }
security=$(apt-cache policy 2>/dev/null | awk '$3 ~ /^bookworm-security\/main$/ {print $2; exit}')

APT="$CACHE/apt"
mkdir -p "$APT/etc/preferences.d" "$APT/etc/sources.list.d" "$APT/state/lists/partial" \
  "$APT/cache/archives/partial"
: > "$APT/state/status"
{
  echo "deb [arch=$ARCH signed-by=$KEYRING] $mirror $SUITE main"
  [ -z "$security" ] || echo "deb [arch=$ARCH signed-by=$KEYRING] $security $SUITE-security main"
} > "$APT/etc/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$APT/etc/sources.list" -o "Dir::Etc::SourceParts=$APT/etc/sources.list.d"
  -o "Dir::Etc::Preferences=$APT/etc/preferences" -o "Dir::Etc::PreferencesParts=$APT/etc/preferences.d"
  -o "Dir::State=$APT/state" -o "Dir::State::status=$APT/state/status" -o "Dir::Cache=$APT/cache"
  -o "APT::Architecture=$ARCH" -o "APT::Architectures::=$ARCH" -o "Acquire::Languages=none"
  -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
)

deb=$(ls "$APT/cache/archives/"libmbedtls-dev_*_"$ARCH".deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
  echo "fetch-mbedtls: fetching libmbedtls-dev $MBEDTLS_PIN ($SUITE, $ARCH) through apt" >&2
  apt-get "${apt_opts[@]}" -q update >&2
  have=$(apt-cache "${apt_opts[@]}" madison libmbedtls-dev | awk -F'|' '{gsub(/ /,"",$2); print $2}')
  if ! grep -qxF "$MBEDTLS_PIN" <<< "$have"; then
    echo "fetch-mbedtls: $SUITE no longer has libmbedtls-dev $MBEDTLS_PIN; it has: $(tr '\n' ' ' <<< "$have")" >&2
    echo "fetch-mbedtls: read the Debian changelog, then raise MBEDTLS_PIN in $0" >&2
    exit 1
  fi
  # `apt-get download` checks the file against the SHA256 of the signed index (only this one
  # package: with an empty dpkg status, `install --download-only` would fetch half of trixie).
  (cd "$APT/cache/archives" && apt-get "${apt_opts[@]}" -q download "libmbedtls-dev=$MBEDTLS_PIN" >&2)
  deb=$(ls "$APT/cache/archives/"libmbedtls-dev_*_"$ARCH".deb | head -1)
fi

tmp=$(mktemp -d "$CACHE/extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
got=$(dpkg-deb -f "$deb" Version)
[ "$got" = "$MBEDTLS_PIN" ] || { echo "fetch-mbedtls: $deb is $got, not $MBEDTLS_PIN" >&2; exit 1; }
# The .so links point at the shared-library packages, which are not fetched.
find "$tmp/usr/lib" -name '*.so' -type l -delete
mkdir -p "$(dirname "$ROOTFS")"
rm -rf "$ROOTFS"
mv "$tmp" "$ROOTFS"
trap - EXIT
complete || { echo "fetch-mbedtls: $deb lacks the headers or static archives" >&2; exit 1; }
emit
