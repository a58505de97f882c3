#!/usr/bin/env bash
# Tests/Examples/demo-order.sh [DEMO_SCRIPT]: runs the README's first command (device/demo.sh, or
# the given copy of it) as a user would and checks that it worked and that its output reads in
# order (issue 31 §6): the line that introduces the QR code, then the whole QR block, then the
# stand-in header for the phone, then "signed in", status and the fetch, then "Done".
# Its own Glewlwyd ports (LATCHKEY_IT_PORT_BASE, default 14700 here), so that it can run while the
# test IdP of Tests/run-all.sh holds 14600-14630. The static build reuses LATCHKEY_SCRATCH.
# Exit 0 when every check holds; 1 with the failed check and the demo's output otherwise.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEMO=${1:-$ROOT/device/demo.sh}
OUT=$(mktemp /tmp/latchkey-demo-order.XXXXXX)
trap 'rm -f "$OUT"' EXIT
started=$(date +%s)
LATCHKEY_IT_PORT_BASE=${LATCHKEY_IT_PORT_BASE:-14700} timeout 600 bash "$DEMO" > "$OUT" 2>&1
status=$?
echo "demo: exit $status in $(( $(date +%s) - started ))s ($DEMO)"
python3 - "$OUT" "$status" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
status = int(sys.argv[2])
lines = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in text.split("\n")]
blocks = ("\u2588", "\u2580", "\u2584")
def first(pred, what, after=-1):
    for i, l in enumerate(lines):
        if i > after and pred(l):
            return i
    fail(f"no line {what} after line {after + 1}")
def fail(why):
    print(f"demo-order: FAIL: {why}")
    print("----- the demo's output -----")
    print(text)
    sys.exit(1)
if status != 0:
    fail(f"the demo exited {status}")
intro = first(lambda l: "Open " in l and "enter the code" in l, "telling the user where to go (Open … and enter the code …)")
qr = [i for i, l in enumerate(lines) if any(b in l for b in blocks)]
if not qr:
    fail("no QR block")
if qr[0] <= intro:
    fail(f"the QR block (line {qr[0] + 1}) comes before the line that introduces it (line {intro + 1})")
if qr != list(range(qr[0], qr[-1] + 1)):
    fail("the QR block is interrupted by other lines")
width = len(lines[qr[0]])
if len(qr) != (width + 1) // 2:
    fail(f"the QR block has {len(qr)} lines, a square of width {width} needs {(width + 1) // 2}")
stand_in = first(lambda l: "STAND-IN FOR THE PHONE" in l, "announcing the stand-in", intro)
if stand_in < qr[-1]:
    fail(f"the stand-in header (line {stand_in + 1}) comes before the end of the QR block (line {qr[-1] + 1})")
signed = first(lambda l: l.strip() == "device: signed in", "'device: signed in'", stand_in)
step6 = first(lambda l: l.startswith("== 6/6"), "'== 6/6'", signed)
first(lambda l: l.startswith("== Done"), "'== Done'", step6)
print(f"demo-order: ok (intro line {intro + 1}, QR lines {qr[0] + 1}-{qr[-1] + 1}, stand-in {stand_in + 1}, "
      f"signed in {signed + 1}, 6/6 {step6 + 1})")
PY
