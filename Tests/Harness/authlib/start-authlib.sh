#!/usr/bin/env bash
# Starts two Authlib 1.9.10 authorization servers (as.py) for the JWT bearer tests (RFC 7523), on
# 127.0.0.1, each on a port the kernel picks: one over plain HTTP, one over TLS (a throwaway CA,
# DNS:localhost). Both know the same clients and keys (made here by assertion.py).
# usage: start-authlib.sh STATE_DIR
#
# Authlib is installed from PyPI into a venv once and reused: $LATCHKEY_AUTHLIB_VENV, default
# <root>/.build/authlib-venv (LATCHKEY_SCRATCH moves .build). Writes STATE_DIR/env.sh with
# LATCHKEY_IT_AUTHLIB_ISSUER, _ISSUER_TLS, _CA_FILE, _KEYS (the folder of the clients' private
# keys: workload.pem, machine.pem, other.pem), _SIGNER (assertion.py), _LOG, _LOG_TLS;
# stop-authlib.sh STATE_DIR stops exactly what this started (STATE_DIR/pids).
set -euo pipefail
STATE=${1:?usage: start-authlib.sh STATE_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VENV=${LATCHKEY_AUTHLIB_VENV:-${LATCHKEY_SCRATCH:-$ROOT/.build}/authlib-venv}
VERSION=1.9.10
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)

"$ROOT/Tests/Harness/pypi-venv.sh" "$VENV" authlib "$VERSION"

mkdir -p "$STATE/pki"
[ -f "$STATE/pki/localhost.pem" ] || sh "$ROOT/Tests/Harness/http/make_certs.sh" "$STATE/pki" >/dev/null
# The clients' keys: `other` is registered nowhere (a signature the server cannot verify).
[ -f "$STATE/keys/workload.pem" ] || "$VENV/bin/python" "$HERE/assertion.py" keys "$STATE/keys" workload machine other
chmod 700 "$STATE/keys"

# A second start in the same folder replaces the first: stop what it started before forgetting it.
"$HERE/stop-authlib.sh" "$STATE"
: > "$STATE/pids"
start() { # name, extra arguments
  local dir="$STATE/$1"; shift
  rm -rf "$dir"; mkdir -p "$dir"
  "$VENV/bin/python" "$HERE/as.py" "$dir" "$STATE/keys" "$@" > "$dir/server.log" 2>&1 &
  echo "$! $dir" >> "$STATE/pids"
  for _ in $(seq 1 600); do
    [ -s "$dir/port" ] && return 0
    kill -0 "$!" 2>/dev/null || { echo "as.py $dir exited:" >&2; cat "$dir/server.log" >&2; return 1; }
    sleep 0.05
  done
  echo "as.py $dir did not report its port within 30 s" >&2; return 1
}
if ! start plain || ! start tls --tls "$STATE/pki/localhost.pem" "$STATE/pki/localhost.key"; then
  "$HERE/stop-authlib.sh" "$STATE"; exit 1
fi

cat > "$STATE/env.sh" <<ENV
export LATCHKEY_IT_AUTHLIB_ISSUER=http://127.0.0.1:$(cat "$STATE/plain/port")
export LATCHKEY_IT_AUTHLIB_ISSUER_TLS=https://localhost:$(cat "$STATE/tls/port")
export LATCHKEY_IT_AUTHLIB_CA_FILE=$STATE/pki/ca.pem
export LATCHKEY_IT_AUTHLIB_KEYS=$STATE/keys
export LATCHKEY_IT_AUTHLIB_SIGNER=$HERE/assertion.py
export LATCHKEY_IT_AUTHLIB_PYTHON=$VENV/bin/python
export LATCHKEY_IT_AUTHLIB_LOG=$STATE/plain/requests.log
export LATCHKEY_IT_AUTHLIB_LOG_TLS=$STATE/tls/requests.log
ENV
echo "Authlib $VERSION: $(grep -o 'http[^ ]*' "$STATE/env.sh" | head -2 | tr '\n' ' ')" >&2
