// Generated text for the npm API's properties (door.property.test.mjs, and the same in the browser door,
// door-browser.property.test.mjs), with no import of the package: a file that loads the browser entry with
// `Buffer` hidden must not load the Node entry first.
import assert from 'node:assert/strict';
import fc from 'fast-check';

/**
 * `seq` (a string or bytes) cut at `cuts` (in any order, clamped to its length). A repeated cut, or one at either
 * end, leaves an empty chunk: streams must take those too.
 */
export function cutAt(seq, cuts) {
  const at = cuts.map((c) => Math.min(c, seq.length)).sort((a, b) => a - b);
  const out = [];
  let last = 0;
  for (const c of at) {
    out.push(seq.slice(last, c));
    last = c;
  }
  out.push(seq.slice(last));
  return out;
}

/**
 * A call's outcome, for comparing two calls: its value as JSON text, or the kind of the `typed` error (the
 * package's `JsonRepairError`) it threw; any other error fails the property.
 */
export function outcomeWith(typed) {
  return (fn) => {
    try {
      return JSON.stringify(fn());
    } catch (e) {
      if (!(e instanceof typed)) throw e;
      return `error ${e.kind}`;
    }
  };
}

/**
 * `t` through `api`'s three one-shot calls, which must agree (each result crosses in its own form): returns
 * their outcome (see {@link outcomeWith}).
 */
export function oneShotsOf(api) {
  const outcome = outcomeWith(api.JsonRepairError);
  return (t) => {
    const want = outcome(() => api.parseAndRepair(t));
    assert.equal(
      outcome(() => JSON.parse(api.repairJson(t))),
      want,
    );
    assert.equal(
      outcome(() => api.parseDetailed(t).value),
      want,
    );
    return want;
  };
}

/** Pieces models and attackers write: JSON tokens, repairs' triggers, tags, fences, control and astral characters, lone surrogates. */
export const piece = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '"',
    "'",
    '“',
    '”',
    '：',
    '，',
    '\\',
    '\\u',
    '\\"',
    ' ',
    '\n',
    '\t',
    '\r',
    '\u0000',
    '\u0011',
    '\u000b',
    '\u00a0',
    '\u200b',
    '\ufeff',
  ),
  fc.constantFrom(
    'true',
    'Tru',
    'None',
    'NaN',
    '-',
    '1e',
    '0.5',
    '1,000',
    '02134',
    'undefined',
    '...',
    '…',
    '//',
    '/*',
    '*/',
    '#',
    '+',
    '$id',
    '__proto__',
    'F(',
    'ObjectId("',
  ),
  fc.constantFrom(
    '<think>',
    '</think>',
    '<THINKING>',
    '</reasoning>',
    '[THINK]',
    '[/THINK]',
    '```json\n',
    '```',
    '~~~',
    '<|im_start|>assistant',
    '[TOOL_CALLS]',
    'Assistant:',
    '[Sent 5 min ago]',
  ),
  fc.constantFrom('\ud83d', '\ude80', '🚀', '你好', 'é', '—'),
  // Words of other scripts long enough to cross the module in runs of eight characters.
  fc.constantFrom(
    '我们分析了这个模块的结构，发现',
    'проанализировали структуру',
    'モジュールは入力を解析して',
    'ĀāĂăĄąĆćĈĉ',
  ),
  fc.string({ maxLength: 6 }),
);
export const text = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''));
/** A text and the places to cut it (UTF-16 indices, so surrogate pairs get split too). */
export const chunked = text.chain((t) =>
  fc.tuple(fc.constant(t), fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, t.length - 1) }), { maxLength: 12 })),
);
