#!/usr/bin/env bash
# Stops what start-mcp.sh started in STATE_DIR (by the process ids it recorded, nothing else).
# usage: stop-mcp.sh STATE_DIR
exec "$(dirname "$0")/../stop-recorded.sh" "${1:?usage: stop-mcp.sh STATE_DIR}"
