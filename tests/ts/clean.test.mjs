// Cleaning through the npm API: the shared corpus one-shot and under chunkings, a literal JavaScript
// reading of SPEC §4 as a second opinion, chunking parity on generated text, adapters and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  clean,
  cleanDetailed,
  StreamCleaner,
  createCleanStream,
  cleanChunks,
  COMMON_THINK_TAGS,
  parseAndRepair,
  parseDetailed,
} from 'llm-response-sanitizer';
import { rng } from '../../benches/workloads.mjs';
import { cutAt, lonesAsReplacement, reasoningCases } from './fixtures.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/clean/cases.json', import.meta.url), 'utf8'));

function streamed(chunks, options) {
  const s = new StreamCleaner(options);
  try {
    return chunks.map((c) => s.push(c)).join('') + s.finish();
  } finally {
    s.free();
  }
}

/** Every split of `text` into two chunks, at every UTF-16 index (between surrogate halves too). */
function twoWaySplits(text) {
  const out = [];
  for (let i = 0; i <= text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

test('the corpus, one-shot and detailed', () => {
  assert.ok(cases.length >= 70);
  for (const c of cases) {
    assert.equal(clean(c.input, c.options), c.expected, c.name);
    const d = cleanDetailed(c.input, c.options);
    assert.equal(d.text, c.expected, c.name);
    if ('reasoning' in c) assert.equal(d.reasoning, c.reasoning, `${c.name}: reasoning`);
  }
});

test('the corpus under every two-way split and one UTF-16 unit per chunk', () => {
  for (const c of cases) {
    for (const chunks of twoWaySplits(c.input)) {
      assert.equal(streamed(chunks, c.options), c.expected, `${c.name} split ${JSON.stringify(chunks)}`);
    }
    const units = [''];
    for (const u of c.input) units.push(...u.split(''), '');
    assert.equal(streamed(units, c.options), c.expected, `${c.name}: one unit per chunk`);
  }
});

// ---- a literal reading of SPEC §4, on whole strings ---------------------------------------------

const WS = /^[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*/u;
const lstrip = (s) => s.replace(WS, '');
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function specClean(text, o = {}) {
  const pairs = (o.thinkTags ?? [{ start: o.startThinkTag ?? '<think>', end: o.endThinkTag ?? '</think>' }]).filter(
    (p) => p.start !== '' && p.end !== '',
  );
  const lower = asciiLower(text);
  const first = (from, tags) => {
    let best = null;
    tags.forEach((t, k) => {
      const i = lower.indexOf(asciiLower(t), from);
      if (i >= 0 && (best === null || i < best[0])) best = [i, k];
    });
    return best;
  };
  let t = text;
  if (pairs.length > 0) {
    if (o.expectOnlyClosingThinkTag) {
      const ends = pairs.map((p) => p.end);
      const hit = first(0, ends);
      t = hit !== null ? text.slice(hit[0] + ends[hit[1]].length) : o.keepTextWithoutClosingTag ? text : '';
    } else {
      const hit = first(
        0,
        pairs.map((p) => p.start),
      );
      if (hit !== null) {
        const [i, k] = hit;
        const ws = o.graceIncludesLeadingWhitespace ? 0 : text.length - lstrip(text).length;
        const between = i > ws ? [...text.slice(ws, i)].length : 0;
        if (between <= (o.openingTagGracePeriod ?? 100)) {
          const j = lower.indexOf(asciiLower(pairs[k].end), i + pairs[k].start.length);
          if (j >= 0) t = text.slice(0, i) + text.slice(j + pairs[k].end.length);
        }
      }
    }
  }
  if (o.thinkOnly) return t;
  t = lstrip(t);
  const listOf = (v) => (typeof v === 'string' ? [v] : (v ?? []));
  const p = listOf(o.responseStartTextToRemove).find((x) => x !== '' && t.startsWith(x));
  if (p !== undefined) t = lstrip(t.slice(p.length));
  const q = listOf(o.responseStartTextToRemoveEndpointWide)
    .map((x) => x.trim())
    .find((x) => x !== '' && t.startsWith(x));
  if (q !== undefined) t = lstrip(t.slice(q.length));
  // The run between "[Sent " and " ago]" is at most 200 bytes of UTF-8.
  const stamp = o.removeTimestampPrefix ? /^\[Sent ([^\]\r\n]*) ago\]/.exec(t) : null;
  if (stamp !== null && new TextEncoder().encode(stamp[1]).length <= 200) t = lstrip(t.slice(stamp[0].length));
  if (o.removeAssistantPrefix && t.startsWith('Assistant:')) t = lstrip(t.slice('Assistant:'.length));
  if (o.trim ?? true) t = t.trim();
  return t;
}

test('the corpus agrees with the literal reading of the spec', () => {
  for (const c of cases) assert.equal(specClean(c.input, c.options), c.expected, c.name);
});

// ---- generated text and chunkings ---------------------------------------------------------------

const PIECES = [
  '<think>',
  '</think>',
  '<THINK>',
  '</Think>',
  '<thi',
  'nk>',
  '</th',
  '<thinking>',
  '</thinking>',
  '[THINK]',
  '[/THINK]',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '\u3000',
  '\ufeff',
  '\u0085',
  '😀',
  '👩‍💻',
  'é',
  'a',
  'Hello, traveller. ',
  'Assistant:',
  'Assistant',
  '[Sent ',
  ' ago]',
  '5 minutes',
  ']',
  'Narrator:',
  'Narr',
  'Bot:',
  '{"a":1}',
  '\ud800',
  '\udc00',
  // Prose of other scripts: words of eight and more characters of one UTF-8 length, which cross in runs.
  '我们分析了这个模块的结构，发现它有三个主要的问题。',
  'Мы проанализировали структуру модуля. ',
  'The module’s “main” problem — wait…',
];
const HEADS = ['', '<think>r</think>', 'Assistant: ', '[Sent 5 minutes ago] ', 'Narrator: ', ' \n', '\u3000'];

function genText(r) {
  let t = '';
  for (let n = Math.floor(r() * 4); n > 0; n--) t += HEADS[Math.floor(r() * HEADS.length)];
  for (let n = Math.floor(r() * 14); n > 0; n--) {
    t += r() < 0.15 ? 'y'.repeat(1 + Math.floor(r() * 130)) : PIECES[Math.floor(r() * PIECES.length)];
  }
  return t;
}

function genOptions(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const o = {};
  const tags = pick(['default', 'default', 'brackets', 'list', 'none']);
  if (tags === 'brackets') Object.assign(o, { startThinkTag: '[THINK]', endThinkTag: '[/THINK]' });
  if (tags === 'list') o.thinkTags = COMMON_THINK_TAGS;
  if (tags === 'none') o.thinkTags = [];
  if (r() < 0.7) o.openingTagGracePeriod = pick([0, 1, 3, 10, 100, 150, Infinity]);
  if (r() < 0.3) o.expectOnlyClosingThinkTag = true;
  if (r() < 0.4) o.responseStartTextToRemove = pick([['Narrator:'], ['Narr', 'Narrator:'], 'Bot:', ['😀', ''], []]);
  if (r() < 0.5) o.removeTimestampPrefix = true;
  if (r() < 0.5) o.removeAssistantPrefix = true;
  if (r() < 0.3) o.trim = false;
  if (r() < 0.3)
    o.responseStartTextToRemoveEndpointWide = pick([[' Bot: '], ['Narr', '\u3000Narrator:'], '  ', ['😀']]);
  if (r() < 0.15) o.thinkOnly = true;
  if (r() < 0.3) o.graceIncludesLeadingWhitespace = true;
  if (r() < 0.3) o.keepTextWithoutClosingTag = true;
  return o;
}

test('every chunking of generated text equals clean(), which equals the spec reading', () => {
  const r = rng(2026);
  for (let i = 0; i < 3000; i++) {
    const text = genText(r);
    const options = genOptions(r);
    const whole = clean(text, options);
    assert.equal(whole, specClean(lonesAsReplacement(text), options), JSON.stringify({ text, options }));
    const chunks = cutAt(
      text,
      Array.from({ length: Math.floor(r() * 10) }, () => Math.floor(r() * (text.length + 1))),
    );
    assert.equal(streamed(chunks, options), whole, JSON.stringify({ chunks, options }));
  }
});

test('one clean() after another: each with its own options, nothing carried over from the last', () => {
  // clean() keeps one core cleaner for the options of its last call and resets it between texts: a call
  // must never see the options, the state or the reasoning of the one before.
  const text = '  <a>plan</a> X Y <think>inner</think> tail  ';
  const a = { startThinkTag: '<a>', endThinkTag: '</a>' };
  // Neighbours differ in one thing each: the same tags and prefixes in the same order split differently
  // between the lists, then a flag, then the text of a tag.
  const runs = [
    [
      {
        thinkTags: [
          { start: '<a>', end: '</a>' },
          { start: 'X', end: 'Y' },
        ],
      },
      'X Y <think>inner</think> tail',
      'plan',
    ],
    [{ ...a, responseStartTextToRemoveEndpointWide: ['X', 'Y'] }, 'Y <think>inner</think> tail', 'plan'],
    [
      { ...a, responseStartTextToRemove: ['X'], responseStartTextToRemoveEndpointWide: ['Y'] },
      '<think>inner</think> tail',
      'plan',
    ],
    [{ ...a, responseStartTextToRemove: ['X', 'Y'] }, 'Y <think>inner</think> tail', 'plan'],
    [{ ...a, responseStartTextToRemove: ['X', 'Y'], trim: false }, 'Y <think>inner</think> tail  ', 'plan'],
    [
      { startThinkTag: '<b>', endThinkTag: '</b>', responseStartTextToRemove: ['X', 'Y'], trim: false },
      '<a>plan</a> X Y <think>inner</think> tail  ',
      null,
    ],
    [undefined, '<a>plan</a> X Y  tail', 'inner'],
  ];
  for (const [options, expected, reasoning] of [...runs, ...runs.reverse()]) {
    const label = JSON.stringify(options);
    assert.equal(clean(text, options), expected, label);
    assert.equal(streamed([text], options), expected, label);
    assert.deepEqual(cleanDetailed(text, options), { text: expected, reasoning }, label);
  }
  for (const grace of [2, 1, 2]) {
    assert.equal(
      clean('ab<think>x</think>c', { openingTagGracePeriod: grace }),
      grace === 2 ? 'abc' : 'ab<think>x</think>c',
    );
  }
  // A block left open is given back; the reasoning of the text before is not reported again.
  assert.deepEqual(cleanDetailed('<think>a</think>b'), { text: 'b', reasoning: 'a' });
  assert.deepEqual(cleanDetailed('<think>open'), { text: '<think>open', reasoning: null });
  assert.deepEqual(cleanDetailed('Assistant: hi', { removeAssistantPrefix: true }), { text: 'hi', reasoning: null });
  assert.equal(clean('  Assistant: hi', { removeAssistantPrefix: true }), 'hi');
  assert.equal(clean('Assistant: hi'), 'Assistant: hi');
});

test('cleanDetailed reports the reasoning as the stream does, a lone surrogate as U+FFFD', () => {
  for (const [got, expected, label] of reasoningCases({ cleanDetailed, StreamCleaner }))
    assert.deepEqual(got, expected, label);
});

test('a surrogate pair split between chunks comes out intact', () => {
  const text = '<think>🤔</think>😀 ok 👍';
  const units = text.split('');
  assert.equal(streamed(units, {}), '😀 ok 👍');
  const s = new StreamCleaner();
  assert.equal(s.push('<think>x</think>a\ud83d'), 'a');
  assert.equal(s.push('\ude00b'), '😀b');
  assert.equal(s.finish(), '');
});

test('text that can no longer change is released at once', () => {
  const s = new StreamCleaner({ openingTagGracePeriod: 20 });
  assert.equal(s.push('  Hello'), 'Hello');
  // The space may turn out to be trailing whitespace, so it waits with the partial tag.
  assert.equal(s.push(' <thi'), '');
  assert.equal(s.push('nk>plan'), '');
  assert.equal(s.pendingReasoning, 'plan');
  assert.equal(s.push('</think> world\n'), '  world');
  assert.equal(s.reasoning, 'plan');
  assert.equal(s.finish(), '');
  s.free();
});

test('StreamCleaner lifecycle: finish ends it, free is idempotent, using frees it', () => {
  const s = new StreamCleaner();
  s.push('<think>why</think>a');
  assert.equal(s.finish(), '');
  assert.equal(s.reasoning, 'why');
  assert.throws(() => s.push('b'), { name: 'TypeError', message: /already finished/ });
  assert.equal(s.finish(), '');
  s.free();
  s.free();
  assert.equal(s.reasoning, 'why');
  const t = new StreamCleaner();
  t.free();
  assert.throws(() => t.push('x'), /freed/);
  assert.equal(typeof StreamCleaner.prototype[Symbol.dispose], 'function');
  const u = new StreamCleaner();
  u[Symbol.dispose]();
  assert.throws(() => u.finish(), /freed/);
});

test('options are validated with clear errors', () => {
  assert.throws(() => clean(42), TypeError);
  assert.throws(() => clean('x', 'trim'), TypeError);
  assert.throws(() => clean('x', { trim: 'yes' }), /trim must be a boolean/);
  assert.throws(() => clean('x', { openingTagGracePeriod: -1 }), RangeError);
  assert.throws(() => clean('x', { openingTagGracePeriod: 1.5 }), RangeError);
  assert.throws(() => clean('x', { startThinkTag: 1 }), /startThinkTag must be a string/);
  assert.throws(() => clean('x', { thinkTags: [{ start: '<a>' }] }), /thinkTags\[0\]\.end/);
  assert.throws(() => clean('x', { thinkTags: [], startThinkTag: '<a>' }), /not both/);
  assert.throws(() => clean('x', { responseStartTextToRemove: [1] }), /responseStartTextToRemove\[0\]/);
  assert.throws(() => clean('x', { endThinkTag: '</a\0>' }), /endThinkTag must not contain U\+0000/);
  assert.throws(() => new StreamCleaner({ responseStartTextToRemoveEndpointWide: 'a\0' }), TypeError);
  // Tags and prefixes, each list in its place (they cross to the core in one string).
  assert.equal(
    clean('Sure: <r>x</r>Note: ok', {
      thinkTags: [
        { start: '<q>', end: '</q>' },
        { start: '<r>', end: '</r>' },
      ],
      responseStartTextToRemove: ['Sure:', ''],
      responseStartTextToRemoveEndpointWide: 'Note:',
      openingTagGracePeriod: Infinity,
    }),
    'ok',
  );
  assert.throws(() => new StreamCleaner({ expectOnlyClosingThinkTag: 1 }), TypeError);
  assert.throws(() => new StreamCleaner().push(1), TypeError);
  assert.equal(
    clean(`${'x'.repeat(500)}<think>a</think>b`, { openingTagGracePeriod: Infinity }),
    `${'x'.repeat(500)}b`,
  );
});

test('createCleanStream cleans a byte stream, characters split across chunks included', async () => {
  const text = '<think>Plan: greet 👋</think>\n\nAssistant: Hello, traveller! ☕\n';
  const bytes = new TextEncoder().encode(text);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.slice(i, i + 3));
  let reasoning = null;
  const body = new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(ch);
      c.close();
    },
  });
  const parts = [];
  const stream = body.pipeThrough(
    createCleanStream({ removeAssistantPrefix: true }, { onReasoning: (r) => (reasoning = r) }),
  );
  for await (const part of stream) parts.push(part);
  assert.equal(parts.join(''), 'Hello, traveller! ☕');
  assert.ok(parts.every((p) => p !== ''));
  assert.equal(reasoning, 'Plan: greet 👋');
});

test('cleanChunks cleans an async iterable and frees on early exit', async () => {
  async function* source() {
    yield '<think>a</think>';
    yield 'one ';
    yield 'two';
  }
  let out = '';
  for await (const part of cleanChunks(source())) out += part;
  assert.equal(out, 'one two');
  for await (const part of cleanChunks(['x', ' y'])) {
    assert.equal(part, 'x');
    break;
  }
  await assert.rejects(async () => {
    for await (const _ of cleanChunks([42])) void _;
  }, TypeError);
});

test('COMMON_THINK_TAGS are the reasoning formats the JSON locator skips, one list for both', () => {
  assert.ok(Object.isFrozen(COMMON_THINK_TAGS) && COMMON_THINK_TAGS.every(Object.isFrozen));
  // Seed-OSS, Gemma 4 and Command A Reasoning among them.
  for (const start of ['<seed:think>', '<|channel>thought', '<|START_THINKING|>']) {
    assert.ok(
      COMMON_THINK_TAGS.some((t) => t.start === start),
      start,
    );
  }
  for (const { start, end } of COMMON_THINK_TAGS) {
    const text = `${start}Draft: {"a": 1} and [2].${end}\n{"a": 3,}`;
    // The cleaner removes the block; the locator skips it; both agree on what the answer is.
    assert.equal(clean(text, { thinkTags: COMMON_THINK_TAGS }), '{"a": 3,}', start);
    assert.deepStrictEqual(parseAndRepair(text), { a: 3 }, start);
    const reasoning = parseDetailed(text).repairs.filter((r) => r.kind === 'reasoning_removed');
    assert.deepEqual(
      reasoning.map((r) => r.position),
      [0],
      start,
    );
  }
});
