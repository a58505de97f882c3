#!/usr/bin/env bash
# Starts idpyoidc 5.0.0 OpenID Providers (op.py) on 127.0.0.1, each on a port the kernel picks:
# for the PAR and exchange tests one over plain HTTP, one over TLS (a throwaway CA, DNS:localhost),
# and the same pair for the step-up tests.
# usage: start-idpyoidc.sh STATE_DIR
#
# idpyoidc is installed from PyPI into a venv once and reused: $LATCHKEY_IDPYOIDC_VENV, default
# <root>/.build/idpyoidc-venv (LATCHKEY_SCRATCH moves .build). Writes STATE_DIR/env.sh with
# LATCHKEY_IT_IDPYOIDC_ISSUER, _ISSUER_TLS, _CA_FILE, _CLIENT, _LOG, _LOG_TLS, and for token
# exchange _EXCHANGE_CLIENT, _EXCHANGE_SECRET_FILE(_TLS), _AUDIENCES, _RESOURCE, and for the
# step-up tests (two more instances, plain and TLS, and stepup_resource.py, which the tests start
# themselves) _STEPUP_ISSUER(_TLS), _STEPUP_LOG(_TLS), _PYTHON (the venv's, which has cryptojwt),
# _STEPUP_RESOURCE, _TLS_CERT, _TLS_KEY (the localhost certificate the CA signed);
# stop-idpyoidc.sh STATE_DIR stops exactly what this started (STATE_DIR/pids).
set -euo pipefail
STATE=${1:?usage: start-idpyoidc.sh STATE_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VENV=${LATCHKEY_IDPYOIDC_VENV:-${LATCHKEY_SCRATCH:-$ROOT/.build}/idpyoidc-venv}
VERSION=5.0.0
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)

"$ROOT/Tests/Harness/pypi-venv.sh" "$VENV" idpyoidc "$VERSION"

mkdir -p "$STATE/pki"
[ -f "$STATE/pki/localhost.pem" ] || sh "$ROOT/Tests/Harness/http/make_certs.sh" "$STATE/pki" >/dev/null

# A second start in the same folder replaces the first: stop what it started before forgetting it.
"$HERE/stop-idpyoidc.sh" "$STATE"
: > "$STATE/pids"
launch() { # name, extra arguments
  local dir="$STATE/$1"; shift
  rm -rf "$dir"; mkdir -p "$dir"
  "$VENV/bin/python" "$HERE/op.py" "$dir" "$@" > "$dir/server.log" 2>&1 &
  echo "$! $dir" >> "$STATE/pids"
}
await() { # name: waits for the port file of the instance launched as name
  local dir="$STATE/$1" pid
  pid=$(awk -v d="$dir" '$2 == d { print $1 }' "$STATE/pids")
  for _ in $(seq 1 600); do
    [ -s "$dir/port" ] && return 0
    kill -0 "$pid" 2>/dev/null || { echo "op.py $dir exited:" >&2; cat "$dir/server.log" >&2; return 1; }
    sleep 0.05
  done
  echo "op.py $dir did not report its port within 30 s" >&2; return 1
}
# The step-up tests get instances of their own: the PAR suite counts the pushed requests in its
# log by time, and the suites run at the same time.
TLS_ARGS=(--tls "$STATE/pki/localhost.pem" "$STATE/pki/localhost.key")
launch plain; launch tls "${TLS_ARGS[@]}"; launch stepup; launch stepup-tls "${TLS_ARGS[@]}"
if ! await plain || ! await tls || ! await stepup || ! await stepup-tls; then
  "$HERE/stop-idpyoidc.sh" "$STATE"; exit 1
fi

cat > "$STATE/env.sh" <<ENV
export LATCHKEY_IT_IDPYOIDC_ISSUER=http://127.0.0.1:$(cat "$STATE/plain/port")
export LATCHKEY_IT_IDPYOIDC_ISSUER_TLS=https://localhost:$(cat "$STATE/tls/port")
export LATCHKEY_IT_IDPYOIDC_CA_FILE=$STATE/pki/ca.pem
export LATCHKEY_IT_IDPYOIDC_CLIENT=latchkey-par
export LATCHKEY_IT_IDPYOIDC_LOG=$STATE/plain/requests.log
export LATCHKEY_IT_IDPYOIDC_LOG_TLS=$STATE/tls/requests.log
export LATCHKEY_IT_IDPYOIDC_EXCHANGE_CLIENT=latchkey-exchange
export LATCHKEY_IT_IDPYOIDC_EXCHANGE_SECRET_FILE=$STATE/plain/exchange-client-secret
export LATCHKEY_IT_IDPYOIDC_EXCHANGE_SECRET_FILE_TLS=$STATE/tls/exchange-client-secret
export LATCHKEY_IT_IDPYOIDC_AUDIENCES=billing-api,reports-api
export LATCHKEY_IT_IDPYOIDC_RESOURCE=https://billing.example/api
export LATCHKEY_IT_IDPYOIDC_STEPUP_ISSUER=http://127.0.0.1:$(cat "$STATE/stepup/port")
export LATCHKEY_IT_IDPYOIDC_STEPUP_ISSUER_TLS=https://localhost:$(cat "$STATE/stepup-tls/port")
export LATCHKEY_IT_IDPYOIDC_STEPUP_LOG=$STATE/stepup/requests.log
export LATCHKEY_IT_IDPYOIDC_STEPUP_LOG_TLS=$STATE/stepup-tls/requests.log
export LATCHKEY_IT_IDPYOIDC_PYTHON=$VENV/bin/python
export LATCHKEY_IT_IDPYOIDC_STEPUP_RESOURCE=$HERE/stepup_resource.py
export LATCHKEY_IT_IDPYOIDC_TLS_CERT=$STATE/pki/localhost.pem
export LATCHKEY_IT_IDPYOIDC_TLS_KEY=$STATE/pki/localhost.key
ENV
echo "idpyoidc $VERSION: $(grep -o 'http[^ ]*' "$STATE/env.sh" | head -2 | tr '\n' ' ')" >&2
