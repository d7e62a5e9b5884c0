/** Browser and bundler entry: `await init()` fetches and instantiates the `.wasm` once. */
import { initFromUrl } from './wasm.js';
import { decodeBase64 } from './base64.js';

export * from './index.js';

/**
 * Fetches and instantiates the WebAssembly module; idempotent. Pass a URL, a `Response`, bytes or a compiled
 * module to load it from elsewhere.
 *
 * By default the `.wasm` is fetched from beside this module, where bundlers that follow
 * `new URL(…, import.meta.url)` put it (Vite builds, webpack 5) and where an unbundled page finds it.
 * Where it is not there (esbuild or Rollup without a plugin, Vite's dev server pre-bundling this package),
 * the module loads a base64 copy of it instead: a separate chunk that bundlers which split code fetch only
 * then.
 */
export function init(
  source?: URL | string | Request | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): Promise<void> {
  if (source !== undefined) return initFromUrl(source);
  return initFromUrl(new URL('../pkg/llm_response_sanitizer_bg.wasm', import.meta.url)).catch(
    async (missing: unknown) => {
      let inline: string;
      try {
        inline = (await import('../pkg/llm_response_sanitizer_bg.wasm.base64.js')).default;
      } catch {
        throw missing;
      }
      return initFromUrl(decodeBase64(inline));
    },
  );
}
