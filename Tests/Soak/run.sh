#!/bin/sh
# The soak (issue 36): Tests/Soak/run.sh --minutes M --devices N --seed S [--binary PATH] [soak.py options]
# Prints the seed first; the same seed replays the same fault schedule. Exit 0 when the bar is met,
# 1 when it is broken, 2 when the run could not be made. See docs/reliability.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
binary=$(cd "$here/../.." && pwd)/.build/debug/latchkey
for a in "$@"; do case "$a" in --binary|--binary=*) binary=;; esac; done
if [ -n "$binary" ] && [ ! -x "$binary" ]; then
    echo "run.sh: no latchkey at $binary (build it, or give --binary)" >&2; exit 2
fi
python3 -c 'import cryptography' 2>/dev/null || { echo "run.sh: python3 needs the cryptography package" >&2; exit 2; }
if [ -n "$binary" ]; then set -- --binary "$binary" "$@"; fi
exec nice -n 10 python3 -u "$here/soak.py" "$@"
