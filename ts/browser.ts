/** Browser and bundler entry: `await init()` fetches and instantiates the `.wasm` once. */
import { initFromUrl } from './wasm.js';

export * from './index.js';

/** Fetches and instantiates the WebAssembly module; idempotent. Pass a URL or bytes to load it from elsewhere. */
export function init(source?: URL | string | ArrayBuffer | ArrayBufferView | WebAssembly.Module): Promise<void> {
  return initFromUrl(source ?? new URL('../pkg/llm_response_sanitizer_bg.wasm', import.meta.url));
}
