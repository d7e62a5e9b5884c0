// The npm API's core properties through the browser door (no `Buffer`: input as UTF-8, or copied by a loop as
// Latin-1 or UTF-16 when short; results as UTF-8, ASCII with escapes, or UTF-16 read by `TextDecoder`), run
// here in Node with `Buffer` hidden while the door loads, on the same generated text as door.property.test.mjs.
// FUZZ_RUNS raises the budget, as there (scripts/fuzz-door.sh runs this file too).
import api from './browser-door.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cutAt, text, chunked, outcomeWith, oneShotsOf } from './door-text.mjs';

const { PartialJsonParser, StreamCleaner, clean, cleanDetailed, JsonRepairError } = api;
const outcome = outcomeWith(JsonRepairError);

const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

const oneShot = oneShotsOf(api);

test('browser door: parseAndRepair, repairJson, parseDetailed and any chunking of PartialJsonParser agree', () => {
  fc.assert(
    fc.property(chunked, ([t, cuts]) => {
      const want = oneShot(t);
      const p = new PartialJsonParser();
      const got = outcome(() => {
        for (const c of cutAt(t, cuts)) p.push(c);
        return p.finishDetailed().value;
      });
      p.free();
      assert.equal(got, want);
    }),
    { numRuns: RUNS },
  );
});

test("browser door: any chunking of StreamCleaner equals clean(), and its reasoning cleanDetailed()'s", () => {
  fc.assert(
    fc.property(chunked, ([t, cuts]) => {
      const s = new StreamCleaner();
      const streamed =
        cutAt(t, cuts)
          .map((c) => s.push(c))
          .join('') + s.finish();
      assert.equal(streamed, clean(t));
      // Text crosses as UTF-8 here: cleanDetailed slices the reasoning only from a string without lone surrogates.
      assert.deepEqual(cleanDetailed(t), { text: streamed, reasoning: s.reasoning });
    }),
    { numRuns: RUNS },
  );
});

test('browser door: short texts (copied by a loop, as UTF-16 beyond Latin-1) give one value through every one-shot call', () => {
  fc.assert(
    fc.property(text, (t) => {
      // Pieces of up to 24 units, each through every one-shot call: the loop's UTF-16 copy and the text
      // results after it.
      for (let i = 0; i < t.length; i += 24) oneShot(t.slice(i, i + 24));
    }),
    { numRuns: RUNS },
  );
});
