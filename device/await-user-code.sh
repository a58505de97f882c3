#!/usr/bin/env bash
# Prints the user code of the first `verification` event in a `latchkey login --json` events file,
# waiting while the login (PID) still runs, up to 60 s (a deadline, however slow each look is on a
# loaded machine); exits 1 when none came. Shared by the
# minimal-root smoke test and the package install test, which both approve from outside the root.
# usage: device/await-user-code.sh EVENTS_FILE LOGIN_PID
set -uo pipefail
events=${1:?usage: await-user-code.sh EVENTS_FILE LOGIN_PID}
pid=${2:?usage: await-user-code.sh EVENTS_FILE LOGIN_PID}
deadline=$((SECONDS + 60))
while [ "$SECONDS" -lt "$deadline" ]; do
  code=$("${PYTHON:-python3}" -c 'import json,sys
for l in open(sys.argv[1]):
    try: e = json.loads(l)
    except ValueError: continue
    if e.get("event") == "verification": print(e["user_code"]); break' "$events" 2>/dev/null || true)
  [ -n "$code" ] && { echo "$code"; exit 0; }
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
exit 1
