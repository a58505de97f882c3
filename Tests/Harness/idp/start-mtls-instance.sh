#!/usr/bin/env bash
# The third test Glewlwyd: it serves TLS itself (no stunnel, which cannot pass a client certificate
# on) and asks every client for a certificate, trusting the throwaway fleet CA (make_fleet_certs.sh)
# and the one self-signed device certificate. Plugins `mtls` and `mtlsalias` (configure_mtls.py).
# Glewlwyd only *requests* the certificate: a missing, untrusted or expired one completes the
# handshake and then gets 403 with an empty body at the endpoints that authenticate the client.
#
# usage: start-mtls-instance.sh STATE_DIR PORT   (start-idp.sh runs it beside make_certs)
# Writes STATE_DIR/mtls/env.sh, which start-idp.sh appends to STATE_DIR/env.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${1:?usage: start-mtls-instance.sh STATE_DIR PORT}
PORT=${2:?usage: start-mtls-instance.sh STATE_DIR PORT}
PYTHON=${PYTHON:-python3}
dir=$STATE/mtls fleet=$STATE/fleet external=https://localhost:$PORT
rm -rf "$dir" "$fleet"
mkdir -p "$dir"
sh "$HERE/make_fleet_certs.sh" "$fleet"
# The trust list for client certificates. The self-signed certificate is in it because the TLS
# layer (ulfius) hands Glewlwyd only certificates that verify; Glewlwyd then matches it to the
# client's registered `jwks` (RFC 8705 §2.2).
cat "$fleet/fleet-ca.pem" "$fleet/self-signed.pem" > "$dir/client-trust.pem"

sqlite3 "$dir/glewlwyd.db" < /usr/share/dbconfig-common/data/glewlwyd/install/sqlite3
"$PYTHON" "$HERE/prepare_db.py" "$dir/glewlwyd.db" tls_client_auth_subject_dn
# WAL: readers no longer fail while another connection writes (parallel suites made Glewlwyd
# answer 500 "Error executing sql query" a few times per run); the mode is stored in the file.
sqlite3 "$dir/glewlwyd.db" "PRAGMA journal_mode=WAL;" > /dev/null
"$PYTHON" "$HERE/make_signing_keys.py" "$dir/jwks-private.json"
{
  sed -e "s|@LISTEN_PORT@|$PORT|g" -e "s|@EXTERNAL_URL@|$external|g" -e "s|@STATE@|$dir|g" \
      -e "s|@LOG_LEVEL@|${LATCHKEY_IT_GLWD_LOG_LEVEL:-WARNING}|g" "$HERE/glewlwyd.conf.template"
  cat <<CONF
# Mutual TLS: Glewlwyd terminates TLS and requests a client certificate from every client.
use_secure_connection=true
secure_connection_key_file="$STATE/ca/server.key"
secure_connection_pem_file="$STATE/ca/server.pem"
secure_connection_ca_file="$dir/client-trust.pem"
CONF
} > "$dir/glewlwyd.conf"
# start-idp.sh makes the server certificate at the same time: wait until it is complete.
deadline=$((SECONDS + 60))
until openssl x509 -in "$STATE/ca/server.pem" -noout 2>/dev/null && openssl pkey -in "$STATE/ca/server.key" -noout 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "start-mtls-instance: no server certificate after 60 s" >&2; exit 1; }
  sleep 0.05
done
LD_PRELOAD=${LATCHKEY_IT_GLWD_PRELOAD:-} glewlwyd --config-file="$dir/glewlwyd.conf" > "$dir/stdout.log" 2>&1 &
pid=$!
echo "$pid glewlwyd-mtls" >> "$STATE/pids"
deadline=$((SECONDS + 60))
until curl -fsS -o /dev/null --cacert "$STATE/ca/ca.pem" "$external/config/" 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { echo "start-mtls-instance: glewlwyd died:" >&2; cat "$dir"/*.log >&2; exit 1; }
  [ "$SECONDS" -lt "$deadline" ] || { echo "start-mtls-instance: glewlwyd not answering at $external after 60 s:" >&2; cat "$dir"/*.log >&2; exit 1; }
  sleep 0.05
done
"$PYTHON" "$HERE/configure_mtls.py" --base "$external" --external-url "$external" --state "$dir" \
  --ca-file "$STATE/ca/ca.pem" --fleet "$fleet" --interval "${LATCHKEY_IT_DEVICE_INTERVAL:-1}"

cat > "$dir/env.sh" <<ENV
export LATCHKEY_IT_ISSUER_MTLS='$external/api/mtls'
export LATCHKEY_IT_ISSUER_MTLS_ALIAS='$external/api/mtlsalias'
export LATCHKEY_IT_CLIENT_MTLS='latchkey-mtls'
export LATCHKEY_IT_CLIENT_MTLS_SELF_SIGNED='latchkey-mtls-self-signed'
export LATCHKEY_IT_FLEET_CA='$fleet/fleet-ca.pem'
export LATCHKEY_IT_DEVICE_CERT='$fleet/device.pem'
export LATCHKEY_IT_DEVICE_KEY='$fleet/device.key'
export LATCHKEY_IT_OTHER_CA_CERT='$fleet/other-device.pem'
export LATCHKEY_IT_OTHER_CA_KEY='$fleet/other-device.key'
export LATCHKEY_IT_EXPIRED_CERT='$fleet/expired.pem'
export LATCHKEY_IT_SELF_SIGNED_CERT='$fleet/self-signed.pem'
export LATCHKEY_IT_SELF_SIGNED_KEY='$fleet/self-signed.key'
export LATCHKEY_IT_ISSUER_MTLS_MACHINE='$external/api/mtlsmachine'
export LATCHKEY_IT_CLIENT_MTLS_MACHINE='latchkey-mtls-machine'
export LATCHKEY_IT_ISSUER_MTLS_ALIAS_PKJWT='$external/api/mtlsaliaspkjwt'
export LATCHKEY_IT_CLIENT_MTLS_PKJWT='latchkey-mtls-pkjwt'
export LATCHKEY_IT_MTLS_PKJWT_KEY='$dir/mtls-pkjwt-es256.key'
ENV
