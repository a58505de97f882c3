#!/usr/bin/env bash
# Counts the public (and open) type declarations of each library module: struct, class, enum,
# protocol, actor and typealias, nested ones included (docs/library.md "Public API").
# usage: Tests/Examples/public-api-count.sh [REV]   (default: the working tree; REV: any commit, e.g. a tag)
#        Tests/Examples/public-api-count.sh --check   (the tree against docs/library.md's "now" column and
#        the core's budget of 80, issue 33; exit 1 on a difference)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
REV=${1:-}
check=0
if [ "$REV" = --check ]; then check=1; REV=; fi
budget=80
failed=0
pattern='^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*(public|open)\s+((final|indirect|nonisolated)\s+)*(struct|class|enum|protocol|actor|typealias)\s'
total=0
printf '%-26s %s\n' module "public types${REV:+ at $REV}"
for module in Latchkey LatchkeyRegistration LatchkeyCrypto LatchkeyHTTP LatchkeyJOSE LatchkeyQR LatchkeyTesting LatchkeyFoundationCompat; do
  if [ -n "$REV" ]; then
    n=$(git grep -hE "$pattern" "$REV" -- "Sources/$module/*.swift" | wc -l)
  else
    n=$(grep -rhE "$pattern" "Sources/$module" --include='*.swift' | wc -l)
  fi
  printf '%-26s %d\n' "$module" "$n"
  if [ "$check" = 1 ]; then
    documented=$(grep -E "^\| \`$module\` \| ([0-9]+|—) \|" docs/library.md | awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}')
    if [ "$documented" != "$n" ]; then
      echo "FAIL: docs/library.md says $module has ${documented:-no count} public types; the tree has $n" >&2
      failed=1
    fi
    if [ "$module" = Latchkey ] && [ "$n" -gt "$budget" ]; then
      echo "FAIL: the core has $n public types, over the budget of $budget (issue 33)" >&2
      failed=1
    fi
  fi
  total=$((total + n))
done
printf '%-26s %d\n' total "$total"
exit "$failed"
