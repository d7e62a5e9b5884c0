#!/usr/bin/env bash
# The whole suite, exactly what CI runs (`npm test`): tools, build, lint, Rust native, Rust under wasm (Node
# and headless Chromium), the npm API, the type-check of a consumer, the packed tarball, and the browser e2e.
set -uo pipefail
cd "$(dirname "$0")/.."
# cargo, rustup and the tools cargo installs live here; CI may start with a PATH that lacks it.
[ -d "${HOME:-/root}/.cargo/bin" ] && export PATH="${HOME:-/root}/.cargo/bin:$PATH"

passed=0
failed=0
failures=()
stage() {
  local name=$1
  shift
  printf '\n=== %s\n' "$name"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

bash scripts/bootstrap.sh || { echo "bootstrap failed"; exit 1; }
bash scripts/build.sh || { echo "build failed"; exit 1; }
# A test-only build whose core panics on one input (tests/ts/panic.test.mjs).
bash scripts/build-panic-probe.sh || { echo "building the panic probe failed"; exit 1; }
bash scripts/fetch-schema-suite.sh || { echo "fetching the JSON-Schema-Test-Suite failed"; exit 1; }

export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export CHROMEDRIVER=/usr/bin/chromedriver

stage "cargo fmt --check" cargo fmt --all --check
stage "cargo clippy (native, all targets)" cargo clippy --quiet --workspace --all-targets --features serde_json -- -D warnings
stage "cargo clippy (wasm32, with the test-only panic probe)" cargo clippy --quiet --workspace --target wasm32-unknown-unknown --features panic-probe -- -D warnings
stage "rustdoc, warnings denied" env RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --workspace --features serde_json
stage "biome: TypeScript and JavaScript lint and format (biome ci)" node_modules/.bin/biome ci --reporter=summary
stage "cargo test (native: unit, corpus, properties, doc; the serde_json example)" bash -c 'cargo test --quiet --workspace --features serde_json && cargo run --quiet --features serde_json --example serde_values'
stage "fuzz smoke: repair, clean, partial, schema, 10 s each (scripts/fuzz.sh)" bash -c 'for t in repair clean partial schema; do bash scripts/fuzz.sh "$t" 10 || exit 1; done'
stage "linear growth on adversarial input, counted in instructions (valgrind)" node --test tests/adversarial/
stage "wasm tests in Node" cargo test --target wasm32-unknown-unknown --test wasm_node
stage "wasm tests in headless Chromium" cargo test --target wasm32-unknown-unknown --test wasm_browser
stage "tsc --noEmit (sources; consumers of the public .d.ts: DOM, ES2022 alone, Node-only, CommonJS node16, zod/arktype inference)" bash -c 'node_modules/.bin/tsc -p tsconfig.json --noEmit && for c in tsconfig tsconfig.es2022 tsconfig.node-only tsconfig.commonjs tsconfig.ecosystem; do node_modules/.bin/tsc -p tests/types/$c.json || { echo "type test $c failed"; exit 1; }; done'
stage "npm API tests (node --test)" node --test tests/ts/
stage "npm API tests under Node $(paste -sd' ' scripts/node-lts | sed 's/ / and /g') (the LTS lines: text beyond Latin-1 crosses as UTF-8)" bash scripts/test-node-lts.sh
stage "packed tarball: Node ESM, require, browser page, Web Worker, Vite, size" node tests/e2e/package.test.mjs
stage "packed tarball through esbuild, webpack 5, Rollup, Vite dev, the one-file build and workerd" node tests/e2e/bundlers.test.mjs
stage "demo page in headless Chromium" node tests/e2e/demo.test.mjs

printf '\n=== summary\n'
for f in "${failures[@]}"; do printf 'FAILED: %s\n' "$f"; done
printf 'stages: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
