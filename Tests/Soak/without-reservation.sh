#!/usr/bin/env bash
# Shows that the soak catches a client defect (issue 36): builds the static binary of this tree with
# the refresh reservation taken out, then runs the soak against it with full disks as the only
# fault. Without the reservation a refresh is sent although its answer cannot be saved: the
# provider rotates, the save fails, the spent token stays on disk and the next refresh is a reuse
# that revokes the family. The soak must count those losses against the client (BAR: BROKEN).
#   Tests/Soak/without-reservation.sh [--minutes M] [--seed S]   (defaults: 3 minutes, seed 38)
# Needs root (the soak's tmpfs). The build goes to a worktree under ${TMPDIR:-/tmp}, removed at
# the end; the tree itself is not changed. Exit 0 when the soak broke its bar as it should, 1 when
# it did not (the demonstration failed), 2 when it could not be made.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MINUTES=3 SEED=38
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) MINUTES=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "without-reservation: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/latchkey-noreserve.XXXXXX")
cleanup() { git -C "$ROOT" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
git -C "$ROOT" worktree add --detach "$work/tree" HEAD >/dev/null
refresher=$work/tree/Sources/Latchkey/Session/Refresher.swift
# The one change: the reservation is a plain save (UnreservedSave reserves nothing).
pattern='do { return try store.reserveSave(for: session) } catch { throw .storage(error) }'
grep -qF "$pattern" "$refresher" || { echo "without-reservation: Refresher.reserve is not as expected; update this script" >&2; exit 2; }
python3 - "$refresher" "$pattern" <<'EOF'
import sys
path, pattern = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(pattern, "return UnreservedSave(store: store)"))
EOF
echo "== building the static binary without the refresh reservation"
LATCHKEY_SCRATCH=$work/build bash "$work/tree/device/build-static.sh" | grep -E '^(path|sha256):' || exit 2
echo "== the soak, full disks only (--faults disk-full), $MINUTES min, seed $SEED"
set +e
"$ROOT/Tests/Soak/run.sh" --minutes "$MINUTES" --devices 4 --seed "$SEED" --faults disk-full --fault-gap 4 \
  --binary "$work/build/latchkey-static" | grep -E '^(BAR|lost|seed)|session lost'
rc=${PIPESTATUS[0]}
set -e
case $rc in
  1) echo "without-reservation: the soak broke its bar, as it must without the reservation"; exit 0 ;;
  0) echo "without-reservation: the soak met its bar without the reservation: it did not catch the defect" >&2; exit 1 ;;
  *) echo "without-reservation: the soak could not run (exit $rc)" >&2; exit 2 ;;
esac
