#!/usr/bin/env bash
# Builds everything: Rust -> wasm32 -> wasm-bindgen (--target web) -> wasm-opt (npm binaryen) -> tsc.
# Output: pkg/ (bindings and .wasm) and dist/ (the TypeScript wrapper); both are generated, never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
# cargo, rustup and the tools cargo installs live here; CI may start with a PATH that lacks it.
[ -d "${HOME:-/root}/.cargo/bin" ] && export PATH="${HOME:-/root}/.cargo/bin:$PATH"
bash scripts/bootstrap.sh --no-browser

name=llm_response_sanitizer
# The shipped module is built by a pinned nightly (scripts/wasm-nightly) that rebuilds the standard crates
# with panics that trap at once: core's panic messages, their formatting and the panic locations are then
# not in the module (-4.2 KB gzipped, the same speed; a panic traps either way, see src/wasm.rs). Its own
# target directory keeps the stable toolchain's builds (clippy, the wasm tests) from rebuilding each time.
# `--cfg shipped` lets code that runs once per call (the locator, the bindings' cold entries, extraction's
# candidate loop) be optimized for size there (`optimize(size)`, a nightly attribute; src/lib.rs).
nightly=$(cat scripts/wasm-nightly)
RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort --cfg shipped" cargo "+$nightly" build --release --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort --target-dir target/shipped --quiet
rm -rf pkg
wasm-bindgen "target/shipped/wasm32-unknown-unknown/release/$name.wasm" --out-dir pkg --target web --omit-default-module-path
# Re-creation after a trap (ts/wasm.ts `recreate`): the glue keeps its instance in module variables and
# initializes once, so it gets exports that make a new instance of the same compiled module under the same
# glue, and one that takes an object off the glue's finalizer, which would free a dropped object's address
# in whatever instance is current (the door frees dropped objects itself, only in their own instance). They
# name the glue's own internals; if a wasm-bindgen upgrade renames them, the build stops here.
glue="pkg/${name}.js"
for internal in 'function __wbg_finalize_init(instance, module)' 'function __wbg_get_imports()' 'let wasmModule, wasmInstance, wasm;'; do
  grep -qF "$internal" "$glue" || { echo "build: the wasm-bindgen glue no longer has '$internal' (see ts/wasm.ts recreate)" >&2; exit 1; }
done
registries=$(grep -oE '^const [A-Za-z]+Finalization = ' "$glue" | awk '{printf "%s.unregister(object); ", $2}')
[ "$(grep -c '^export class ' "$glue")" = "$(grep -cE '^const [A-Za-z]+Finalization = ' "$glue")" ] && [ -n "$registries" ] ||
  { echo "build: the wasm-bindgen glue no longer has one FinalizationRegistry per class (see ts/wasm.ts own)" >&2; exit 1; }
cat >> "$glue" <<GLUE

/** Added by scripts/build.sh: takes \`object\` off the glue's finalizer. */
export function detachFinalizer(object) { ${registries}}
GLUE
cat >> "$glue" <<'GLUE'

/** Added by scripts/build.sh: the compiled module, to instantiate again after a trap. */
export function compiledModule() { return wasmModule; }
/** Added by scripts/build.sh: the imports a new instance needs. */
export function instanceImports() { return __wbg_get_imports(); }
/** Added by scripts/build.sh: makes `instance` the one every binding calls into. */
export function adoptInstance(instance) { return __wbg_finalize_init(instance, wasmModule); }
GLUE
cat >> "pkg/${name}.d.ts" <<'GLUE'

/** Added by scripts/build.sh: the compiled module, to instantiate again after a trap. */
export function compiledModule(): WebAssembly.Module;
/** Added by scripts/build.sh: the imports a new instance needs. */
export function instanceImports(): WebAssembly.Imports;
/** Added by scripts/build.sh: makes `instance` the one every binding calls into. */
export function adoptInstance(instance: WebAssembly.Instance): InitOutput;
/** Added by scripts/build.sh: takes `object` off the glue's finalizer. */
export function detachFinalizer(object: object): void;
GLUE
# -O3: measured 1.6x faster than -Oz at the same gzipped size. --low-memory-unused lets it fold addresses
# into load offsets: Rust's wasm32 layout puts the stack first, so the low 1 KB is never addressed
# (-1 KB gzipped). --converge repeats the passes while they still shrink the module: 182 bytes gzipped
# less, speed unchanged. The producers and target-features sections matter only before wasm-bindgen.
# Debian's /usr/bin/wasm-opt (binaryen 108) breaks wasm-bindgen's externref table: always use the npm one.
# `--no-inline` (before -O3, by the names wasm-bindgen keeps) leaves as calls functions that run once per call,
# per chunk or per schema: binaryen inlines every function with one caller, whatever LLVM decided, and
# inlined these cost 911 bytes gzipped more. Their calls are not per token: A/B in one process,
# parseAndRepair on the script documents 0.96–1.01 the time, extraction 0.96–0.99, streams within their
# run-to-run spread (0.89–1.10, rows moving both ways).
# The patterns match the names' ends; a trailing `*` takes a function's closures too.
noinline=('compile_node*' 'Validator*keyword*' 'Schema>::compile' 'repair::candidates' 'Cleaner>::new'
  utf16_to_utf8_in_place 'JsPartialJson>::push')
node_modules/.bin/wasm-opt "${noinline[@]/#/--no-inline=*}" -O3 --converge --low-memory-unused --strip-producers \
  --strip-target-features "pkg/${name}_bg.wasm" -o "pkg/${name}_bg.wasm"
# The same bytes as base64, for the `inline` entry and the single-file build (no file to fetch or copy).
node -e '
const fs = require("fs");
const b64 = fs.readFileSync(process.argv[1]).toString("base64");
fs.writeFileSync(process.argv[1] + ".base64.js", "export default " + JSON.stringify(b64) + ";\n");
fs.writeFileSync(process.argv[1] + ".base64.d.ts", "/** The WebAssembly module, base64. */\ndeclare const base64: string;\nexport default base64;\n");
' "pkg/${name}_bg.wasm"
# The core's vocabulary (repair kinds, reasoning tags, limits, wire codes) for the TypeScript side.
node scripts/vocabulary.mjs
rm -rf dist
node_modules/.bin/tsc -p tsconfig.json
# CommonJS consumers (`module: node16`) resolve the "require" condition: the same declarations as .d.cts,
# whose relative imports name .cjs, so TypeScript reads them as CommonJS.
mkdir -p dist/cjs
for f in dist/*.d.ts; do
  sed -E -e "s#(from|import\() '(\./[^']+)\.js'#\1 '\2.cjs'#g" -e "s#(from|import\() '\.\./pkg/([^']+)\.js'#\1 '../../pkg/\2.cjs'#g" \
    "$f" > "dist/cjs/$(basename "$f" .d.ts).d.cts"
done
# A CommonJS build of the Node entry for loaders that cannot require() ES modules (Jest's module system,
# Node before 20.19, ts-node in CommonJS mode). It reads the same .wasm: `import.meta.url` becomes dist/node.js.
node_modules/.bin/esbuild dist/node.js --bundle --format=cjs --platform=node --target=node18 --log-level=warning --minify-whitespace --minify-syntax \
  --define:import.meta.url=__module_url \
  --banner:js="const __module_url = require('node:url').pathToFileURL(require('node:path').join(__dirname, '..', 'node.js')).href;" \
  --outfile=dist/cjs/index.cjs
# The Node entry as one module: Node resolves, reads and compiles each ES module of a graph on its own, and
# the thirty of the TypeScript output cost more than 20 ms of every cold start (import plus first call: 56 ms
# unbundled, 26 ms bundled, in separate processes). The other entries stay unbundled for the bundlers that
# import them; the CommonJS build above is bundled from the same file.
node_modules/.bin/esbuild dist/node.js --bundle --format=esm --platform=node --target=node20 --log-level=warning \
  --minify-whitespace --minify-syntax --allow-overwrite --outfile=dist/node.js
# One file for a page with no bundler (one request, nothing to serve beside it): the inline entry, bundled.
node_modules/.bin/esbuild dist/inline.js --bundle --format=esm --target=es2022 --minify --legal-comments=none \
  --log-level=warning --outfile=dist/standalone.js
printf '[build] pkg/%s_bg.wasm: %s bytes, %s gzipped\n' "$name" "$(wc -c < "pkg/${name}_bg.wasm")" "$(gzip -9c "pkg/${name}_bg.wasm" | wc -c)" >&2
