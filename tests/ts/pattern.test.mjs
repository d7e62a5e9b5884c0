// JSON Schema patterns run in time linear in the text (js/pattern.js): the same answers as the host's
// RegExp on every pattern and text the property below makes, and no exponential time on patterns that
// backtrack exponentially in the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { regexpTest } from '../../js/pattern.js';

/** The host's answer, as the schema engine reads it (with the `u` flag when the pattern allows it). */
function host(pattern, text) {
  let re;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    try {
      re = new RegExp(pattern);
    } catch {
      return -1;
    }
  }
  return re.test(text) ? 1 : 0;
}

const PIECES = [
  'a',
  'b',
  'ab',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\S',
  '\\b',
  '\\B',
  '[a-c]',
  '[^a]',
  '[\\d_]',
  '[]',
  '[^]',
  '\\p{L}',
  '\\u0061',
  '\\x62',
  '\\u{1F600}',
  '😀',
  'é',
  '-',
  '\\.',
  '\\/',
  '^',
  '$',
  '|',
  '(',
  ')',
  '(?:',
  '(?<n>',
  '*',
  '+',
  '?',
  '*?',
  '{2}',
  '{1,2}',
  '{0,}',
  '{',
  '}',
  ']',
  '\\1',
  '(?=a)',
  '(?!b)',
  '(?<=a)',
  '\\k<n>',
  '\\0',
  '\\cA',
];
const TEXT = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', '1', '_', ' ', '\n', 'é', '😀', '\ud83d', '-', '.', '{'),
});

test('every pattern the property makes answers as the host RegExp does', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }),
      fc.array(TEXT, { minLength: 1, maxLength: 4 }),
      (pieces, texts) => {
        const pattern = pieces.join('');
        for (const text of texts)
          assert.equal(regexpTest(pattern, text), host(pattern, text), `${pattern} on ${JSON.stringify(text)}`);
      },
    ),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 3000) },
  );
});

test('the cases that matter by hand: anchors, boundaries, alternation, counted repetition, astral characters', () => {
  const cases = [
    ['^(a+)+$', 'aaaa', 1],
    ['^\\S+@\\S+\\.\\S+$', 'a@b.c', 1],
    ['^\\S+@\\S+\\.\\S+$', 'a@b', 0],
    ['\\bfoo\\b', 'a foo b', 1],
    ['\\bfoo\\b', 'afoob', 0],
    ['^[\\p{L}]+$', 'héllo', 1],
    ['^.$', '😀', 1],
    ['^..$', '😀', 0],
    ['^(?:ab|a)*c$', 'ababac', 1],
    ['^x{2,3}$', 'xxxx', 0],
    ['a{', 'a{', 1],
    ['^(a*)*$', 'aaab', 0],
    ['\\uD83D\\uDE00', '😀', 1],
    ['[', 'x', -1],
  ];
  for (const [pattern, text, want] of cases) assert.equal(regexpTest(pattern, text), want, `${pattern} on ${text}`);
});

test('patterns that backtrack exponentially in the host answer in time linear in the text', () => {
  // In the host, each letter more doubles the time of these: at 30 letters, seconds; at 100, years.
  for (const pattern of ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', '^(\\w+\\s?)+$', '(x+x+)+y']) {
    const short = regexpTest(pattern, `${'a'.repeat(2_000)}!`);
    const start = process.hrtime.bigint();
    const answer = regexpTest(pattern, `${'a'.repeat(100_000)}!`);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.equal(answer, short, pattern);
    // A work bound, not a speed test: exponential time would not end at all.
    assert.ok(ms < 60_000, `${pattern}: ${ms} ms`);
  }
});
