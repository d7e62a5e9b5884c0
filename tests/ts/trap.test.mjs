// A trap inside the module (here a real one: out of memory, in a copy of the module whose memory may grow
// only 4 MiB) must cost the call that trapped and nothing else: that call throws a ModuleTrapError, the
// module is re-created at once, later calls work, compiled schemas go on working, and the streaming objects
// made before say they are stale instead of trapping or corrupting the new instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { capMemory } from './capped-memory.mjs';
// The browser entry takes the module's bytes from the caller; the Node entry would load the shipped file.
import {
  init,
  wasmMemorySize,
  parseAndRepair,
  repairJson,
  parseDetailed,
  extract,
  compileSchema,
  StreamCleaner,
  PartialJsonParser,
  clean,
  cleanDetailed,
  ModuleTrapError,
  JsonRepairError,
} from '../../dist/browser.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const wasm = readFileSync(new URL('../../pkg/llm_response_sanitizer_bg.wasm', import.meta.url));
await init(capMemory(wasm, 64));
const INITIAL = wasmMemorySize();

/** Control characters are escaped six bytes each: two million of them need more memory than there is. */
const TOO_BIG = `["${'\u0001'.repeat(2_000_000)}`;

function assertTrapped(call) {
  assert.throws(call, (e) => {
    assert.ok(e instanceof ModuleTrapError, `${e?.name}: ${e?.message}`);
    assert.equal(e.name, 'ModuleTrapError');
    assert.equal(e.reason, 'trapped');
    assert.ok(e.cause instanceof WebAssembly.RuntimeError);
    assert.match(e.message, /trapped .* re-created/);
    return true;
  });
}

function assertStale(call, what) {
  assert.throws(call, (e) => e instanceof ModuleTrapError && e.reason === 'stale' && e.message.startsWith(what));
}

function cleanAll(cleaner, chunks) {
  let out = '';
  for (const c of chunks) out += cleaner.push(c);
  return out + cleaner.finish();
}

const CHUNKS = ['<think>plan ', 'more</think>', 'Assistant: Halt! ', 'Who goes there?'];
const CLEANED = 'Halt! Who goes there?';

test('the capped module works until it runs out of memory', () => {
  assert.deepEqual(parseAndRepair('{"a": [1, 2,]}'), { a: [1, 2] });
  assert.equal(cleanAll(new StreamCleaner({ removeAssistantPrefix: true }), CHUNKS), CLEANED);
});

test('a trap in a one-shot call is a ModuleTrapError, and the next call works on a fresh instance', () => {
  assertTrapped(() => repairJson(TOO_BIG));
  assert.equal(wasmMemorySize(), INITIAL);
  assert.deepEqual(parseAndRepair('[1, 2'), [1, 2]);
  assert.deepEqual(
    parseDetailed("{'a': 1}").repairs.map((r) => r.kind),
    ['single_quotes'],
  );
  // What is not a trap is thrown as it always was.
  assert.throws(() => parseAndRepair('no json here'), JsonRepairError);
  assert.throws(() => parseAndRepair(42), TypeError);
});

test('streaming objects made before a trap are stale; freeing them is harmless; new ones work', () => {
  const cleaner = new StreamCleaner({ removeAssistantPrefix: true });
  cleaner.push(CHUNKS[0]);
  const parser = new PartialJsonParser();
  parser.push('{"a": [1, ');
  assertTrapped(() => repairJson(TOO_BIG));
  assertStale(() => cleaner.push('x'), 'StreamCleaner');
  assertStale(() => cleaner.finish(), 'StreamCleaner');
  assertStale(() => parser.push('2]}'), 'PartialJsonParser');
  assertStale(() => parser.finish(), 'PartialJsonParser');
  cleaner.free();
  parser.free();
  cleaner[Symbol.dispose]();
  assert.equal(cleanAll(new StreamCleaner({ removeAssistantPrefix: true }), CHUNKS), CLEANED);
  const fresh = new PartialJsonParser();
  fresh.push('{"a": [1, ');
  assert.deepEqual(fresh.push('2]}').value, { a: [1, 2] });
  fresh.free();
});

test('a trap inside a stream costs that stream only', () => {
  const parser = new PartialJsonParser();
  parser.push('{"note": "');
  assertTrapped(() => parser.push('x'.repeat(4_000_000)));
  assertStale(() => parser.push('"}'), 'PartialJsonParser');
  const cleaner = new StreamCleaner();
  assertTrapped(() => cleaner.push('y'.repeat(4_000_000)));
  assertStale(() => cleaner.finish(), 'StreamCleaner');
  assert.equal(cleanAll(new StreamCleaner({ removeAssistantPrefix: true }), CHUNKS), CLEANED);
});

test('clean() traps alone, and after a trap cleans with a cleaner of the new instance', () => {
  const options = { removeAssistantPrefix: true };
  // clean() keeps a cleaner for its last options: it was made in the instance that is about to go.
  assert.equal(clean(CHUNKS.join(''), options), CLEANED);
  assertTrapped(() => clean('y'.repeat(4_000_000), options));
  assert.equal(wasmMemorySize(), INITIAL);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(cleanDetailed(CHUNKS.join(''), options), { text: CLEANED, reasoning: 'plan more' });
    assert.equal(clean(` ${CHUNKS.join('')} `, options), CLEANED);
  }
  assertTrapped(() => repairJson(TOO_BIG));
  assert.equal(clean(CHUNKS.join(''), options), CLEANED);
});

test('a compiled schema goes on working after a trap, even one that trapped itself', () => {
  const schema = compileSchema({
    type: 'object',
    properties: { n: { type: 'integer' } },
    required: ['n'],
  });
  assert.deepEqual(extract('{"n": "4"}', schema).value, { n: 4 });
  assertTrapped(() => repairJson(TOO_BIG));
  assert.deepEqual(extract('{"n": "5"}', schema).value, { n: 5 });
  assert.equal(schema.validate({ n: 'x' }).valid, false);
  assertTrapped(() => extract(TOO_BIG, schema));
  assert.deepEqual(extract('Sure: {"n": 6,}', schema).value, { n: 6 });
  // As the guide of a streaming parser made after the trap.
  const parser = new PartialJsonParser({ schema });
  assert.deepEqual(parser.push('{"n": "7"}').value, { n: 7 });
  parser.free();
  // A plain JSON Schema from the cache of compiled schemas, too.
  const plain = { type: 'array', items: { type: 'number' } };
  assert.deepEqual(extract('[1, "2"]', plain).value, [1, 2]);
  assertTrapped(() => repairJson(TOO_BIG));
  assert.deepEqual(extract('[3, "4"]', plain).value, [3, 4]);
  schema.free();
});

test('objects dropped before a trap never free memory of the new instance when they are collected', async () => {
  // Without being detached from the glue's finalizers, each would free its old address in the new
  // instance, where the allocator hands out the same addresses again: to the objects made below.
  for (let i = 0; i < 200; i++) {
    new StreamCleaner().push('<think>held');
    new PartialJsonParser().push('{"held": [1, 2, ');
  }
  assertTrapped(() => repairJson(TOO_BIG));
  const cleaners = [];
  const parsers = [];
  for (let i = 0; i < 200; i++) {
    const c = new StreamCleaner({ removeAssistantPrefix: true });
    c.push(CHUNKS[0]);
    cleaners.push(c);
    const p = new PartialJsonParser();
    p.push(`{"i": ${i}, "list": [`);
    parsers.push(p);
  }
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  for (let i = 0; i < 200; i++) {
    assert.equal(cleaners[i].push(CHUNKS[1]) + cleanAll(cleaners[i], CHUNKS.slice(2)), CLEANED);
    assert.deepEqual(parsers[i].finish(), { i, list: [] });
  }
});

test('the module recovers from trap after trap', () => {
  for (let i = 0; i < 5; i++) {
    assertTrapped(() => repairJson(TOO_BIG));
    assert.equal(wasmMemorySize(), INITIAL);
    assert.deepEqual(parseAndRepair(`{"round": ${i},}`), { round: i });
  }
});

test('where the host refuses to instantiate synchronously, calls say so until init() has waited', async () => {
  // As a browser's main thread may: the re-creation then happens in the background.
  const { Instance } = WebAssembly;
  WebAssembly.Instance = function refuse() {
    throw new RangeError('WebAssembly.Instance is disallowed on the main thread; use WebAssembly.instantiate');
  };
  try {
    assertTrapped(() => repairJson(TOO_BIG));
  } finally {
    WebAssembly.Instance = Instance;
  }
  assert.throws(
    () => parseAndRepair('[1'),
    (e) => e instanceof ModuleTrapError && e.reason === 'recreating' && /await init\(\)/.test(e.message),
  );
  assert.throws(
    () => new StreamCleaner(),
    (e) => e instanceof ModuleTrapError && e.reason === 'recreating',
  );
  await init();
  assert.deepEqual(parseAndRepair('[1'), [1]);
  assert.equal(cleanAll(new StreamCleaner({ removeAssistantPrefix: true }), CHUNKS), CLEANED);
});
