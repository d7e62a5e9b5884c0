#!/usr/bin/env bash
# Fuzzes one engine: `scripts/fuzz.sh TARGET [SECONDS]` (TARGET: repair or clean; default 60 s).
# Installs cargo-fuzz when missing, seeds the corpus from tests/fixtures, and runs libFuzzer on stable
# Rust without sanitizers (the engines forbid unsafe code; panics and hangs are what it finds).
# A crash is saved under fuzz/artifacts/TARGET/: turn it into a named regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target="${1:?usage: scripts/fuzz.sh repair|clean [SECONDS]}"
seconds="${2:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
corpus="fuzz/corpus/$target"
mkdir -p "$corpus"
case "$target" in
  repair) cp -n tests/fixtures/repair/*.in "$corpus/" 2>/dev/null || true ;;
  clean)
    node -e '
      const { cases } = require("./tests/fixtures/clean/cases.json");
      const fs = require("fs");
      cases.forEach((c, i) => fs.writeFileSync(`'"$corpus"'/case-${i}`, "\x00\x05\x03" + c.input));
    ' ;;
esac
cargo fuzz run -s none -O "$target" "$corpus" -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 2>&1 |
  grep -E "^#[0-9]+ +(DONE|pulse)|Done [0-9]+ runs|SUMMARY|panicked|ERROR|Test unit written" || true
test ! -d "fuzz/artifacts/$target" || ! ls "fuzz/artifacts/$target" | grep -q . || { echo "fuzz: crash saved in fuzz/artifacts/$target"; exit 1; }
