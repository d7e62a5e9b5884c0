#!/usr/bin/env bash
# Fuzzes one engine: `scripts/fuzz.sh TARGET [SECONDS]` (TARGET: repair, clean, partial or schema;
# default 60 s).
# Installs cargo-fuzz when missing, seeds the corpus from tests/fixtures, and runs libFuzzer on stable
# Rust without sanitizers (the engines forbid unsafe code; panics and hangs are what it finds).
# A crash is saved under fuzz/artifacts/TARGET/: turn it into a named regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target="${1:?usage: scripts/fuzz.sh repair|clean|partial|schema [SECONDS]}"
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
  partial)
    for f in tests/fixtures/repair/*.in; do
      [ -e "$corpus/$(basename "$f")" ] || { printf '\x05'; cat "$f"; } > "$corpus/$(basename "$f")"
    done ;;
  schema)
    # The schema suite (fetched into target/ by scripts/fetch-schema-suite.sh) and the extraction
    # corpus: schema text, a 0xFF byte, then a value or a response.
    bash scripts/fetch-schema-suite.sh >/dev/null
    node -e '
      const fs = require("fs"), path = require("path");
      const out = process.argv[1];
      const write = (name, schema, text) =>
        fs.writeFileSync(path.join(out, name), Buffer.concat([Buffer.from(JSON.stringify(schema)), Buffer.from([0xff]), Buffer.from(text)]));
      const dir = "target/schema-suite/tests/draft2020-12";
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
        JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")).forEach((group, g) =>
          group.tests.forEach((t, i) => write(`${file}-${g}-${i}`, group.schema, JSON.stringify(t.data))));
      }
      require("./tests/fixtures/extract/cases.json").forEach((c, i) =>
        write(`extract-${i}`, JSON.parse(fs.readFileSync(`tests/fixtures/extract/${c.schema}`, "utf8")), c.text));
    ' "$corpus" ;;
esac
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo fuzz run -s none -O "$target" "$corpus" -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 >"$log" 2>&1 || status=$?
grep -E "^#[0-9]+ +(DONE|pulse)|Done [0-9]+ runs|SUMMARY|panicked|ERROR|Test unit written" "$log" || true
# A build failure writes no "Done": show the log rather than pass quietly.
grep -q "Done [0-9]* runs" "$log" || { tail -30 "$log"; echo "fuzz: $target did not run to the end (exit $status)"; exit 1; }
test ! -d "fuzz/artifacts/$target" || ! ls "fuzz/artifacts/$target" | grep -q . || { echo "fuzz: crash saved in fuzz/artifacts/$target"; exit 1; }
