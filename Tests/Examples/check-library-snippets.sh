#!/usr/bin/env bash
# Checks that every ```swift block of docs/library.md is compiled: each must appear verbatim in a
# source file of the example package Tests/Examples/LibraryUser (which CI builds and runs), and each
# of that package's source files must be exactly one block, so the guide and the program cannot drift.
# Blocks marked ```swift testing are checked against Tests/Examples/LibraryUser/TestingSnippets/ when
# that folder exists; until then they are reported as pending (the LatchkeyTesting product is not
# built here yet). Exit 0 when everything is found, 1 otherwise.
#
# usage: Tests/Examples/check-library-snippets.sh [DOC [PACKAGE_DIR]]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DOC=${1:-$ROOT/docs/library.md}
PACKAGE=${2:-$ROOT/Tests/Examples/LibraryUser}
exec python3 - "$DOC" "$PACKAGE" <<'PY'
import os
import re
import sys

doc, package = sys.argv[1], sys.argv[2]
fence = re.compile(r"^```(.*)$")
blocks = {"swift": [], "swift testing": []}
current, kind, start = None, None, 0
for number, line in enumerate(open(doc, encoding="utf-8").read().split("\n"), 1):
    m = fence.match(line)
    if current is None and m:
        kind, current, start = " ".join(m.group(1).split()), [], number
    elif current is not None and line == "```":
        if kind in blocks:
            blocks[kind].append((start, "\n".join(current) + "\n"))
        current = None
    elif current is not None:
        current.append(line)
if current is not None:
    sys.exit(f"{doc}:{start}: unterminated code block")


def sources(folder):
    found = {}
    for directory, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                found[os.path.relpath(path, package)] = open(path, encoding="utf-8").read()
    return found


def unmatched(kind, files):
    """The blocks of `kind` that are in no file: (line, first code line)."""
    missing = []
    for start, text in blocks[kind]:
        if not any(text in body for body in files.values()):
            first = next((l for l in text.split("\n") if l.strip() and not l.startswith(("import", "//"))), "")
            missing.append((start, first.strip()))
    return missing


failures = []
if not blocks["swift"]:
    failures.append(f"{doc}: no ```swift blocks found")
files = sources(os.path.join(package, "Sources"))
for start, first in unmatched("swift", files):
    failures.append(f"{doc}:{start}: ```swift block not found verbatim under {package}/Sources ({first})")
# The other way round: every example source file is one block as a whole (no untaught code).
whole = {text.rstrip("\n") for _, text in blocks["swift"]}
for path, body in sorted(files.items()):
    if body.rstrip("\n") not in whole:
        failures.append(f"{package}/{path}: not a ```swift block of {doc} as a whole")
print(f"library snippets: {len(blocks['swift'])} ```swift blocks, {len(files)} example files")

testing_dir = os.path.join(package, "TestingSnippets")
if blocks["swift testing"]:
    if os.path.isdir(testing_dir):
        testing_files = sources(testing_dir)
        for start, first in unmatched("swift testing", testing_files):
            failures.append(f"{doc}:{start}: ```swift testing block not found verbatim under {testing_dir} ({first})")
        print(f"library snippets: {len(blocks['swift testing'])} ```swift testing blocks checked against {testing_dir}")
    else:
        lines = ", ".join(str(start) for start, _ in blocks["swift testing"])
        print(f"library snippets: PENDING {len(blocks['swift testing'])} ```swift testing block(s) (line {lines}): "
              f"no {testing_dir} yet, so they are not compiled")

for failure in failures:
    print("FAIL " + failure)
sys.exit(1 if failures else 0)
PY
