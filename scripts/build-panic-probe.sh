#!/usr/bin/env bash
# Builds the panic probe: the shipped module's build with the `panic-probe` feature, in which `repairText`
# panics on one exact input (src/wasm.rs `panic_probe`). It is built as the shipped module is, with panics
# that trap at once, so that tests/ts/panic.test.mjs can prove what a user would meet if the core ever
# panicked: a typed ModuleTrapError from the call that panicked, and a module that works again after it.
# Output: target/panic-probe/pkg (never shipped, never committed). Run after scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "${HOME:-/root}/.cargo/bin" ] && export PATH="${HOME:-/root}/.cargo/bin:$PATH"
name=llm_response_sanitizer
nightly=$(cat scripts/wasm-nightly)
RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort" cargo "+$nightly" build --release --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort --target-dir target/panic-probe --features panic-probe --quiet
rm -rf target/panic-probe/pkg
wasm-bindgen "target/panic-probe/wasm32-unknown-unknown/release/$name.wasm" --out-dir target/panic-probe/pkg \
  --target web --omit-default-module-path
