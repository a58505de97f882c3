#!/usr/bin/env python3
"""Times whole processes alternately, one of each command per round, so load changes hit all alike.

usage: alternate.py RUNS WHAT COMMANDS_JSON
  COMMANDS_JSON: {"name": [argv...], ...}; the first command is the base of the ratio column.
Prints a Markdown table of medians, p90 and ratios (medians), wall time in ms from spawn to exit.
A command that exits non-zero ends the run.
"""
import json, os, statistics, sys, time

runs, what, cmds = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
devnull = os.open(os.devnull, os.O_WRONLY)


def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed")
    return (time.perf_counter_ns() - t0) / 1e6


times = {k: [] for k in cmds}
for _ in range(runs):
    for name, argv in cmds.items():
        times[name].append(once(argv))
first = next(iter(cmds))
base = statistics.median(times[first])
print(f"{runs} alternating rounds; {what} wall time in ms")
print(f"| command | median | p90 | ratio to `{first}` (medians) |")
print("| --- | --- | --- | --- |")
for name, t in times.items():
    t.sort()
    med, p90 = statistics.median(t), t[int(0.9 * len(t))]
    print(f"| `{name}` | {med:.2f} | {p90:.2f} | {med / base:.2f} |")
