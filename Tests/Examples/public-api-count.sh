#!/usr/bin/env bash
# Counts the public (and open) type declarations of each library module: struct, class, enum,
# protocol, actor and typealias, nested ones included (docs/library.md "Public API").
# usage: Tests/Examples/public-api-count.sh [REV]   (default: the working tree; REV: any commit, e.g. a tag)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
REV=${1:-}
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
  total=$((total + n))
done
printf '%-26s %d\n' total "$total"
