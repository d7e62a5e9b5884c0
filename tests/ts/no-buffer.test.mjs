// The door where there is no `Buffer` (browsers, Deno without Node's globals): input crosses as UTF-8 (short
// strings, copied by a loop, as Latin-1 or UTF-16) and results as UTF-8, ASCII with escapes, or UTF-16 (a
// value dense in characters beyond Latin-1; text after input written as UTF-16), read with `TextDecoder`.
// Run here in Node with `Buffer` hidden while the door loads (browser-door.mjs); the same forms run in
// Chromium in the packed-tarball tests.
import api from './browser-door.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { reasoningCases } from './fixtures.mjs';

const { parseAndRepair, repairJson, parseDetailed, PartialJsonParser, JsonRepairError, clean, StreamCleaner } = api;

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

test('short text beyond Latin-1 (copied by a loop, as UTF-16) and the text results after it, without Buffer', () => {
  // Up to 24 units the door copies a string itself, as UTF-16 when it holds a character beyond Latin-1;
  // text results (repairJson, clean, a stream's changes) then come back as UTF-16, read by TextDecoder.
  assert.equal(repairJson("{'s': '你好',}"), '{"s":"你好"}');
  assert.equal(parseDetailed("{'s': 'ü—你',}").json, '{"s":"ü—你"}');
  assert.equal(clean('<think>计划</think>你好，世界'), '你好，世界');
  for (const size of [1, 3, 10, 24]) {
    const text = `<think>让我想想……</think>{'s': '我们分析了这个模块的结构，发现它有三个主要的问题。', 'e': '😀', 'n': [1, 2,]}`;
    const cut = (t) => Array.from({ length: Math.ceil(t.length / size) }, (_, i) => t.slice(i * size, (i + 1) * size));
    const p = new PartialJsonParser();
    for (const chunk of cut(text)) p.push(chunk);
    assert.deepStrictEqual(p.finish(), parseAndRepair(text), `chunks of ${size}`);
    const c = new StreamCleaner();
    assert.equal(
      cut(text)
        .map((chunk) => c.push(chunk))
        .join('') + c.finish(),
      clean(text),
      `chunks of ${size}`,
    );
    assert.equal(c.reasoning, '让我想想……');
  }
});

test('a host whose TextDecoder reads no UTF-16 gets every text as UTF-8 instead', () => {
  // Without Buffer and without a UTF-16 decoder, short text beyond Latin-1 crosses as UTF-8 too, so that no
  // result comes back in a form the host cannot read. In a child process: the door looks once, at load.
  const script = `
    const saved = globalThis.Buffer;
    delete globalThis.Buffer;
    const Real = globalThis.TextDecoder;
    globalThis.TextDecoder = class extends Real {
      constructor(label, options) {
        if (String(label).toLowerCase().startsWith('utf-16')) throw new RangeError('no utf-16 here');
        super(label, options);
      }
    };
    const fs = await import('node:fs');
    const api = await import(${JSON.stringify(new URL('../../dist/browser.js', import.meta.url).href)});
    globalThis.Buffer = saved;
    globalThis.TextDecoder = Real;
    await api.init(fs.readFileSync(new URL(${JSON.stringify(new URL('../../pkg/llm_response_sanitizer_bg.wasm', import.meta.url).href)})));
    const p = new api.PartialJsonParser();
    for (const chunk of ["{'s': '你好", "，世界', 'e':", " '😀',}"]) p.push(chunk);
    const c = new api.StreamCleaner();
    const cleaned = ['<think>计划</think>', '你好', '，世界'].map((t) => c.push(t)).join('') + c.finish();
    process.stdout.write(JSON.stringify([api.repairJson("{'s': '你好',}"), api.clean('<think>计划</think>你好'), p.finish(), cleaned]));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.deepStrictEqual(out, ['{"s":"你好"}', '你好', { s: '你好，世界', e: '😀' }, '你好，世界']);
});

test('cleanDetailed reports the reasoning as the stream does without Buffer, a lone surrogate as U+FFFD', () => {
  for (const [got, expected, label] of reasoningCases(api)) assert.deepEqual(got, expected, label);
});
