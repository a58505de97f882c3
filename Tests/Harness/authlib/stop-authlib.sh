#!/usr/bin/env bash
# Stops what start-authlib.sh started in STATE_DIR (by the process ids it recorded, nothing else).
# usage: stop-authlib.sh STATE_DIR
exec "$(dirname "$0")/../stop-recorded.sh" "${1:?usage: stop-authlib.sh STATE_DIR}"
