#!/usr/bin/env bash
# Stop what start-idp.sh started in STATE_DIR (by the process ids it recorded, nothing else).
# usage: stop-idp.sh STATE_DIR [--purge]   (--purge also deletes the state folder)
set -uo pipefail
STATE=${1:?usage: stop-idp.sh STATE_DIR [--purge]}
"$(dirname "$0")/../stop-recorded.sh" "$STATE"
[ "${2:-}" = "--purge" ] && rm -rf "$STATE"
exit 0
