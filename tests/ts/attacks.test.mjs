// The inputs that used to trap the module or take it down (issue 28, item 1) now answer, and every call
// after them works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDetailed, parseAndRepair, extract, compileSchema } from 'llm-response-sanitizer';

const works = () => assert.deepEqual(parseAndRepair('{"a": [1, 2,]}'), { a: [1, 2] });

test('eight million commas: the report lists 10,000 repairs and counts the rest', () => {
  const r = parseDetailed(`[1${','.repeat(8_000_000)}`);
  assert.deepEqual(r.value, [1]);
  assert.equal(r.repairs.length, 10_000);
  assert.ok(r.omittedRepairs > 7_000_000, String(r.omittedRepairs));
  works();
});

test('four million bytes of numbers against an object schema: a typed failure, no trap', () => {
  const r = extract(`[${'1 '.repeat(2_000_000)}`, { type: 'object' });
  assert.equal(r.ok, false);
  assert.ok(r.issues.length > 0);
  works();
});

test('format "regex" asserted on a 32,768-character value: an answer, no trap', () => {
  const schema = compileSchema({ type: 'string', format: 'regex' }, { assertFormat: true });
  // V8 refuses a regular expression this long, so it is not one here either.
  assert.equal(schema.validate('a'.repeat(32_768)).valid, false);
  assert.equal(schema.validate('('.repeat(32_768)).valid, false);
  assert.equal(schema.validate('^[a-z]+$').valid, true);
  schema.free();
  works();
});
