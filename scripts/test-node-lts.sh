#!/usr/bin/env bash
# The npm API tests again under the current LTS Node (scripts/node-lts, fetched by scripts/bootstrap.sh):
# from Node 24 on the door reads results beyond Latin-1 as UTF-8, which the machine's Node never does.
set -euo pipefail
cd "$(dirname "$0")/.."
node=target/node-lts/bin/node
if [ ! -x "$node" ]; then
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    echo "test-node-lts: $node is missing; run scripts/bootstrap.sh" >&2
    exit 1
  fi
  echo "test-node-lts: skipped, no Node build from the npm registry for $(uname -s)-$(uname -m)"
  exit 0
fi
"$node" --version
# A glob, not the directory: Node 24 takes a directory argument for a file.
"$node" --test 'tests/ts/*.test.mjs'
