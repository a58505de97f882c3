#!/usr/bin/env bash
# Stops the processes a harness start script recorded in STATE_DIR/pids ("PID NAME" a line), and
# nothing else: SIGTERM, up to 2 s for them to go, then SIGKILL; removes the pids file. Shared by
# idp/stop-idp.sh, idpyoidc/, authlib/ and mcp/ (they were four copies of these lines).
# usage: stop-recorded.sh STATE_DIR
set -uo pipefail
STATE=${1:?usage: stop-recorded.sh STATE_DIR}
[ -f "$STATE/pids" ] || exit 0
while read -r pid _; do kill "$pid" 2>/dev/null; done < "$STATE/pids"
for _ in $(seq 1 40); do
  alive=0
  while read -r pid _; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$STATE/pids"
  [ "$alive" = 0 ] && break
  sleep 0.05
done
while read -r pid _; do kill -9 "$pid" 2>/dev/null; done < "$STATE/pids"
rm -f "$STATE/pids"
exit 0
