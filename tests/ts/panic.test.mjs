// A panic inside the core, as a user would meet it if the fuzzers missed one. The probe module is the
// shipped build with the `panic-probe` feature (scripts/build-panic-probe.sh, never shipped): its
// `repairText` panics on one exact input, standing for any bug. Built as the shipped module is, its panics
// trap at once; the door must turn that into a typed ModuleTrapError from the call that panicked, re-create
// the module, and leave every later call working (tests/ts/trap.test.mjs does the same for running out of
// memory).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  init,
  parseAndRepair,
  parseDetailed,
  repairJson,
  extract,
  compileSchema,
  PartialJsonParser,
  ModuleTrapError,
  JsonRepairError,
} from '../../dist/browser.js';
import * as shipped from '../../dist/node.js';

const PROBE = 'llm-response-sanitizer: panic probe';
const probeBytes = readFileSync(
  new URL('../../target/panic-probe/pkg/llm_response_sanitizer_bg.wasm', import.meta.url),
);
const shippedBytes = readFileSync(new URL('../../pkg/llm_response_sanitizer_bg.wasm', import.meta.url));
await init(probeBytes);

function assertPanicked(call) {
  assert.throws(call, (e) => {
    assert.ok(e instanceof ModuleTrapError, `${e?.name}: ${e?.message}`);
    assert.equal(e.reason, 'trapped');
    assert.ok(e.cause instanceof WebAssembly.RuntimeError, String(e.cause));
    assert.match(e.message, /trapped .* re-created/);
    return true;
  });
}

test('the probe module has the shipped module interface, so the shipped glue and door drive it', () => {
  const shape = (bytes) => {
    const m = new WebAssembly.Module(bytes);
    return { exports: WebAssembly.Module.exports(m), imports: WebAssembly.Module.imports(m) };
  };
  assert.deepEqual(shape(probeBytes), shape(shippedBytes));
});

test('a panic is a ModuleTrapError from the call that panicked; later calls work', () => {
  assert.deepEqual(parseAndRepair('{"a": [1, 2,]}'), { a: [1, 2] });
  assertPanicked(() => parseAndRepair(PROBE));
  assert.deepEqual(parseAndRepair("{'b': True}"), { b: true });
  assertPanicked(() => repairJson(PROBE));
  assert.equal(repairJson('[1, 2'), '[1,2]');
  assertPanicked(() => parseDetailed(PROBE));
  assert.deepEqual(
    parseDetailed('{"c": 1,}').repairs.map((r) => r.kind),
    ['trailing_comma'],
  );
  // Input that is not the probe never panics, however close.
  assert.throws(() => parseAndRepair(`${PROBE}.`), JsonRepairError);
  assert.throws(() => parseAndRepair(PROBE.slice(1)), JsonRepairError);
});

test('after a panic, streams made before are stale and compiled schemas go on working', () => {
  const schema = compileSchema({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
  const parser = new PartialJsonParser();
  parser.push('{"a": [1, ');
  assertPanicked(() => parseAndRepair(PROBE));
  assert.throws(
    () => parser.push('2]}'),
    (e) => e instanceof ModuleTrapError && e.reason === 'stale',
  );
  assert.deepEqual(extract('{"n": "4"}', schema).value, { n: 4 });
  const fresh = new PartialJsonParser();
  fresh.push('{"a": [1, ');
  assert.deepEqual(fresh.push('2]}').value, { a: [1, 2] });
  fresh.free();
  schema.free();
});

test('the shipped module has no probe: the same input is a plain no_json error', () => {
  assert.throws(
    () => shipped.parseAndRepair(PROBE),
    (e) => e instanceof shipped.JsonRepairError && e.kind === 'no_json',
  );
});
