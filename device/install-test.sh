#!/usr/bin/env bash
# Installs the .deb as an operator would, on a Debian 12 root that has neither Swift nor mbedTLS,
# and checks what the package promises:
#   1. the root: `mmdebstrap --variant=minbase bookworm` plus man-db, bash-completion and systemd, from
#      Debian's mirror (cached as a tarball in <scratch>/install-root/; about 90 s to make);
#      no Swift runtime, no mbedTLS in it (checked);
#   2. `apt-get install ./latchkey_*.deb` inside it (unshare + chroot), `latchkey --version`;
#   3. with the test IdP up (Tests/run-all.sh exports LATCHKEY_IT_*): a device sign-in over TLS
#      from inside the root (approved from outside, as the phone would), `token`, and
#      `status --format openmetrics` saying signed in (and accepted by promtool when present);
#   4. `man latchkey` renders without warnings, bash's `complete -p latchkey` shows the packaged
#      completion (loaded by bash-completion), the packaged completions and man page are exactly
#      what the installed binary prints; the root's own `systemd-analyze verify` accepts the units;
#   5. `dpkg -r latchkey` removes every file it installed: the root's file list after removal is
#      the list from before the install.
# usage: device/install-test.sh PATH_TO_DEB     env: LATCHKEY_SCRATCH, LATCHKEY_INSTALL_ROOT_CACHE
#        device/install-test.sh --prepare-root  (only step 1's cached root: Tests/run-all.sh makes it
#        at the start, beside the build, since mmdebstrap mostly waits for the mirror)
set -euo pipefail
DEVICE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PREPARE_ONLY=0
if [ "${1:-}" = --prepare-root ]; then PREPARE_ONLY=1; DEB=; else DEB=${1:?usage: install-test.sh PATH_TO_DEB | --prepare-root}; fi
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LATCHKEY_SCRATCH:-$ROOT_DIR/.build}
PACKAGES=man-db,bash-completion,systemd
CACHE=${LATCHKEY_INSTALL_ROOT_CACHE:-$SCRATCH/install-root/bookworm-minbase-${PACKAGES//,/-}.tar}
R=$(mktemp -d /tmp/latchkey-install-root.XXXXXX)
login_pid=
cleanup() {
  [ -n "$login_pid" ] && kill "$login_pid" 2>/dev/null
  umount "$R/proc" 2>/dev/null || true
  rm -rf "$R"
}
trap cleanup EXIT
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }
step() { printf 'install-test [%3ss] %s\n' "$SECONDS" "$*"; }
for tool in mmdebstrap unshare chroot; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install mmdebstrap util-linux coreutils)"
done

# --- 1. the root ------------------------------------------------------------------------------
if [ ! -s "$CACHE" ] || [ -n "$(find "$CACHE" -mtime +7)" ]; then
  step "mmdebstrap --variant=minbase bookworm (+ $PACKAGES) -> $CACHE"
  mkdir -p "$(dirname "$CACHE")"
  mmdebstrap --quiet --variant=minbase --include="$PACKAGES" --format=tar bookworm "$CACHE.part" \
    http://deb.debian.org/debian || fail "mmdebstrap"
  mv -f "$CACHE.part" "$CACHE"
fi
if [ "$PREPARE_ONLY" = 1 ]; then step "root cached in $CACHE ($(du -h "$CACHE" | cut -f1))"; exit 0; fi
step "root from $CACHE"
tar -C "$R" -xf "$CACHE"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$R/etc/hosts"
inroot() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LANG=C.UTF-8 MANWIDTH=80 \
  unshare --mount --pid --fork --mount-proc="$R/proc" chroot "$R" "$@"; }
[ -z "$(find "$R" \( -name 'libswift*' -o -name 'libmbed*' -o -name 'libdispatch*' \) -print -quit)" ] ||
  fail "the root holds a Swift runtime or mbedTLS"
if inroot dpkg-query -W -f='${Package}\n' | grep -iE 'mbedtls|swift'; then fail "the root has Swift or mbedTLS packages"; fi
echo "root: Debian $(cat "$R/etc/debian_version"), $(inroot dpkg-query -W -f='.\n' | wc -l) packages, no Swift, no mbedTLS"

# Every path outside the package manager's own bookkeeping, to compare after `dpkg -r`.
snapshot() {
  (cd "$R" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./run -o -path ./var/lib/dpkg -o -path ./var/cache \
    -o -path ./var/log -o -path ./var/lib/apt -o -path ./root \) -prune -o -print | sort)
}
snapshot > "$R/tmp/before.txt"

# --- 2. install -------------------------------------------------------------------------------
cp "$DEB" "$R/tmp/"
step "apt-get install ./$(basename "$DEB")"
inroot apt-get install -y -q --no-install-recommends "/tmp/$(basename "$DEB")" > "$R/tmp/apt.log" 2>&1 ||
  fail "apt-get install: $(tail -20 "$R/tmp/apt.log")"
inroot dpkg-query -W -f='${Status}\n' latchkey | grep -q "install ok installed" || fail "not installed"
version=$(inroot latchkey --version) || fail "latchkey --version"
echo "installed: $version"
case $version in "latchkey "*" (mbedTLS "*")") ;; *) fail "unexpected version line: $version" ;; esac

# --- 3. a device sign-in from inside the root ----------------------------------------------------
if [ -z "${LATCHKEY_IT_ISSUER_TLS:-}" ]; then
  [ "${CI:-}" = true ] && fail "LATCHKEY_IT_ISSUER_TLS not set under CI: run through Tests/run-all.sh"
  echo "install-test: sign-in skipped (no test IdP; run through Tests/run-all.sh)"
else
  step "device sign-in against $LATCHKEY_IT_ISSUER_TLS"
  cp "$LATCHKEY_IT_CA_FILE" "$R/tmp/ca.pem"
  mkdir -m 700 "$R/tmp/state"
  LK=(latchkey --state-dir /tmp/state --ca-file /tmp/ca.pem)
  events="$R/tmp/login-events.jsonl"
  inroot "${LK[@]}" login --issuer "$LATCHKEY_IT_ISSUER_TLS" --client-id "$LATCHKEY_IT_CLIENT_ES256" \
    --scope "$LATCHKEY_IT_SCOPE" --json > "$events" 2> "$R/tmp/login.err" &
  login_pid=$!
  user_code=$("$DEVICE_DIR/await-user-code.sh" "$events" "$login_pid" || true)
  [ -n "$user_code" ] || fail "no verification event from login: $(cat "$events" "$R/tmp/login.err")"
  "${PYTHON:-python3}" "$LATCHKEY_IT_APPROVE" "$user_code" --issuer "$LATCHKEY_IT_ISSUER_TLS" --ca-file "$LATCHKEY_IT_CA_FILE" ||
    fail "approval"
  status=0; wait "$login_pid" || status=$?; login_pid=
  [ "$status" = 0 ] || fail "login exited $status: $(cat "$R/tmp/login.err")"
  token=$(inroot "${LK[@]}" token) || fail "token"
  [ "$(tr -cd '.' <<< "$token" | wc -c)" -ge 2 ] || fail "token does not look like a JWT"
  echo "sign-in: ok (token ${#token} chars)"
  inroot "${LK[@]}" status --format openmetrics > "$R/tmp/metrics.prom" || fail "status --format openmetrics"
  grep -q '^latchkey_signed_in{profile="default"} 1$' "$R/tmp/metrics.prom" || fail "metrics: $(cat "$R/tmp/metrics.prom")"
  if grep -qF "$token" "$R/tmp/metrics.prom"; then fail "the access token is in the metrics"; fi
  if command -v promtool >/dev/null; then promtool check metrics < "$R/tmp/metrics.prom" || fail "promtool check metrics"; fi
  echo "metrics: signed in"
  inroot "${LK[@]}" logout >/dev/null 2>&1 || fail "logout"
  rm -rf "$R/tmp/state"
fi

# --- 4. man page, completion, units -----------------------------------------------------------
step "man latchkey, complete -p latchkey, systemd-analyze verify"
inroot man --warnings latchkey > "$R/tmp/man.txt" 2> "$R/tmp/man.err" || fail "man latchkey: $(cat "$R/tmp/man.err")"
[ ! -s "$R/tmp/man.err" ] || fail "man latchkey warns: $(cat "$R/tmp/man.err")"
grep -q "^LATCHKEY(1)" "$R/tmp/man.txt" && grep -q -- "--all-profiles" "$R/tmp/man.txt" ||
  fail "man latchkey rendered something else: $(head -5 "$R/tmp/man.txt")"
echo "man: $(wc -l < "$R/tmp/man.txt") lines"
completion=$(inroot bash -c 'source /usr/share/bash-completion/bash_completion && _completion_loader latchkey; complete -p latchkey') ||
  fail "bash has no completion for latchkey"
[ "$completion" = "complete -F _latchkey latchkey" ] || fail "complete -p latchkey: $completion"
echo "bash: $completion"
# Stale or hand-made files would differ from what the installed binary's catalog gives.
for pair in bash:usr/share/bash-completion/completions/latchkey zsh:usr/share/zsh/vendor-completions/_latchkey \
            fish:usr/share/fish/vendor_completions.d/latchkey.fish; do
  inroot latchkey completion "${pair%%:*}" | cmp -s - "$R/${pair#*:}" || fail "/${pair#*:} is not the binary's 'completion ${pair%%:*}'"
done
inroot latchkey manual | cmp -s - <(gzip -dc "$R/usr/share/man/man1/latchkey.1.gz") || fail "the packaged man page is not the binary's 'manual'"
units=()
for u in "$R"/usr/lib/systemd/system/latchkey-*; do units+=("/usr/lib/systemd/system/$(basename "$u")"); done
((${#units[@]} == 4)) || fail "expected 4 units, found: ${units[*]}"
inroot env SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "${units[@]}" > "$R/tmp/verify.log" 2>&1 ||
  fail "systemd-analyze verify: $(cat "$R/tmp/verify.log")"
if grep -qiE "error|invalid|unknown|not found|No such" "$R/tmp/verify.log"; then fail "systemd-analyze verify: $(cat "$R/tmp/verify.log")"; fi
echo "units: ${#units[@]} verified"

# --- 5. removal --------------------------------------------------------------------------------
step "dpkg -r latchkey"
inroot dpkg-query -L latchkey > "$R/tmp/installed-files.txt"
inroot dpkg -r latchkey > "$R/tmp/remove.log" 2>&1 || fail "dpkg -r: $(cat "$R/tmp/remove.log")"
snapshot > "$R/tmp/after.txt"
if ! diff -u "$R/tmp/before.txt" "$R/tmp/after.txt"; then fail "dpkg -r left the root different (diff above)"; fi
while read -r path; do
  [ -z "$path" ] || [ -d "$R$path" ] || [ ! -e "$R$path" ] || fail "$path still there after dpkg -r"
done < "$R/tmp/installed-files.txt"
echo "removal: the $(grep -c . "$R/tmp/installed-files.txt") paths it installed are gone; the root is as before"
step "install test passed"
