/** Node entry: loads the `.wasm` synchronously on import (no top-level await, so `require()` works too). */
import { readFileSync } from 'node:fs';
import { initFromBytes } from './wasm.js';

initFromBytes(readFileSync(new URL('../pkg/llm_response_sanitizer_bg.wasm', import.meta.url)));

export * from './index.js';

/** Already done on import in Node; kept so code written for browsers runs unchanged. */
export function init(): Promise<void> {
  return Promise.resolve();
}
