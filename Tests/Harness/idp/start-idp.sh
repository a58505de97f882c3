#!/usr/bin/env bash
# Bring up the project's test identity provider from nothing, on loopback only:
#   - "plain": Glewlwyd behind a counting proxy, issuer http://127.0.0.1:$BASE/api/oidc
#   - "tls":   Glewlwyd behind a counting proxy behind stunnel (throwaway CA, certificate for
#              `localhost`), issuer https://localhost:$((BASE+10))/api/oidc
#   - "mtls":  Glewlwyd serving TLS itself and requesting client certificates (a throwaway fleet
#              CA), issuers https://localhost:$((BASE+20))/api/mtls and /api/mtlsalias
#              (start-mtls-instance.sh)
# Two Glewlwyd instances because Glewlwyd derives the issuer and every discovery endpoint from its
# single external_url. Each instance has the plugins `oidc` (normal), `quickexpiry` (short-lived
# device codes), `shortlived` (short-lived access tokens), `dpop` (DPoP allowed) and `dpopnonce`
# (DPoP with mandatory server nonces), and the same clients (configure.py).
#
# usage: start-idp.sh STATE_DIR
# env:   LATCHKEY_IT_PORT_BASE (default 14600), LATCHKEY_IT_DEVICE_INTERVAL (1),
#        LATCHKEY_IT_SHORT_DEVICE_TTL (4), LATCHKEY_IT_SHORT_AT_TTL (30), PYTHON (python3)
# Writes STATE_DIR/env.sh (the LATCHKEY_IT_* variables the tests read). Stop with stop-idp.sh STATE_DIR.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${1:?usage: start-idp.sh STATE_DIR}
BASE=${LATCHKEY_IT_PORT_BASE:-14600}
INTERVAL=${LATCHKEY_IT_DEVICE_INTERVAL:-1}
SHORT_DEVICE_TTL=${LATCHKEY_IT_SHORT_DEVICE_TTL:-4}
SHORT_AT_TTL=${LATCHKEY_IT_SHORT_AT_TTL:-30}
PYTHON=${PYTHON:-python3}
started=$(date +%s.%N)

need=()
for pair in glewlwyd:glewlwyd sqlite3:sqlite3 stunnel4:stunnel4 openssl:openssl curl:curl gcc:gcc; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
if ((${#need[@]})); then
  echo "start-idp: installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
fi
"$PYTHON" -c 'import cryptography' 2>/dev/null || "$PYTHON" -m pip install -q cryptography

mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
# Every Glewlwyd connection waits for a busy SQLite database instead of answering 500
# (sqlite_busy_wait.c says why); start-mtls-instance.sh uses the same library.
gcc -shared -fPIC -O2 -Wall -Werror -o "$STATE/sqlite_busy_wait.so" "$HERE/sqlite_busy_wait.c" -ldl -lsqlite3 ||
  { echo "start-idp: cannot build sqlite_busy_wait.so" >&2; exit 1; }
export LATCHKEY_IT_GLWD_PRELOAD=$STATE/sqlite_busy_wait.so
"$HERE/stop-idp.sh" "$STATE" >/dev/null 2>&1 || true
rm -rf "$STATE/plain" "$STATE/tls" "$STATE/ca" "$STATE/pids" "$STATE/env.sh"
rm -rf "$STATE/mtls" "$STATE/fleet"
mkdir -p "$STATE/plain" "$STATE/tls" "$STATE/ca"
: > "$STATE/pids"

# --- throwaway CA and a certificate for `localhost` (mbedTLS 2.28 does not match IP SANs) ---
make_certs() {
  local d=$STATE/ca
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Latchkey test CA" \
    -keyout "$d/ca.key" -out "$d/ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n' > "$d/server.ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
    -extfile "$d/server.ext" -out "$d/server.pem" 2>/dev/null
  chmod 600 "$d"/*.key
}

# --- one Glewlwyd instance: fresh DB, keys, config, start, wait, configure ---
start_instance() {  # NAME LISTEN_PORT EXTERNAL_URL
  local name=$1 port=$2 external=$3 dir=$STATE/$1
  sqlite3 "$dir/glewlwyd.db" < /usr/share/dbconfig-common/data/glewlwyd/install/sqlite3
  "$PYTHON" "$HERE/prepare_db.py" "$dir/glewlwyd.db"
  # WAL: readers no longer fail while another connection writes (parallel suites made Glewlwyd
  # answer 500 "Error executing sql query" a few times per run); the mode is stored in the file.
  sqlite3 "$dir/glewlwyd.db" "PRAGMA journal_mode=WAL;" > /dev/null
  "$PYTHON" "$HERE/make_signing_keys.py" "$dir/jwks-private.json"
  sed -e "s|@LISTEN_PORT@|$port|g" -e "s|@EXTERNAL_URL@|$external|g" -e "s|@STATE@|$dir|g" \
      -e "s|@LOG_LEVEL@|${LATCHKEY_IT_GLWD_LOG_LEVEL:-WARNING}|g" \
      "$HERE/glewlwyd.conf.template" > "$dir/glewlwyd.conf"
  LD_PRELOAD=$LATCHKEY_IT_GLWD_PRELOAD glewlwyd --config-file="$dir/glewlwyd.conf" > "$dir/stdout.log" 2>&1 &
  local pid=$!
  echo "$pid glewlwyd-$name" >> "$STATE/pids"
  # A deadline, not a count of tries: on a loaded machine each curl itself takes a while.
  local deadline=$((SECONDS + 60))
  until curl -fsS -o /dev/null "http://127.0.0.1:$port/config/" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "start-idp: glewlwyd ($name) died:" >&2; cat "$dir"/*.log >&2; return 1; }
    [ "$SECONDS" -lt "$deadline" ] || { echo "start-idp: glewlwyd ($name) not answering on $port after 60 s:" >&2; cat "$dir"/*.log >&2; return 1; }
    sleep 0.05
  done
  "$PYTHON" "$HERE/configure.py" --base "http://127.0.0.1:$port" --external-url "$external" --state "$dir" \
    --interval "$INTERVAL" --short-device-ttl "$SHORT_DEVICE_TTL" --short-at-ttl "$SHORT_AT_TTL"
}

start_proxy() {  # NAME LISTEN UPSTREAM_PORT
  "$PYTHON" "$HERE/counting_proxy.py" --listen "$2" --upstream "http://127.0.0.1:$3" \
    --log "$STATE/$1/requests.jsonl" > "$STATE/$1/proxy.log" 2>&1 &
  echo "$! proxy-$1" >> "$STATE/pids"
}

PLAIN=$BASE; PLAIN_GLWD=$((BASE + 1))
TLS=$((BASE + 10)); TLS_PROXY=$((BASE + 11)); TLS_GLWD=$((BASE + 12))

make_certs &
certs=$!
start_instance plain "$PLAIN_GLWD" "http://127.0.0.1:$PLAIN" &
plain=$!
start_instance tls "$TLS_GLWD" "https://localhost:$TLS" &
tls=$!
# mTLS (RFC 8705): the third instance serves TLS itself, with the server certificate make_certs
# writes (it waits for it before starting Glewlwyd).
MTLS=$((BASE + 20))
"$HERE/start-mtls-instance.sh" "$STATE" "$MTLS" &
mtls=$!
wait "$certs"; wait "$plain"; wait "$tls"; wait "$mtls"

start_proxy plain "$PLAIN" "$PLAIN_GLWD"
start_proxy tls "$TLS_PROXY" "$TLS_GLWD"
cat > "$STATE/tls/stunnel.conf" <<CONF
foreground = yes
pid =
[latchkey-test-idp]
accept = 127.0.0.1:$TLS
connect = 127.0.0.1:$TLS_PROXY
cert = $STATE/ca/server.pem
key = $STATE/ca/server.key
sslVersionMin = TLSv1.2
CONF
stunnel4 "$STATE/tls/stunnel.conf" > "$STATE/tls/stunnel.log" 2>&1 &
echo "$! stunnel" >> "$STATE/pids"

deadline=$((SECONDS + 30))
until curl -fsS -o /dev/null "http://127.0.0.1:$PLAIN/api/oidc/.well-known/openid-configuration" 2>/dev/null &&
      curl -fsS -o /dev/null --cacert "$STATE/ca/ca.pem" "https://localhost:$TLS/api/oidc/.well-known/openid-configuration" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || break
  sleep 0.05
done
curl -fsS -o /dev/null "http://127.0.0.1:$PLAIN/api/oidc/.well-known/openid-configuration" ||
  { echo "start-idp: the plain front (counting proxy on $PLAIN) did not come up" >&2; cat "$STATE/plain/proxy.log" >&2; exit 1; }
curl -fsS -o /dev/null --cacert "$STATE/ca/ca.pem" "https://localhost:$TLS/api/oidc/.well-known/openid-configuration" ||
  { echo "start-idp: TLS front did not come up" >&2; cat "$STATE/tls/stunnel.log" >&2; exit 1; }

cat > "$STATE/env.sh" <<ENV
# Written by Tests/Harness/idp/start-idp.sh; source it to reach the test IdP.
export LATCHKEY_IT_STATE='$STATE'
export LATCHKEY_IT_ISSUER='http://127.0.0.1:$PLAIN/api/oidc'
export LATCHKEY_IT_ISSUER_DEVICE_EXPIRY='http://127.0.0.1:$PLAIN/api/quickexpiry'
export LATCHKEY_IT_ISSUER_SHORT_TOKEN='http://127.0.0.1:$PLAIN/api/shortlived'
export LATCHKEY_IT_ISSUER_TLS='https://localhost:$TLS/api/oidc'
export LATCHKEY_IT_ISSUER_DPOP='http://127.0.0.1:$PLAIN/api/dpop'
export LATCHKEY_IT_ISSUER_DPOP_NONCE='http://127.0.0.1:$PLAIN/api/dpopnonce'
export LATCHKEY_IT_ISSUER_DPOP_TLS='https://localhost:$TLS/api/dpop'
export LATCHKEY_IT_ISSUER_DPOP_NONCE_TLS='https://localhost:$TLS/api/dpopnonce'
export LATCHKEY_IT_CLIENT_DPOP='latchkey-dpop'
export LATCHKEY_IT_CLIENT_DPOP_PROBE='latchkey-dpop-probe'
export LATCHKEY_IT_CLIENT_DPOP_CONFIDENTIAL='latchkey-dpop-confidential'
export LATCHKEY_IT_DPOP_PROBE='$HERE/dpop_probe.py'
export LATCHKEY_IT_CA_FILE='$STATE/ca/ca.pem'
export LATCHKEY_IT_PROXY_LOG='$STATE/plain/requests.jsonl'
export LATCHKEY_IT_PROXY_LOG_TLS='$STATE/tls/requests.jsonl'
export LATCHKEY_IT_CLIENT_RS256='latchkey-device-rs'
export LATCHKEY_IT_CLIENT_PS256='latchkey-device-ps'
export LATCHKEY_IT_CLIENT_ES256='latchkey-device-es'
export LATCHKEY_IT_CLIENT_CODE='latchkey-code'
export LATCHKEY_IT_REDIRECT_URI='http://127.0.0.1:28682/callback'
export LATCHKEY_IT_REDIRECT_URI_PAR='http://127.0.0.1:28683/callback'
export LATCHKEY_IT_CLIENT_CONFIDENTIAL='latchkey-confidential'
export LATCHKEY_IT_CLIENT_SECRET_FILE='$STATE/plain/confidential-client.secret'
export LATCHKEY_IT_CLIENT_SECRET_FILE_TLS='$STATE/tls/confidential-client.secret'
export LATCHKEY_IT_SCOPE='openid offline_access profile glwd_revoke'
export LATCHKEY_IT_DEVICE_INTERVAL='$INTERVAL'
export LATCHKEY_IT_SHORT_DEVICE_TTL='$SHORT_DEVICE_TTL'
export LATCHKEY_IT_SHORT_AT_TTL='$SHORT_AT_TTL'
export LATCHKEY_IT_PYTHON='$(command -v "$PYTHON")'
export LATCHKEY_IT_APPROVE='$HERE/approve.py'
export LATCHKEY_IT_BROWSER='$HERE/browser_login.py'
export LATCHKEY_IT_SCRIPTED_IDP='$(cd "$HERE/.." && pwd)/scripted_idp.py'
export LATCHKEY_IT_ISSUER_PAR='http://127.0.0.1:$PLAIN/api/par'
export LATCHKEY_IT_ISSUER_PAR_SHORT='http://127.0.0.1:$PLAIN/api/parshort'
export LATCHKEY_IT_ISSUER_PAR_TLS='https://localhost:$TLS/api/par'
export LATCHKEY_IT_ISSUER_RESOURCE='http://127.0.0.1:$PLAIN/api/resource'
export LATCHKEY_IT_ISSUER_RESOURCE_TLS='https://localhost:$TLS/api/resource'
# issue 35: Glewlwyd itself (not its proxy), for harness scripts that change its configuration
# through the admin API (Tests/Harness/mcp/allow_resource.py), and the TLS front's certificate,
# which the mcp resource over TLS serves too (same CA, DNS:localhost).
export LATCHKEY_IT_GLEWLWYD_ADMIN='http://127.0.0.1:$PLAIN_GLWD'
export LATCHKEY_IT_GLEWLWYD_ADMIN_TLS='http://127.0.0.1:$TLS_GLWD'
export LATCHKEY_IT_LOCALHOST_CERT='$STATE/ca/server.pem'
export LATCHKEY_IT_LOCALHOST_KEY='$STATE/ca/server.key'
export LATCHKEY_IT_ISSUER_MACHINE='http://127.0.0.1:$PLAIN/api/machine'
export LATCHKEY_IT_ISSUER_MACHINE_TLS='https://localhost:$TLS/api/machine'
export LATCHKEY_IT_CLIENT_PAR='latchkey-par'
export LATCHKEY_IT_CLIENT_MACHINE='latchkey-machine'
export LATCHKEY_IT_MACHINE_SECRET_FILE='$STATE/plain/machine-client.secret'
export LATCHKEY_IT_MACHINE_SECRET_FILE_TLS='$STATE/tls/machine-client.secret'
export LATCHKEY_IT_RESOURCE='https://api.example.test/v1'
export LATCHKEY_IT_ISSUER_CIBA='http://127.0.0.1:$PLAIN/api/ciba'
export LATCHKEY_IT_ISSUER_CIBA_EXPIRY='http://127.0.0.1:$PLAIN/api/cibaquick'
export LATCHKEY_IT_ISSUER_CIBA_TLS='https://localhost:$TLS/api/ciba'
export LATCHKEY_IT_ISSUER_CIBA_DPOP='http://127.0.0.1:$PLAIN/api/cibadpop'
export LATCHKEY_IT_CLIENT_CIBA='latchkey-ciba'
export LATCHKEY_IT_SHORT_CIBA_TTL='4'
export LATCHKEY_IT_APPROVE_CIBA='$HERE/approve_ciba.py'
export LATCHKEY_IT_ISSUER_END_SESSION='http://127.0.0.1:$PLAIN/api/endsession'
export LATCHKEY_IT_ISSUER_END_SESSION_TLS='https://localhost:$TLS/api/endsession'
export LATCHKEY_IT_CLIENT_END_SESSION='latchkey-endsession'
export LATCHKEY_IT_END_SESSION_REDIRECT='http://127.0.0.1:53682/signed-out'
export LATCHKEY_IT_END_SESSION_BROWSER='$HERE/end_session_browser.py'
export LATCHKEY_IT_ISSUER_REGISTER='http://127.0.0.1:$PLAIN/api/register'
export LATCHKEY_IT_ISSUER_REGISTER_TLS='https://localhost:$TLS/api/register'
export LATCHKEY_IT_PROVISIONING_TOKEN_FILE='$STATE/plain/provisioning.token'
export LATCHKEY_IT_PROVISIONING_TOKEN_FILE_TLS='$STATE/tls/provisioning.token'
export LATCHKEY_IT_ISSUER_PKJWT='http://127.0.0.1:$PLAIN/api/pkjwt'
export LATCHKEY_IT_ISSUER_PKJWT_TLS='https://localhost:$TLS/api/pkjwt'
export LATCHKEY_IT_CLIENT_PKJWT_ES256='latchkey-pkjwt-es'
export LATCHKEY_IT_CLIENT_PKJWT_PS256='latchkey-pkjwt-ps'
export LATCHKEY_IT_PKJWT_KEY_ES256='$STATE/plain/pkjwt-es256.key'
export LATCHKEY_IT_PKJWT_KEY_PS256='$STATE/plain/pkjwt-ps256.key'
export LATCHKEY_IT_PKJWT_KEY_WRONG='$STATE/plain/pkjwt-wrong.key'
export LATCHKEY_IT_PKJWT_KEY_ES256_TLS='$STATE/tls/pkjwt-es256.key'
export LATCHKEY_IT_PKJWT_KEY_PS256_TLS='$STATE/tls/pkjwt-ps256.key'
export LATCHKEY_IT_PKJWT_PROBE='$HERE/pkjwt_probe.py'
export LATCHKEY_IT_ISSUER_PKJWT_MACHINE='http://127.0.0.1:$PLAIN/api/pkjwtmachine'
export LATCHKEY_IT_ISSUER_PKJWT_MACHINE_TLS='https://localhost:$TLS/api/pkjwtmachine'
export LATCHKEY_IT_CLIENT_PKJWT_MACHINE_ES256='latchkey-pkjwt-machine-es'
export LATCHKEY_IT_CLIENT_PKJWT_MACHINE_PS256='latchkey-pkjwt-machine-ps'
ENV
cat "$STATE/mtls/env.sh" >> "$STATE/env.sh"
elapsed=$(echo "$(date +%s.%N) - $started" | bc 2>/dev/null || echo "?")
echo "test IdP up in ${elapsed}s: http://127.0.0.1:$PLAIN/api/oidc and https://localhost:$TLS/api/oidc (env: $STATE/env.sh)"
