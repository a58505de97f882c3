#!/usr/bin/env python3
"""Puts the fault x flow table that a test run produced (FaultInjectionTests writes one row per
case to $LATCHKEY_FAULT_TABLE; Tests/run-all.sh sorts them into <scratch>/fault-table.md) into
docs/security.md, between the fault-table markers, stamped with the date and commit of the run.
The table in the docs is therefore never written by hand.

usage: update_fault_table.py TABLE.md docs/security.md
"""
import re
import subprocess
import sys
import time

BEGIN, END = "<!-- fault-table:begin -->", "<!-- fault-table:end -->"


def main() -> None:
    table_path, doc_path = sys.argv[1], sys.argv[2]
    rows = open(table_path).read().strip()
    if rows.count("\n") < 3:
        sys.exit(f"{table_path}: no fault rows")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    # Times rounded for reading: the run measured them to the nanosecond.
    rows = re.sub(r"\| ([0-9.]+) seconds \|", lambda m: f"| {float(m.group(1)):.2f} s |", rows)
    stamp = f"Produced by `Tests/run-all.sh` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at commit {commit or 'unknown'}."
    doc = open(doc_path).read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{doc_path}: fault-table markers missing")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(doc_path, "w").write(f"{head}{BEGIN}\n{stamp}\n\n{rows}\n{END}{tail}")


if __name__ == "__main__":
    main()
