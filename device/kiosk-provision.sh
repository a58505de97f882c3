#!/usr/bin/env bash
# Provision a kiosk: sign it in with the device flow, show the URL, code and QR on the kiosk's own
# screen (here: the terminal), branch on every documented exit code, retry when the code expires,
# and finally start the kiosk's service.
#
# Zero-touch (issue 26): with KIOSK_PROVISIONING_TOKEN_FILE and no KIOSK_CLIENT_ID, the kiosk first
# registers itself as its own client (`latchkey register`, RFC 7591) with a key it generates, then
# signs in as that client. A kiosk already registered (a reboot during provisioning) skips that step.
#
# env: KIOSK_ISSUER (required); KIOSK_CLIENT_ID (required unless KIOSK_PROVISIONING_TOKEN_FILE);
#      KIOSK_PROVISIONING_TOKEN_FILE (the factory image's initial access token, owner-only);
#      KIOSK_REGISTER_ARGS (extra register options, e.g. "--registration-dialect glewlwyd");
#      KIOSK_SCOPE (default "openid offline_access");
#      LATCHKEY (binary, default: latchkey on PATH); KIOSK_MAX_ATTEMPTS (3);
#      KIOSK_RETRY_DELAY (seconds between attempts after a network error, 5);
#      KIOSK_START_COMMAND (default "systemctl start kiosk-app.service");
#      KIOSK_LATCHKEY_ARGS (extra global options, e.g. "--state-dir /var/lib/latchkey --ca-file …");
#      KIOSK_QR_FILE (also write the QR code as an image for the kiosk's own screen: FILE.svg or
#      FILE.png, in a folder that exists and is writable);
#      KIOSK_QR_GROUP (the display's group: each image is made 0640 and given to that group, which
#      this user must be in; unset, it stays 0600, readable by this user only);
#      KIOSK_LOGIN_ARGS (extra login options, e.g. "--dpop always --timeout 900").
# Exit status: 0 when signed in and the service was started; otherwise latchkey's exit code
# (2 usage, 4 denied, 5 expired after every retry, 6 network, 7 server, 8 verification, 9 storage,
# 130 interrupted).
set -uo pipefail
: "${KIOSK_ISSUER:?KIOSK_ISSUER is required}"
if [[ -z ${KIOSK_PROVISIONING_TOKEN_FILE:-} ]]; then : "${KIOSK_CLIENT_ID:?KIOSK_CLIENT_ID is required}"; fi
LATCHKEY=${LATCHKEY:-latchkey}
SCOPE=${KIOSK_SCOPE:-openid offline_access}
MAX_ATTEMPTS=${KIOSK_MAX_ATTEMPTS:-3}
RETRY_DELAY=${KIOSK_RETRY_DELAY:-5}
START_COMMAND=${KIOSK_START_COMMAND:-systemctl start kiosk-app.service}
read -r -a EXTRA <<< "${KIOSK_LATCHKEY_ARGS:-}"
read -r -a LOGIN_EXTRA <<< "${KIOSK_LOGIN_ARGS:-}"
read -r -a REGISTER_EXTRA <<< "${KIOSK_REGISTER_ARGS:-}"
# Login options go after `login` (global ones may go anywhere).
if [[ -n ${KIOSK_QR_FILE:-} ]]; then LOGIN_EXTRA+=(--qr-file "$KIOSK_QR_FILE"); fi
# A registered profile remembers its issuer and client_id; a shared client names them.
CLIENT=(--issuer "$KIOSK_ISSUER" --client-id "${KIOSK_CLIENT_ID:-}")

screen() { printf '%s\n' "$*"; }             # the kiosk's display
# Server text reaches the console as printable characters only. The Linux console acts on C0
# controls and DEL, and on C1 (U+0080-U+009F; U+009B is CSI even in UTF-8 mode), with which a
# hostile provider redrew this screen with its own URL and code; the bidirectional overrides and
# line separators reorder or split what is shown. So: C0 and DEL go, then every byte that is not
# part of valid UTF-8 (a lone 0x9B is CSI on a console that is not in UTF-8 mode), then C1 and
# U+200E/200F, U+2028-202E, U+2066-2069. Bytes, not characters: LC_ALL=C.
clean() {
  tr -d '\000-\037\177' <<< "$1" | LC_ALL=C sed -E \
    -e 's/([\x20-\x7e]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf][\x80-\xbf]|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf][\x80-\xbf]|[\xf1-\xf3][\x80-\xbf][\x80-\xbf][\x80-\xbf]|\xf4[\x80-\x8f][\x80-\xbf][\x80-\xbf])|./\1/g' \
    -e 's/\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]//g'
}
# A string member of a JSON event, made safe for the screen (every field goes through here).
field() { clean "$(sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" <<< "$2")"; }
host_of() { sed -n 's|^[A-Za-z][A-Za-z0-9+.-]*://\([^/?#]*\).*|\1|p' <<< "$1"; }
# The display reads the image as its own group, nobody else: latchkey writes each image 0600 just
# before its verification event.
share_qr_image() {
  [[ -n ${KIOSK_QR_FILE:-} && -n ${KIOSK_QR_GROUP:-} ]] || return 0
  chgrp -- "$KIOSK_QR_GROUP" "$KIOSK_QR_FILE" && chmod 0640 -- "$KIOSK_QR_FILE" ||
    echo "kiosk-provision: cannot give $KIOSK_QR_FILE to group $KIOSK_QR_GROUP (is this user in it?)" >&2
}

# Reads latchkey's JSON events from stdin and shows them; the last line carries the exit status.
show_events() {
  local line
  while IFS= read -r line; do
    case $line in
      *'"event":"verification"'*)
        local uri complete code
        uri=$(field verification_uri "$line"); complete=$(field verification_uri_complete "$line")
        code=$(field user_code "$line")
        share_qr_image
        # latchkey's cross-site check (docs/cli.md): the code is to be entered on another site
        # than the one this kiosk signs in to, the mark of a phishing provider or a misconfiguration.
        if [[ $line == *'"verification_host_matches_issuer":false'* ]]; then
          screen "WARNING: the sign-in page $(host_of "$uri") is not on the site of $(host_of "$KIOSK_ISSUER"),"
          screen "the server this kiosk signs in to. Enter the code only if you started this sign-in"
          screen "at this kiosk yourself: a code typed into someone else's page signs their device in."
        fi
        screen "To set up this kiosk, open ${complete:-$uri} on your phone"
        screen "or go to $uri and enter the code:  $code"
        ;;
      *'"event":"slow_down"'*) screen "(the server asked us to wait longer between checks)" ;;
      *'"event":"authorized"'*) screen "Signed in as $(field subject "$line")." ;;
      *'"event":"error"'*) screen "Sign-in stopped: $(field error "$line") - $(field message "$line")" ;;
      exit:*) return "${line#exit:}" ;;
    esac
  done
  return 1
}

# Zero-touch: register once. `config list` succeeds only when the profile already exists.
if [[ -z ${KIOSK_CLIENT_ID:-} ]]; then
  CLIENT=()
  if "$LATCHKEY" "${EXTRA[@]}" config list >/dev/null 2>&1; then
    screen "This kiosk is already registered."
  else
    screen "Registering this kiosk with $KIOSK_ISSUER"
    out=$("$LATCHKEY" "${EXTRA[@]}" register --json --issuer "$KIOSK_ISSUER" \
            --initial-access-token-file "$KIOSK_PROVISIONING_TOKEN_FILE" --scope "$SCOPE" "${REGISTER_EXTRA[@]}" </dev/null)
    status=$?
    case $status in
      0) screen "Registered as client $(field client_id "$out")." ;;
      2) screen "The registration settings are wrong (see the log); ask an administrator."; exit 2 ;;
      6) screen "No connection to the sign-in server."; exit 6 ;;
      7) screen "The sign-in server refused the registration (is the provisioning token still valid?)."; exit 7 ;;
      9) screen "This kiosk cannot store its key or registration (storage problem)."; exit 9 ;;
      *) screen "latchkey register failed (exit $status)."; exit "$status" ;;
    esac
  fi
fi

attempt=1
while :; do
  screen "Kiosk sign-in, attempt $attempt of $MAX_ATTEMPTS"
  status=0
  # --qr draws the QR code on stderr, i.e. on the kiosk's screen, even without a TTY.
  { "$LATCHKEY" "${EXTRA[@]}" login --json --qr "${CLIENT[@]}" \
      --scope "$SCOPE" "${LOGIN_EXTRA[@]}" </dev/null; echo "exit:$?"; } | show_events || status=$?
  case $status in
    0)
      screen "Starting the kiosk."
      sh -c "$START_COMMAND" || { screen "The kiosk service did not start."; exit 1; }
      exit 0 ;;
    5)
      screen "The code expired before anyone approved it."
      if (( attempt < MAX_ATTEMPTS )); then attempt=$((attempt + 1)); continue; fi
      screen "Giving up after $MAX_ATTEMPTS codes."; exit 5 ;;
    6)
      screen "No connection to the sign-in server."
      if (( attempt < MAX_ATTEMPTS )); then attempt=$((attempt + 1)); sleep "$RETRY_DELAY"; continue; fi
      exit 6 ;;
    2) screen "This kiosk's sign-in settings are wrong (see the log); ask an administrator."; exit 2 ;;
    4) screen "Sign-in was declined on the phone. Ask an administrator."; exit 4 ;;
    3) screen "The server wants a new sign-in; run this again."; exit 3 ;;
    7) screen "The sign-in server answered something unexpected; check the issuer and client id."; exit 7 ;;
    8) screen "The server's tokens did not verify; refusing to continue."; exit 8 ;;
    9) screen "This kiosk cannot store its tokens (storage or key problem)."; exit 9 ;;
    130) screen "Interrupted."; exit 130 ;;
    *) screen "latchkey failed (exit $status)."; exit "$status" ;;
  esac
done
