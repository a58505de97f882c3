#!/usr/bin/env bash
# Builds latchkey_<version>_amd64.deb (or _arm64.deb for an aarch64 binary) from the static binary
# with Debian's own dpkg-deb.
#   device/package-deb.sh [STATIC_BINARY [OUT_DIR]]   (default: <scratch>/latchkey-static, <scratch>;
#   the aarch64 one: device/package-deb.sh .build-aarch64/latchkey-static)
# Prints `deb:`, `size:` and `sha256:`. The man page and the completions are made by running the
# binary being packaged (`latchkey manual`, `latchkey completion SHELL`), so they describe exactly
# that binary's command catalog. Deterministic: every mtime is SOURCE_DATE_EPOCH (the commit's
# time unless set), files are root:root with fixed modes, gzip -n, and dpkg-deb writes its
# members sorted; the same binary and commit give the same .deb byte for byte.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LATCHKEY_SCRATCH:-$ROOT/.build}
BIN=${1:-$SCRATCH/latchkey-static}
OUT_DIR=${2:-$SCRATCH}
die() { echo "package-deb: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "no static binary at $BIN (run device/build-static.sh)"
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing (apt-get install dpkg)"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct)}
export TZ=UTC LC_ALL=C.UTF-8

# The CPU is the binary's: an aarch64 one (device/build-static.sh --arch aarch64) makes
# latchkey_<version>_arm64.deb, and runs under qemu-aarch64-static for its version, man page and
# completions (the same catalog, so the same bytes as the amd64 package's).
RUN=()
case $(readelf -h "$BIN" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
  *X86-64*) DEB_ARCH=amd64 ;;
  *AArch64*) DEB_ARCH=arm64; RUN=(qemu-aarch64-static)
    command -v qemu-aarch64-static >/dev/null || die "an aarch64 binary needs qemu-aarch64-static here (apt-get install qemu-user-static)" ;;
  *) die "$BIN is neither an x86-64 nor an AArch64 ELF" ;;
esac
# `latchkey 0.1.0 (mbedTLS 2.28.3)`, or 3.6.6 with LATCHKEY_MBEDTLS=3.6
version_line=$("${RUN[@]}" "$BIN" --version)
upstream=$(sed -n 's/^latchkey \([0-9][0-9.]*\) (mbedTLS \([0-9.]*\))$/\1/p' <<< "$version_line")
[ -n "$upstream" ] || die "cannot read the version from '$version_line'"
# Debian revision 1: not a native package (upstream is this repository), so the Debian
# changelog is changelog.Debian.gz, as lintian expects.
VERSION="$upstream-${LATCHKEY_DEB_REVISION:-1}"
commit=$(git -C "$ROOT" rev-parse HEAD)
maintainer=${LATCHKEY_DEB_MAINTAINER:-$(git -C "$ROOT" log -1 --format='%an <%ae>')}
# What is linked in statically, as Debian source package versions: Built-Using lets the archive
# keep exactly these sources (glibc's LGPL asks that they stay available, docs/deploy.md).
# mbedTLS is the system's libmbedtls-dev (Debian 12's 2.28), or Debian 13's 3.6 fetched by
# device/fetch-mbedtls.sh when the binary was built with LATCHKEY_MBEDTLS=3.6: the binary's
# --version says which, and it must be one of the two.
linked=$(sed -n 's/^latchkey [0-9.]* (mbedTLS \([0-9.]*\))$/\1/p' <<< "$version_line")
system_mbedtls=$(dpkg-query -W -f='${Version}' libmbedtls-dev)
# The arm64 binary links only packages that device/fetch-aarch64-sysroot.sh fetched: glibc and
# gcc-14's libstdc++/libgcc from trixie, the Swift runtime from trixie's swiftlang, mbedTLS from
# bookworm; their Source and Version come from the very .deb files.
deb_source() { # a cached .deb -> "source (= version)"
  local src; src=$(dpkg-deb -f "$1" Source); src=${src%% *}
  echo "${src:-$(dpkg-deb -f "$1" Package)} (= $(dpkg-deb -f "$1" Version))"
}
if [ "$DEB_ARCH" = arm64 ]; then
  eval "$("$ROOT/device/fetch-aarch64-sysroot.sh")"
  mbedtls_deb=$(ls "$AARCH64_DEBS"/libmbedtls-dev_*_arm64.deb | head -1)
  mbedtls_version=$(dpkg-deb -f "$mbedtls_deb" Version)
  [ "$linked" = "${mbedtls_version%%-*}" ] || die "$BIN links mbedTLS '$linked', not the fetched arm64 libmbedtls-dev $mbedtls_version"
  built_using=$(deb_source "$(ls "$AARCH64_DEBS"/libc6-dev_*_arm64.deb | head -1)"),$' '$(deb_source "$(ls "$AARCH64_DEBS"/libstdc++-14-dev_*_arm64.deb | head -1)"),$' '$(deb_source "$mbedtls_deb"),$' '$(deb_source "$(ls "$AARCH64_DEBS"/swiftlang_*_arm64.deb | head -1)")
elif [ "$linked" = "${system_mbedtls%%-*}" ]; then
  built_using=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' libc6-dev),$' '$(dpkg-query -W -f='${source:Package} (= ${source:Version})' libmbedtls-dev)
else
  eval "$("$ROOT/device/fetch-mbedtls.sh")"
  [ "$linked" = "${MBEDTLS_DEB_VERSION%%-*}" ] ||
    die "$BIN links mbedTLS '$linked': neither the system's libmbedtls-dev $system_mbedtls nor the fetched $MBEDTLS_DEB_VERSION"
  mbedtls_source=$(dpkg-deb -f "$MBEDTLS_DEB" Source)
  mbedtls_source=${mbedtls_source%% *}
  built_using=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' libc6-dev),$' '"${mbedtls_source:-mbedtls} (= $MBEDTLS_DEB_VERSION)"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/latchkey-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
R=$WORK/root
DOC=$R/usr/share/doc/latchkey
install -d -m 0755 "$R/DEBIAN" "$R/usr/bin" "$R/usr/lib/systemd/system" "$R/usr/share/man/man1" \
  "$R/usr/share/bash-completion/completions" "$R/usr/share/zsh/vendor-completions" \
  "$R/usr/share/fish/vendor_completions.d" "$DOC" "$R/usr/share/lintian/overrides"
install -m 0755 "$BIN" "$R/usr/bin/latchkey"

# Units: the ones a device runs. They are system units (a dynamic user, no user units); with
# DynamicUser= and StateDirectory=/RuntimeDirectory= systemd makes the user and the folders, so
# no sysusers.d or tmpfiles.d entry is needed. Not enabled on install: a unit needs a signed-in
# profile and the credential first (docs/deploy.md).
for unit in latchkey-refresh.service latchkey-refresh.timer latchkey-metrics.service latchkey-metrics.timer; do
  sed 's|/usr/local/bin/latchkey|/usr/bin/latchkey|g' "$ROOT/device/systemd/$unit" > "$R/usr/lib/systemd/system/$unit"
done

"${RUN[@]}" "$BIN" manual | gzip -9n > "$R/usr/share/man/man1/latchkey.1.gz"
"${RUN[@]}" "$BIN" completion bash > "$R/usr/share/bash-completion/completions/latchkey"
"${RUN[@]}" "$BIN" completion zsh > "$R/usr/share/zsh/vendor-completions/_latchkey"
"${RUN[@]}" "$BIN" completion fish > "$R/usr/share/fish/vendor_completions.d/latchkey.fish"

install -m 0644 "$ROOT/device/debian/copyright" "$DOC/copyright"
install -m 0644 "$ROOT/device/debian/lintian-overrides" "$R/usr/share/lintian/overrides/latchkey"
# Policy 12.3: documentation over 4 kB is compressed.
for doc in README.md docs/cli.md docs/deploy.md docs/security.md docs/token-file.md; do
  gzip -9nc "$ROOT/$doc" > "$DOC/$(basename "$doc").gz"
done
{
  echo "latchkey ($VERSION) unstable; urgency=medium"
  echo
  echo "  * $version_line."
  echo "  * Built by device/package-deb.sh from commit"
  echo "    $commit."
  echo
  echo " -- $maintainer  $(date -u -d "@$SOURCE_DATE_EPOCH" -R)"
} | gzip -9n > "$DOC/changelog.Debian.gz"

installed_size=$(du -sk --apparent-size --exclude=DEBIAN "$R" | cut -f1)
cat > "$R/DEBIAN/control" <<CONTROL
Package: latchkey
Version: $VERSION
Architecture: $DEB_ARCH
Maintainer: $maintainer
Installed-Size: $installed_size
Built-Using: $built_using
Section: net
Priority: optional
Description: OAuth 2.0 / OpenID Connect sign-in for devices without a browser
 latchkey signs devices that have no browser into OAuth 2.0 and OpenID Connect
 identity providers (device authorization grant, code flow with PKCE, CIBA,
 client credentials) and keeps their tokens fresh in an encrypted token file,
 with DPoP and mTLS bound tokens, a git credential helper and metrics for
 node_exporter's textfile collector.
 .
 One fully static binary (mbedTLS, the Swift runtime and glibc linked in),
 with its man page, shell completions and systemd units.
CONTROL

# Fixed modes and times everywhere, then md5sums over a sorted list.
find "$R" -type d -exec chmod 0755 {} +
find "$R" -type f ! -path "$R/usr/bin/latchkey" -exec chmod 0644 {} +
(cd "$R" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$R/DEBIAN/md5sums"
chmod 0644 "$R/DEBIAN/md5sums" "$R/DEBIAN/control"
find "$R" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$OUT_DIR"
DEB="$OUT_DIR/latchkey_${VERSION}_${DEB_ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$R" "$DEB" >/dev/null
echo "deb: $DEB"
echo "size: $(stat -c %s "$DEB") bytes"
echo "sha256: $(sha256sum "$DEB" | cut -d' ' -f1)"
