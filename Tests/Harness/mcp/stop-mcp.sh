#!/usr/bin/env bash
# Stops what start-mcp.sh started in STATE_DIR (by the process ids it recorded, nothing else).
# usage: stop-mcp.sh STATE_DIR
set -uo pipefail
STATE=${1:?usage: stop-mcp.sh STATE_DIR}
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
