/**
 * Node entry: loads the `.wasm` synchronously on import (no top-level await, so `require()` works too).
 *
 * The file system comes from `process.getBuiltinModule` rather than `import … from 'node:fs'`: an ES import
 * of a built-in builds its whole export list, which for `node:fs` loads Node's streams, a few milliseconds of
 * every cold start spent on nothing this entry uses. The build bundles this entry into one module for the
 * same reason (see scripts/build.sh).
 */
import { initFromBytes, initFromUrl } from './wasm.js';

export * from './index.js';

const wasmUrl = new URL('../pkg/llm_response_sanitizer_bg.wasm', import.meta.url);
type FileSystem = typeof import('node:fs');
const fs = (globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined)?.getBuiltinModule?.(
  'node:fs',
) as FileSystem | undefined;

/**
 * Where the runtime has no `process.getBuiltinModule` (Node before 20.16, some other runtimes), the file is
 * read asynchronously and calls made before `await init()` throw an error that says to call it.
 */
const loading: Promise<void> | undefined =
  fs === undefined
    ? import('node:fs/promises').then((promises) => promises.readFile(wasmUrl)).then((bytes) => initFromUrl(bytes))
    : undefined;
if (fs !== undefined) initFromBytes(fs.readFileSync(wasmUrl));
// An unhandled rejection here would end the process before `init()` could report it.
loading?.catch(() => {});

/** Already done on import in Node; kept so code written for browsers runs unchanged. */
export function init(): Promise<void> {
  return loading ?? Promise.resolve();
}
