// Every TDD anchor of seed 001 (LLMResponseSanitizer pseudocode), one test each.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { LLMResponseSanitizer as S, JsonRepairError } from 'llm-response-sanitizer';

describe('sanitize', () => {
  test('a perfect JSON string passes through unchanged', () => {
    const t = '{"entities": [{"name": "A", "type": "Function"}], "relationships": []}';
    assert.equal(S.sanitize(t), t);
  });
  test('a JSON string wrapped in markdown is extracted and parsed', () => {
    assert.deepEqual(JSON.parse(S.sanitize('Here you go:\n```json\n{"a": 1}\n```\nDone.')), { a: 1 });
  });
  test('trailing commas are fixed', () => {
    assert.deepEqual(JSON.parse(S.sanitize('{"a": [1, 2,], "b": {"c": 3,},}')), { a: [1, 2], b: { c: 3 } });
  });
  test('a truncated JSON object is completed', () => {
    assert.deepEqual(JSON.parse(S.sanitize('{"entities": [{"name": "A"}, {"name": "B')), {
      entities: [{ name: 'A' }, { name: 'B' }],
    });
  });
  test('a completely unsalvageable string is an error', () => {
    assert.throws(
      () => S.sanitize('I am unable to comply with that request.'),
      (e) => e instanceof JsonRepairError && e.kind === 'no_json',
    );
  });
  test('an empty or whitespace-only string is an error', () => {
    for (const t of ['', '   ', '\n\t '])
      assert.throws(
        () => S.sanitize(t),
        (e) => e instanceof JsonRepairError && e.kind === 'no_json',
      );
  });
});

describe('_extractJsonFromMarkdown', () => {
  test('a valid ```json block', () => {
    assert.equal(S._extractJsonFromMarkdown('```json\n{"a": 1}\n```'), '{"a": 1}');
  });
  test('a ``` block without the json identifier', () => {
    assert.equal(S._extractJsonFromMarkdown('```\n[1, 2]\n```'), '[1, 2]');
  });
  test('text before and after the block', () => {
    assert.equal(S._extractJsonFromMarkdown('Sure:\n```json\n{"a": 1}\n```\nBye'), '{"a": 1}');
  });
  test('no markdown block returns the original string', () => {
    const t = 'just some text {"a": 1}';
    assert.equal(S._extractJsonFromMarkdown(t), t);
  });
  test('multiple blocks: the first is extracted', () => {
    assert.equal(S._extractJsonFromMarkdown('```json\n{"first": 1}\n```\n```json\n{"second": 2}\n```'), '{"first": 1}');
  });
});

describe('_removeTrailingCommas', () => {
  test('trailing comma in an object', () => assert.equal(S._removeTrailingCommas('{"a":1,}'), '{"a":1}'));
  test('trailing comma in an array', () => assert.equal(S._removeTrailingCommas('[1,2,3,]'), '[1,2,3]'));
  test('nested trailing commas', () =>
    assert.equal(S._removeTrailingCommas('{"a":[1,{"b":2,},],}'), '{"a":[1,{"b":2}]}'));
  test('valid JSON is unchanged', () => {
    const t = '{"a": [1, 2], "b": "x,}"}';
    assert.equal(S._removeTrailingCommas(t), t);
  });
  test('a string that is not JSON passes through without error', () => {
    for (const t of ['hello, world', 'a,}', '']) assert.equal(S._removeTrailingCommas(t), t);
  });
});

describe('_fixTruncatedObject', () => {
  test('an unclosed object', () => assert.equal(S._fixTruncatedObject('{"a": 1'), '{"a":1}'));
  test('an unclosed array', () => assert.equal(S._fixTruncatedObject('["a", "b"'), '["a","b"]'));
  test('nested unclosed structures', () =>
    assert.deepEqual(JSON.parse(S._fixTruncatedObject('{"a": ["b"}')), { a: ['b'] }));
  test('a string that is not truncated is unchanged', () => {
    const t = '{"a": {"b": [1, 2]}}';
    assert.equal(S._fixTruncatedObject(t), t);
  });
  test('an incomplete key or value is handled gracefully', () => {
    assert.deepEqual(JSON.parse(S._fixTruncatedObject('{"a": 1, "b')), { a: 1 });
    assert.deepEqual(JSON.parse(S._fixTruncatedObject('{"a": 1, "b":')), { a: 1 });
    assert.deepEqual(JSON.parse(S._fixTruncatedObject('{"a": "hel')), { a: 'hel' });
  });
});
