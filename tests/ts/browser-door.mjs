// The browser entry as a browser has it, for tests that run the browser door in Node: `Buffer` hidden while
// the door loads (it looks once, at load), the module's bytes given to `init`. Import it before anything that
// loads an entry point.
import { readFileSync } from 'node:fs';

const saved = globalThis.Buffer;
delete globalThis.Buffer;
const api = await import('../../dist/browser.js');
globalThis.Buffer = saved;
await api.init(readFileSync(new URL('../../pkg/llm_response_sanitizer_bg.wasm', import.meta.url)));

export default api;
