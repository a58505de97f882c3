#!/usr/bin/env bash
# Latchkey's main job, end to end, on this machine: sign a browserless device in to a real OIDC
# provider with the device flow, over TLS, and use the token.
#   1. installs what it needs (Debian packages; the Swift toolchain must already be there),
#   2. builds the fully static `latchkey` (device/build-static.sh),
#   3. starts a local Glewlwyd identity provider behind TLS (Tests/Harness/idp/start-idp.sh),
#   4. runs `latchkey login`: the URL, the code and the QR code appear,
#   5. approves the code the way a person on a phone would (scripted, and announced as such),
#   6. prints `latchkey status` and a (shortened) token header,
# and stops the identity provider and removes its temporary state on exit.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d /tmp/latchkey-demo.XXXXXX)
login_pid=
cleanup() {
  [ -n "$login_pid" ] && kill "$login_pid" 2>/dev/null
  "$ROOT/Tests/Harness/idp/stop-idp.sh" "$WORK/idp" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "1/6 Installing what the demo needs"
need=()
for p in libmbedtls-dev glewlwyd sqlite3 stunnel4 openssl curl python3 ca-certificates bc binutils; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if ! python3 -c 'import cryptography' 2>/dev/null; then
  python3 -m pip install -q cryptography 2>/dev/null ||
    { python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install -q cryptography && export PATH="$WORK/venv/bin:$PATH"; }
fi
command -v swift >/dev/null || { echo "the Swift toolchain (6.x) must be installed first" >&2; exit 1; }
echo "ok"

say "2/6 Building the fully static latchkey"
"$ROOT/device/build-static.sh" > "$WORK/static.txt"
cat "$WORK/static.txt"
BIN=$(sed -n 's/^path: //p' "$WORK/static.txt")

say "3/6 Starting a local OpenID provider (Glewlwyd) behind TLS"
"$ROOT/Tests/Harness/idp/start-idp.sh" "$WORK/idp"
# shellcheck disable=SC1091
source "$WORK/idp/env.sh"
LK=("$BIN" --state-dir "$WORK/state" --ca-file "$LATCHKEY_IT_CA_FILE")

say "4/6 latchkey login (the device shows a URL, a code and a QR code)"
mkfifo "$WORK/events"
# The provider's DPoP-enabled OIDC instance: `--dpop auto` binds the tokens to a key made on the
# device, because its metadata advertises ES256 proofs (RFC 9449).
ISSUER=$LATCHKEY_IT_ISSUER_DPOP_TLS
"${LK[@]}" login --issuer "$ISSUER" --client-id "$LATCHKEY_IT_CLIENT_DPOP" \
  --scope "$LATCHKEY_IT_SCOPE" --json --qr > "$WORK/events" 2> "$WORK/login.err" &
login_pid=$!
# The QR code goes to login's stderr just after the verification event reaches the pipe; sent to the
# terminal directly it came out before the lines that introduce it. It is kept in a file and shown
# once complete: a QR block is square, so its first line's width says how many lines follow (two
# module rows a line). The deadline is for a login that fails half way.
show_qr() {
  python3 - "$WORK/login.err" <<'PY'
import re, sys, time
blocks = ("\u2588", "\u2580", "\u2584")
deadline = time.monotonic() + 10
while True:
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if any(b in l for b in blocks)), None)
    if start is not None:
        width = len(re.sub(r"\x1b\[[0-9;]*m", "", lines[start]))
        rows = (width + 1) // 2
        if len(lines) - 1 - start >= rows:   # the last element is what follows the final newline
            print("\n".join(lines[start:start + rows]))
            break
    if time.monotonic() > deadline:
        sys.stdout.write(text)
        break
    time.sleep(0.05)
PY
}
user_code=
while IFS= read -r line; do
  case $line in
    *'"event":"verification"'*)
      user_code=$(sed -n 's/.*"user_code":"\([^"]*\)".*/\1/p' <<< "$line")
      uri=$(sed -n 's/.*"verification_uri":"\([^"]*\)".*/\1/p' <<< "$line")
      printf '\n  Open %s and enter the code %s, or scan this QR code:\n\n' "$uri" "$user_code"
      show_qr
      say "5/6 >>> STAND-IN FOR THE PHONE: a script now signs in as 'alice' and approves $user_code <<<"
      python3 "$LATCHKEY_IT_APPROVE" "$user_code" --issuer "$ISSUER" --ca-file "$LATCHKEY_IT_CA_FILE"
      ;;
    *'"event":"authorized"'*) echo "  device: signed in" ;;
    *'"event":"error"'*) echo "  device: $line" ;;
  esac
done < "$WORK/events"
status=0; wait "$login_pid" || status=$?; login_pid=
[ -n "$user_code" ] && [ "$status" = 0 ] || { cat "$WORK/login.err" >&2; echo "login failed (exit $status)" >&2; exit 1; }

say "6/6 latchkey status, then the token in use: latchkey fetch of the provider's userinfo endpoint"
"${LK[@]}" status
echo "  \$ latchkey fetch $ISSUER/userinfo"
"${LK[@]}" fetch "$ISSUER/userinfo"
echo
say "Done: the identity provider is being stopped and its temporary state removed."
