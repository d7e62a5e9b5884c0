// JSON Schema patterns run in time linear in the text (js/pattern.js): the same answers as the host's
// RegExp on every pattern and text the property below makes, and no exponential time on patterns that
// backtrack exponentially in the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { regexpTest } from '../../js/pattern.js';

/**
 * The host's answer, as the schema engine reads it (with the `u` flag when the pattern allows it). V8 14.6
 * (Node 26) finds no match for some unanchored patterns that end at `$` in text with astral characters
 * (`/[^a]$/u.test('😀')`); there the search is asked again spelled as a match from the start over any
 * prefix, which ECMAScript defines to answer the same.
 */
function host(pattern, text) {
  let flags = 'u';
  let re;
  try {
    re = new RegExp(pattern, flags);
  } catch {
    flags = '';
    try {
      re = new RegExp(pattern, flags);
    } catch {
      return -1;
    }
  }
  if (re.test(text)) return 1;
  if (!pattern.includes('$') || !/[\ud800-\udbff][\udc00-\udfff]/.test(text)) return 0;
  return new RegExp(`^[^]*?(?:${pattern})`, flags).test(text) ? 1 : 0;
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
    // Unanchored searches that end at `$` after astral characters, by the automaton and by the host.
    ['[^a]$', '😀', 1],
    ['\\W{2}$', '.😀', 1],
    ['(?!a)[^a]$', '😀', 1],
    ['\\B[^a]$', '😀', 1],
    ['(.)\\1[^a]$', 'xx😀', 1],
    ['(.)\\1[^a]$', 'xy😀', 0],
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
