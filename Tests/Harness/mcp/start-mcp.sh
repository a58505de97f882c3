#!/usr/bin/env bash
# Starts two protected resources made of the mcp Python SDK 2.3.0's auth pieces (resource.py) in
# front of the test Glewlwyd's `resource` plugin, for the RFC 9728 tests (issue 35), on 127.0.0.1,
# each on a port the kernel picks: one over plain HTTP naming the plain issuer, written with a
# trailing `/` as the SDK spells an issuer at a root (so the lenient comparison is what lets a
# sign-in through), one over TLS naming the TLS issuer exactly. Then lets Glewlwyd issue tokens
# for each (allow_resource.py, the admin API), since its resource indicators are a fixed list.
# usage: start-mcp.sh STATE_DIR   (with the test IdP's env.sh sourced: LATCHKEY_IT_ISSUER_RESOURCE,
#        _ISSUER_RESOURCE_TLS, _CA_FILE, _GLEWLWYD_ADMIN(_TLS), _LOCALHOST_CERT/_KEY, PYTHON)
#
# The SDK is installed from PyPI into a venv once and reused: $LATCHKEY_MCP_VENV, default
# <root>/.build/mcp-venv (LATCHKEY_SCRATCH moves .build). Writes STATE_DIR/env.sh with
# LATCHKEY_IT_MCP_RESOURCE, _RESOURCE_TLS (the resource identifiers, .../api), _ISSUER,
# _ISSUER_TLS (the issuers they name, as written), _LOG, _LOG_TLS; stop-mcp.sh STATE_DIR stops
# exactly what this started (STATE_DIR/pids).
set -euo pipefail
STATE=${1:?usage: start-mcp.sh STATE_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VENV=${LATCHKEY_MCP_VENV:-${LATCHKEY_SCRATCH:-$ROOT/.build}/mcp-venv}
VERSION=2.3.0
need() { [ -n "${!1:-}" ] || { echo "start-mcp: $1 is not set (source the test IdP's env.sh first)" >&2; exit 1; }; }
for v in LATCHKEY_IT_ISSUER_RESOURCE LATCHKEY_IT_ISSUER_RESOURCE_TLS LATCHKEY_IT_CA_FILE LATCHKEY_IT_GLEWLWYD_ADMIN \
         LATCHKEY_IT_GLEWLWYD_ADMIN_TLS LATCHKEY_IT_LOCALHOST_CERT LATCHKEY_IT_LOCALHOST_KEY; do need "$v"; done
PYTHON=${PYTHON:-python3}
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)

"$ROOT/Tests/Harness/pypi-venv.sh" "$VENV" mcp "$VERSION"

# A second start in the same folder replaces the first: stop what it started before forgetting it.
"$HERE/stop-mcp.sh" "$STATE"
: > "$STATE/pids"
start() { # name, admin base, then resource.py's arguments
  local dir="$STATE/$1" admin=$2; shift 2
  rm -rf "$dir"; mkdir -p "$dir"
  "$VENV/bin/python" "$HERE/resource.py" "$dir" "$@" > "$dir/server.log" 2>&1 &
  echo "$! $dir" >> "$STATE/pids"
  local deadline=$((SECONDS + 60))
  until [ -s "$dir/port" ]; do
    kill -0 "$!" 2>/dev/null || { echo "resource.py $dir exited:" >&2; cat "$dir/server.log" >&2; return 1; }
    [ "$SECONDS" -lt "$deadline" ] || { echo "resource.py $dir did not report its port within 60 s" >&2; return 1; }
    sleep 0.05
  done
  "$PYTHON" "$HERE/allow_resource.py" --base "$admin" "$(cat "$dir/resource")" profile
}
if ! start plain "$LATCHKEY_IT_GLEWLWYD_ADMIN" "$LATCHKEY_IT_ISSUER_RESOURCE/" ||
   ! start tls "$LATCHKEY_IT_GLEWLWYD_ADMIN_TLS" "$LATCHKEY_IT_ISSUER_RESOURCE_TLS" --ca-file "$LATCHKEY_IT_CA_FILE" \
       --tls "$LATCHKEY_IT_LOCALHOST_CERT" "$LATCHKEY_IT_LOCALHOST_KEY"; then
  "$HERE/stop-mcp.sh" "$STATE"; exit 1
fi

cat > "$STATE/env.sh" <<ENV
export LATCHKEY_IT_MCP_RESOURCE=$(cat "$STATE/plain/resource")
export LATCHKEY_IT_MCP_RESOURCE_TLS=$(cat "$STATE/tls/resource")
export LATCHKEY_IT_MCP_ISSUER=$LATCHKEY_IT_ISSUER_RESOURCE/
export LATCHKEY_IT_MCP_ISSUER_TLS=$LATCHKEY_IT_ISSUER_RESOURCE_TLS
export LATCHKEY_IT_MCP_LOG=$STATE/plain/requests.log
export LATCHKEY_IT_MCP_LOG_TLS=$STATE/tls/requests.log
ENV
echo "mcp $VERSION resources: $(cat "$STATE/plain/resource") $(cat "$STATE/tls/resource")" >&2
