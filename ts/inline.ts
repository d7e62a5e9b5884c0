/**
 * Entry with the WebAssembly inlined as base64: no file to fetch, serve or copy. For bundlers that do not
 * follow `new URL(…, import.meta.url)` (esbuild, Rollup), single-file builds and pages served without the
 * `application/wasm` type. It costs about a third more bytes than the separate `.wasm`.
 */
import { initFromBytes, initFromUrl } from './wasm.js';
import { decodeBase64 } from './base64.js';
import base64 from '../pkg/llm_response_sanitizer_bg.wasm.base64.js';

export * from './index.js';

/** The bytes, kept only until the module is ready. */
let bytes: Uint8Array | undefined = decodeBase64(base64);
try {
  // Ready on import where the host compiles synchronously (Node, workers, most browsers).
  initFromBytes(bytes);
  bytes = undefined;
} catch {
  // A host that compiles large modules only asynchronously (a browser's main thread): `init()` does.
}

/** Instantiates the inlined module; idempotent, and already done on import where the host allows it. */
export function init(): Promise<void> {
  if (bytes === undefined) return Promise.resolve();
  return initFromUrl(bytes).then(() => {
    bytes = undefined;
  });
}
