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
      assert.throws(() => parseAndRepair(f.input), (e) => e instanceof JsonRepairError && e.kind === f.error);
      return;
    }
    const want = JSON.parse(f.expected);
    assert.deepStrictEqual(parseAndRepair(f.input), want);
    const json = repairJson(f.input);
    assert.deepStrictEqual(JSON.parse(json), want);
    const detailed = parseDetailed(f.input);
    assert.deepStrictEqual(detailed.value, want);
    const kinds = detailed.repairs.map((r) => r.kind);
    for (const k of f.repairs) assert.ok(kinds.includes(k), `repair ${k} not recorded; got ${kinds.join(', ')}`);
    for (const r of detailed.repairs) {
      assert.ok(Number.isInteger(r.position) && r.position >= 0 && r.position <= f.input.length, `position ${r.position}`);
    }
  });
}
