// The fixture corpus through the public npm API, imported by the package's own name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAndRepair, parseDetailed, repairJson, JsonRepairError } from 'llm-response-sanitizer';
import { repairFixtures } from './fixtures.mjs';

const fixtures = repairFixtures();

test('the corpus is there', () => {
  assert.ok(fixtures.length >= 80, `only ${fixtures.length} fixtures`);
});

for (const f of fixtures) {
  test(`fixture ${f.name}`, () => {
    if (f.error) {
      assert.throws(
        () => parseAndRepair(f.input),
        (e) => e instanceof JsonRepairError && e.kind === f.error,
      );
      return;
    }
    const want = JSON.parse(f.expected);
    assert.deepStrictEqual(parseAndRepair(f.input), want);
    const json = repairJson(f.input);
    assert.deepStrictEqual(JSON.parse(json), want);
    const detailed = parseDetailed(f.input);
    assert.deepStrictEqual(detailed.value, want);
    assert.ok(f.repairs, 'the fixture has no .repairs file');
    assert.deepEqual(
      detailed.repairs.map((r) => `${r.kind} ${r.position}`),
      f.repairs,
    );
  });
}
