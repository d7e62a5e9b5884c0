// The door where there is no `Buffer` (browsers, Deno without Node's globals): input crosses as UTF-8 and
// results as UTF-8, ASCII with escapes, or UTF-16 for a value dense in characters beyond Latin-1, read with
// `TextDecoder`. Run here in Node with `Buffer` hidden while the door loads (it looks once); the same forms
// run in Chromium in the packed-tarball tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const saved = globalThis.Buffer;
delete globalThis.Buffer;
const api = await import('../../dist/browser.js');
globalThis.Buffer = saved;
await api.init(readFileSync(new URL('../../pkg/llm_response_sanitizer_bg.wasm', import.meta.url)));
const { parseAndRepair, repairJson, parseDetailed, PartialJsonParser, JsonRepairError } = api;

test('values of every script come back whole without Buffer, dense ones as UTF-16', () => {
  for (const s of [
    'plain ascii',
    'déjà vu ÿ « » ©',
    '“curly” — wait… 😀',
    '你好世界'.repeat(30),
    'привет мир, как дела?'.repeat(10),
    '😀🚀✨'.repeat(20),
    'مرحبا بالعالم'.repeat(8),
    `${'日本語'.repeat(10)} "quoted" \\ back\nslash é ÿ`,
    `你${'a'.repeat(200)}`,
  ]) {
    const text = `{'s': ${JSON.stringify(s)}, 'n': [1, 2,], 't': True}`;
    assert.deepStrictEqual(parseAndRepair(text), { s, n: [1, 2], t: true }, text);
    assert.equal(repairJson(text), JSON.stringify({ s, n: [1, 2], t: true }));
    assert.deepStrictEqual(parseDetailed(text).value, { s, n: [1, 2], t: true });
    const p = new PartialJsonParser();
    p.push(text.slice(0, 7));
    p.push(text.slice(7));
    assert.deepStrictEqual(p.finish(), { s, n: [1, 2], t: true });
  }
  assert.deepStrictEqual(parseAndRepair('{"a": "你好\ud800",}'), { a: '你好\ufffd' });
  assert.deepEqual(parseAndRepair('{"s": "你好"}'), { s: '你好' });
  assert.throws(
    () => parseAndRepair('你好世界, no JSON here'),
    (e) => e instanceof JsonRepairError && e.kind === 'no_json',
  );
});
