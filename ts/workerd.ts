/**
 * Entry for Workers-style runtimes (Cloudflare Workers, workerd, Miniflare), chosen by the `workerd` export
 * condition. They do not compile WebAssembly from bytes at run time; their bundler imports a `.wasm` file as
 * a compiled `WebAssembly.Module`, which is instantiated synchronously here.
 */
import compiled from '../pkg/llm_response_sanitizer_bg.wasm';
import { initFromBytes } from './wasm.js';

initFromBytes(compiled);

export * from './index.js';

/** Already done on import; kept so code written for browsers runs unchanged. */
export function init(): Promise<void> {
  return Promise.resolve();
}
