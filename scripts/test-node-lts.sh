#!/usr/bin/env bash
# The npm API tests again under each LTS Node pinned in scripts/node-lts (fetched by scripts/bootstrap.sh into
# target/node-<major>): from Node 24 on the door reads results beyond Latin-1 as UTF-8, and from Node 26 on
# it writes such text so, which the machine's Node never does.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "test-node-lts: skipped, no Node build from the npm registry for $(uname -s)-$(uname -m)"
  exit 0
fi
failed=0
while read -r v; do
  [ -n "$v" ] || continue
  node="target/node-${v%%.*}/bin/node"
  if [ "$("$node" --version 2>/dev/null)" != "v$v" ]; then
    echo "test-node-lts: $node is not Node $v; run scripts/bootstrap.sh" >&2
    exit 1
  fi
  echo "--- Node $v"
  # A glob, not the directory: Node 24 takes a directory argument for a file.
  # stdin is the list being read: the tests get none.
  "$node" --test 'tests/ts/*.test.mjs' </dev/null || failed=1
done < scripts/node-lts
exit "$failed"
