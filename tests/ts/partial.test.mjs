// Streaming JSON through the npm API: every chunking of the shared corpus and of generated documents
// finishes exactly as parseAndRepair; partial values only grow; schemas hold enum strings; adapters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseAndRepair,
  parseDetailed,
  PartialJsonParser,
  createPartialJsonStream,
  partialJsonValues,
  createCleanStream,
  JsonRepairError,
  extract,
} from 'llm-response-sanitizer';
import { repairFixtures, mentionsReasoning } from './fixtures.mjs';
import { rng, document, DEFECTS } from '../../benches/workloads.mjs';

/** `parseAndRepair(text)` as a comparable outcome. */
function oneShot(text) {
  try {
    return { value: parseAndRepair(text) };
  } catch (e) {
    assert.ok(e instanceof JsonRepairError, String(e));
    return { error: e.kind, position: e.position };
  }
}

/** Whether `next` extends `prev`: same types, strings that grew, containers that gained members. */
function extendsValue(prev, next) {
  if (typeof prev === 'string') return typeof next === 'string' && next.startsWith(prev);
  if (Array.isArray(prev))
    return Array.isArray(next) && prev.length <= next.length && prev.every((x, i) => extendsValue(x, next[i]));
  if (prev !== null && typeof prev === 'object') {
    return (
      next !== null &&
      typeof next === 'object' &&
      !Array.isArray(next) &&
      Object.keys(prev).every((k) => Object.hasOwn(next, k) && extendsValue(prev[k], next[k]))
    );
  }
  return Object.is(prev, next);
}

/** Streams `chunks`, checking that each partial value extends the previous one; returns the outcome. */
function streamed(chunks, options, { monotone = true } = {}) {
  const p = new PartialJsonParser(options);
  try {
    let before;
    for (const c of chunks) {
      const { value } = p.push(c);
      const snapshot = value === undefined ? undefined : structuredClone(value);
      if (monotone && before !== undefined && snapshot !== undefined && !extendsValue(before, snapshot)) {
        throw new Error(`value shrank or changed type: ${JSON.stringify(before)} -> ${JSON.stringify(snapshot)}`);
      }
      before = snapshot;
    }
    return { value: p.finish() };
  } catch (e) {
    if (!(e instanceof JsonRepairError)) throw e;
    return { error: e.kind, position: e.position };
  } finally {
    p.free();
  }
}

/** Texts whose partial values may legitimately be replaced (the JSON moves, a key repeats, values get wrapped). */
const REPLACES = {
  // Comma-separated values are wrapped in an array once the second one shows, comments between or not; a
  // string item becomes a record's key once its colon shows, and a value the member's key once a colon
  // follows it; items after rows become a row once the bracket that opens their array again shows.
  test: (t) =>
    /```|~~~|duplicate|without_braces|echoed|row_missing|\}\s*,\s*(?:(?:\/\*[\s\S]*?\*\/|\/\/[^\n]*)\s*)*[{"']/i.test(
      t,
    ) || mentionsReasoning(t),
};

test('the corpus: every two-piece split, and one UTF-16 unit per chunk', () => {
  const fixtures = repairFixtures();
  assert.ok(fixtures.length >= 80);
  for (const f of fixtures) {
    const want = oneShot(f.input);
    const monotone = !REPLACES.test(f.input) && !REPLACES.test(f.name);
    for (let i = 0; i <= f.input.length; i++) {
      assert.deepEqual(
        streamed([f.input.slice(0, i), f.input.slice(i)], undefined, { monotone }),
        want,
        `${f.name} split at ${i}`,
      );
    }
    assert.deepEqual(streamed([...f.input.split('')], undefined, { monotone }), want, `${f.name} one unit at a time`);
  }
});

test('generated documents with every defect class, in random chunks, equal one shot', () => {
  const r = rng(11);
  for (let n = 0; n < 300; n++) {
    const defect = n % 3 === 0 ? 'mixed' : DEFECTS[n % DEFECTS.length];
    const { text } = document(n, 1 + (n % 4), defect, n % 5 === 0 ? 'truncated' : 'none');
    const chunks = [];
    for (let i = 0; i < text.length; ) {
      const k = 1 + Math.floor(r() * 40);
      chunks.push(text.slice(i, i + k));
      i += k;
    }
    assert.deepEqual(
      streamed(chunks, undefined, { monotone: defect !== 'multiple_values' }),
      oneShot(text),
      `document ${n} (${defect})`,
    );
  }
});

test('partial values: strings grow, keys and numbers appear whole, nothing flips type', () => {
  const p = new PartialJsonParser();
  const seen = [];
  for (const c of ['{"na', 'me": "A', 'da", "age": 3', '6, "ok": tr', 'ue, "b"', ': nu', 'll}']) {
    seen.push(JSON.stringify(p.push(c).value));
  }
  assert.deepEqual(seen, [
    '{}',
    '{"name":"A"}',
    '{"name":"Ada"}',
    '{"name":"Ada","age":36}',
    '{"name":"Ada","age":36,"ok":true}',
    '{"name":"Ada","age":36,"ok":true}',
    '{"name":"Ada","age":36,"ok":true,"b":null}',
  ]);
  assert.equal(p.complete, true);
  assert.deepEqual(p.finish(), { name: 'Ada', age: 36, ok: true, b: null });
});

test('a response that may still be one JSON string shows no value, so the value never flips from the JSON inside it', () => {
  // The whole text is a JSON string: its value is the string, never the array or object quoted in it.
  for (const text of ['"[1, 2]"', ' "{\\"mood\\": \\"wary\\"}"\n', '"Ça va — très bien 😀"']) {
    const p = new PartialJsonParser();
    for (const c of text) assert.equal(p.push(c).value, undefined, JSON.stringify(text));
    assert.equal(p.finish(), JSON.parse(text));
  }
  // Once text follows the closing quote, it is not one string: the JSON located in it is the value.
  const p = new PartialJsonParser();
  assert.equal(p.push('"[1, 2]"').value, undefined);
  assert.deepEqual(p.push(' is what I said').value, [1, 2]);
  assert.deepEqual(p.finish(), parseAndRepair('"[1, 2]" is what I said'));
});

test('the value is one live object; a game turn streams past its think block', () => {
  const text =
    '<think>Pick the tavern {maybe}.</think>\n```json\n{"chosenIndex": 2, "speech": "Let\'s go", "mood": \'calm\',}\n```';
  const p = new PartialJsonParser();
  let first;
  const speeches = [];
  for (let i = 0; i < text.length; i += 5) {
    const { value } = p.push(text.slice(i, i + 5));
    if (value !== undefined) {
      first ??= value;
      assert.equal(value, first);
      if (typeof value.speech === 'string') speeches.push(value.speech);
    }
  }
  assert.ok(speeches.length >= 2 && speeches[0].length < speeches.at(-1).length);
  assert.deepEqual(
    p.finishDetailed().repairs.map((r) => r.kind),
    parseDetailed(text).repairs.map((r) => r.kind),
  );
});

test('JSON after long prose shows as it arrives, and a fenced block replaces a citation in the prose as it arrives', () => {
  const prose = 'The gate—quiet, “ready”—waits… it’s north of the tavern 🍺 (see below). '.repeat(200);
  for (const [before, answer] of [
    ['', '```json\n{"speech": "Let\'s go", "mood": "calm"}\n```'],
    ['', 'Here it is: {"speech": "Let\'s go", "mood": "calm"} as asked.'],
    ['See [1] first. ', '```json\n{"speech": "Let\'s go", "mood": "calm"}\n```'],
  ]) {
    const text = `${before}${prose}\n${answer}`;
    const shown = text.lastIndexOf('Let') + 3;
    const p = new PartialJsonParser();
    for (let i = 0; i < text.length; i += 10) {
      const { value } = p.push(text.slice(i, i + 10));
      if (i + 10 > shown) assert.match(value?.speech ?? '', /^Let/, `${answer} at ${i + 10}`);
    }
    assert.deepEqual(p.finish(), parseAndRepair(text));
    assert.deepEqual(p.value, { speech: "Let's go", mood: 'calm' });
  }
});

test('with a schema, enum strings are held until complete; free strings still grow', () => {
  const schema = {
    type: 'object',
    properties: {
      action: { $ref: '#/$defs/action' },
      speech: { type: 'string' },
      steps: { type: 'array', items: { anyOf: [{ enum: ['north', 'south'] }, { type: 'number' }] } },
    },
    $defs: { action: { enum: ['attack', 'defend'] } },
  };
  const text = '{"speech": "Hold the line", "action": "defend", "steps": ["north", 3]}';
  const p = new PartialJsonParser({ schema });
  const actions = new Set();
  const steps = new Set();
  const speeches = new Set();
  for (const ch of text) {
    const { value } = p.push(ch);
    if (value?.action !== undefined) actions.add(value.action);
    if (value?.steps?.[0] !== undefined) steps.add(value.steps[0]);
    if (value?.speech !== undefined) speeches.add(value.speech);
  }
  assert.deepEqual([...actions], ['defend']);
  assert.deepEqual([...steps], ['north']);
  assert.ok(speeches.size > 5);
});

test('prototype safety: __proto__ is an own property and no prototype changes', () => {
  const p = new PartialJsonParser();
  const { value } = p.push('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "a": [');
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.ok(Object.hasOwn(value, '__proto__'));
  assert.equal({}.polluted, undefined);
  assert.deepEqual(
    p.finish(),
    parseAndRepair('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "a": ['),
  );
});

test('surrogate pairs split between chunks stay whole', () => {
  const text = '{"emoji": "a😀b"}';
  for (let i = 0; i <= text.length; i++) {
    const p = new PartialJsonParser();
    p.push(text.slice(0, i));
    const { value } = p.push(text.slice(i));
    assert.equal(value.emoji, 'a😀b');
    assert.deepEqual(p.finish(), { emoji: 'a😀b' });
  }
});

test('an escaped surrogate pair cut between its escapes never shows its first half alone', () => {
  // As a provider that escapes non-ASCII writes an emoji: `\uD83D\uDE00`, which a chunk may end between.
  const text = String.raw`{"a": "\ud83d\ude00 ok \uD83E\uDD16", "b": ["\ud83d\ude00"], "lone": "x\ud83d"}`;
  const whole = JSON.parse(text);
  for (const snapshots of [false, true]) {
    for (const size of [1, 2, 3, 6, 7]) {
      const p = new PartialJsonParser({ snapshots });
      for (let i = 0; i < text.length; i += size) {
        const v = p.push(text.slice(i, i + size)).value;
        for (const s of [v?.a, v?.b?.[0]]) {
          if (typeof s !== 'string' || s.length === 0) continue;
          const last = s.charCodeAt(s.length - 1);
          assert.ok(last < 0xd800 || last > 0xdbff, `${JSON.stringify(s)} after ${i + size} in chunks of ${size}`);
        }
      }
      // A string that really ends on a lone high surrogate is shown whole once it closes.
      assert.deepEqual(p.finish(), whole);
      assert.equal(whole.lone, 'x\ud83d');
      p.free();
    }
  }
  // Closed in the same push as its last escape, the lone half shows.
  const p = new PartialJsonParser();
  assert.equal(p.push(String.raw`{"lone": "x\ud83d", "n": 1`).value.lone, 'x\ud83d');
  p.free();
});

test('a string in chunks of any size shows exactly its text so far, in every script and with either value form', () => {
  // Most such pushes only append, and cross as a number: the text is cut from the chunks on this side.
  const content = 'Le café — “naïve” 你好 😀 Привет\\n \\"q\\" \\u00e9 \\ud83d\\ude00 end,  ';
  const text = `{"k": "${content}", "n": [1, "${content}"]}`;
  const whole = JSON.parse(text);
  for (const snapshots of [false, true]) {
    for (const size of [1, 2, 3, 5, 7, 10, 64]) {
      const p = new PartialJsonParser({ snapshots });
      let shown = '';
      for (let i = 0; i < text.length; i += size) {
        const v = p.push(text.slice(i, i + size)).value;
        const now = v?.n?.[1] ?? v?.k ?? '';
        const of = v?.n?.[1] === undefined ? whole.k : whole.n[1];
        assert.ok(of.startsWith(now), `${JSON.stringify(now)} after ${i + size} in chunks of ${size}`);
        if (v?.n?.[1] === undefined) assert.ok(now.length >= shown.length);
        shown = now;
      }
      assert.equal(shown, whole.n[1]);
      assert.deepEqual(p.finish(), whole);
    }
  }
  // A lone surrogate crosses into wasm as U+FFFD, and the partial value shows that, whichever way it came.
  for (const snapshots of [false, true]) {
    const p = new PartialJsonParser({ snapshots });
    assert.equal(p.push('{"k": "a').value.k, 'a');
    assert.equal(p.push('\uD800b').value.k, 'a\uFFFDb');
    assert.equal(p.push('c\uDC00').value.k, 'a\uFFFDbc\uFFFD');
    p.free();
  }
});

test('errors: typed, at the same place as parseAndRepair, and early where certain', () => {
  const p = new PartialJsonParser({ maxInputLength: 8 });
  p.push('{"a": 1');
  assert.throws(
    () => p.push(', "b": 2}'),
    (e) => e instanceof JsonRepairError && e.kind === 'input_too_long',
  );
  p.free();
  const deep = new PartialJsonParser({ maxDepth: 50 });
  deep.push('[1, ');
  for (let i = 0; i < 100; i++) deep.push('[[');
  assert.equal(deep.error?.kind, 'depth_limit');
  assert.throws(
    () => deep.finish(),
    (e) => e.kind === 'depth_limit',
  );
  const none = new PartialJsonParser();
  none.push('I cannot help with that.');
  assert.throws(
    () => none.finish(),
    (e) => e instanceof JsonRepairError && e.kind === 'no_json',
  );
  assert.throws(() => none.push('x'), /freed|finished/);
  assert.throws(() => new PartialJsonParser().push(42), TypeError);
  assert.throws(() => new PartialJsonParser({ schema: 'x' }), TypeError);
  assert.throws(() => new PartialJsonParser({ forbid: ['nope'] }), RangeError);
});

test('valid JSON streams to exactly JSON.parse, deep nesting included', () => {
  const text = '['.repeat(20000) + ']'.repeat(20000);
  const p = new PartialJsonParser();
  for (let i = 0; i < text.length; i += 1000) p.push(text.slice(i, i + 1000));
  let v = p.finish();
  let depth = 1;
  while (Array.isArray(v) && v.length === 1) [v, depth] = [v[0], depth + 1];
  assert.deepEqual([v, depth], [[], 20000]);
  const q = new PartialJsonParser();
  q.push('"just a string"');
  assert.equal(q.finish(), 'just a string');
});

test('adapters: bytes through the clean stream into partial values, and the async iterable', async () => {
  const raw = '<think>hmm</think>Assistant: {"hp": 10, "log": ["hit", "miss"]}';
  const bytes = new TextEncoder().encode(raw);
  const body = new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
      c.close();
    },
  });
  const updates = [];
  const reader = body
    .pipeThrough(createCleanStream({ removeAssistantPrefix: true }))
    .pipeThrough(createPartialJsonStream())
    .getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    updates.push({ ...value, value: structuredClone(value.value) });
  }
  assert.deepEqual(updates.at(-1), { value: { hp: 10, log: ['hit', 'miss'] }, complete: true, done: true });
  assert.ok(updates.some((u) => !u.done && Array.isArray(u.value?.log) && u.value.log.length === 1));
  const values = [];
  for await (const u of partialJsonValues(['{"a": [1', ', 2]', '}']))
    values.push(u.done ? u.value : JSON.stringify(u.value));
  assert.deepEqual(values, ['{"a":[]}', '{"a":[1,2]}', '{"a":[1,2]}', { a: [1, 2] }]);
});

test('adapters: a server-sent events body is a TypeError that names objectStream, not the envelope as the value', async () => {
  const openai =
    'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"delta":{"content":"{\\"a\\": 1}"}}]}\n\ndata: [DONE]\n\n';
  const anthropic = 'event: message_start\ndata: {"type":"message_start"}\n\n';
  for (const body of [openai, anthropic, `\ufeff\n${openai}`]) {
    const bytes = new TextEncoder().encode(body);
    // Split inside "data:" too: the start is recognized across chunks.
    const chunks = [bytes.slice(0, 3), bytes.slice(3)];
    const piped = new Blob(chunks).stream().pipeThrough(createCleanStream()).pipeThrough(createPartialJsonStream());
    await assert.rejects(
      async () => {
        for await (const u of piped) void u;
      },
      (e) => e instanceof TypeError && /server-sent events.*objectStream/.test(e.message),
    );
    await assert.rejects(async () => {
      for await (const u of partialJsonValues(chunks)) void u;
    }, TypeError);
  }
  // A response whose own text starts with "data:" is text.
  const values = [];
  for await (const u of partialJsonValues(['data: 3 rows follow\n', '{"rows": 3}'])) values.push(u.value);
  assert.deepEqual(values.at(-1), { rows: 3 });
});

test('with a schema, finishExtract gives extract’s result for the whole text, and the stream’s last update carries it', async () => {
  const schema = {
    type: 'object',
    required: ['n', 'mood'],
    properties: {
      n: { type: 'integer' },
      mood: { enum: ['calm', 'angry'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
  };
  const text = '<think>{"n": 9}</think>Sure: {"n": "2", "mood": "Angry", "tags": "one",}';
  const p = new PartialJsonParser({ schema });
  for (const ch of text) p.push(ch);
  const r = p.finishExtract();
  assert.deepEqual(r, extract(text, schema));
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { n: 2, mood: 'angry', tags: ['one'] });
  assert.throws(() => p.push('x'), /freed|finished/);
  assert.throws(
    () => new PartialJsonParser().finishExtract(),
    (e) => e instanceof TypeError && /without a schema/.test(e.message),
  );
  // A wrong answer is issues, not an exception; no JSON at all is the parse issue.
  const q = new PartialJsonParser({ schema, coerce: false });
  q.push('{"n": "2", "mood": "calm"}');
  assert.deepEqual(
    q.finishExtract().issues.map((i) => [i.path, i.keyword]),
    [['/n', 'type']],
  );
  const none = new PartialJsonParser({ schema });
  none.push('I cannot help with that.');
  assert.equal(none.finishExtract().issues[0].keyword, 'parse');
  // The adapters: the last update has the value as repaired and, with a schema, the checked result.
  const updates = [];
  for await (const u of partialJsonValues(text.match(/.{1,7}/gs), { schema })) updates.push(u);
  const last = updates.at(-1);
  assert.equal(last.done, true);
  assert.deepEqual(last.value, extract(text, schema).value);
  assert.deepEqual(last.result, extract(text, schema));
  assert.ok(updates.slice(0, -1).every((u) => u.result === undefined));
  const plain = [];
  for await (const u of partialJsonValues(['[1, 2'])) plain.push(u);
  assert.equal('result' in plain.at(-1), false);
});

test('a parser keeps its schema while extract calls with other schemas push it out of the shared cache', () => {
  const p = new PartialJsonParser({ schema: { properties: { n: { type: 'integer' } } } });
  p.push('{"n": "4"');
  for (let i = 0; i < 40; i++) extract('{"a": 1}', { properties: { a: { type: 'integer', minimum: -i } } });
  const r = p.finishExtract();
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { n: 4 });
});

test('snapshots: a growing array keeps every finished item, and a key written twice shows its last value', () => {
  const items = Array.from({ length: 60 }, (_, i) =>
    i % 3 === 0 ? { id: i, tags: ['a', `t${i}`], note: `item ${i}` } : i % 3 === 1 ? [i, [i + 1], 'x'] : `s${i}`,
  );
  const text = JSON.stringify({ list: items, after: 1 });
  for (const size of [1, 2, 5, 11]) {
    const p = new PartialJsonParser({ snapshots: true });
    let before;
    const handed = [];
    for (let i = 0; i < text.length; i += size) {
      const v = p.push(text.slice(i, i + size)).value;
      handed.push([v, JSON.stringify(v)]);
      const list = v?.list;
      if (Array.isArray(list) && Array.isArray(before?.list)) {
        // Items before the last one that was open are the same objects as in the snapshot before.
        for (let k = 0; k < before.list.length - 1; k++) assert.equal(list[k], before.list[k], `item ${k} at ${i}`);
        assert.ok(list.length >= before.list.length);
      }
      before = v;
    }
    for (const [v, json] of handed) assert.equal(JSON.stringify(v), json);
    assert.deepEqual(before, JSON.parse(text));
    assert.deepEqual(p.finish(), JSON.parse(text));
  }
  // A key written again keeps its first place in the key order, as `JSON.parse` keeps it; its value changes there.
  const p = new PartialJsonParser({ snapshots: true });
  const shown = ['{"a": "x", "b": [1], "a": "y', 'z", "b": [2, ', '3], "c": 4}'].map((c) => p.push(c).value);
  assert.deepEqual(
    shown.map((v) => JSON.stringify(v)),
    ['{"a":"y","b":[1]}', '{"a":"yz","b":[2]}', '{"a":"yz","b":[2,3],"c":4}'],
  );
  p.free();
});

test('snapshots: each update equals the live value, earlier updates never change, unchanged parts keep their identity', () => {
  const cases = repairFixtures().filter((f) => !f.error);
  let compared = 0;
  for (const f of cases) {
    for (const size of [1, 3, 17]) {
      const live = new PartialJsonParser();
      const snap = new PartialJsonParser({ snapshots: true });
      const handed = [];
      for (let i = 0; i < f.input.length; i += size) {
        const chunk = f.input.slice(i, i + size);
        const a = live.push(chunk).value;
        const b = snap.push(chunk).value;
        assert.equal(JSON.stringify(b), JSON.stringify(a), `${f.name} at ${i}`);
        handed.push([b, JSON.stringify(b)]);
        compared++;
      }
      // What was handed out is as it was then.
      for (const [v, text] of handed) assert.equal(JSON.stringify(v), text, f.name);
      assert.deepEqual(snap.finish(), live.finish());
    }
  }
  assert.ok(compared > 5_000, String(compared));

  const p = new PartialJsonParser({ snapshots: true });
  const one = p.push('{"done": {"a": [1, 2]}, "__proto__": {"x": 1}, "log": ["hi"').value;
  const two = p.push(', "the').value;
  assert.notEqual(two, one, 'the root changed');
  assert.notEqual(two.log, one.log, 'the array that grew is a new one');
  assert.equal(two.done, one.done, 'a finished subtree keeps its identity');
  assert.equal(two.done.a, one.done.a);
  assert.deepEqual(one.log, ['hi']);
  assert.deepEqual(two.log, ['hi', 'the']);
  assert.ok(Object.hasOwn(two, '__proto__') && Object.getPrototypeOf(two) === Object.prototype);
  const three = p.push('"').value;
  assert.equal(p.push('  ').value, three, 'a chunk that changes nothing hands out the same object');
  p.free();
  assert.throws(() => new PartialJsonParser({ snapshots: 'yes' }), TypeError);
});

test('regression: a member cut from the output after its key was shown never sends the view text that is not JSON', () => {
  // Found by driving the npm API with random chunkings: `push` threw a SyntaxError mid-stream.
  const text = '{$id:F(\t+\t\u0011x",_: "x"\t]';
  for (const size of [1, 2, 3, 5]) {
    const p = new PartialJsonParser();
    let value;
    for (let i = 0; i < text.length; i += size) value = p.push(text.slice(i, i + size)).value;
    assert.deepEqual(value, parseAndRepair(text), `chunks of ${size}`);
    assert.deepEqual(p.finish(), parseAndRepair(text));
  }
});

test('reasoningFirst: a stream that starts inside reasoning (R1-style) never shows the draft, then the answer', async () => {
  const text =
    'Okay, the user wants JSON like {"chosenIndex": 9}. Let me answer.\n</think>\n\n{"chosenIndex": 2, "speech": "Hi"}';
  for (const size of [1, 4, 11]) {
    const chunks = text.match(new RegExp(`.{1,${size}}`, 'gs'));
    const shown = [];
    for await (const u of partialJsonValues(chunks, { reasoningFirst: true })) shown.push(JSON.stringify(u.value));
    assert.ok(!shown.some((s) => s?.includes('9')), `chunks of ${size}: ${shown.join(' ')}`);
    assert.equal(shown.at(-1), JSON.stringify({ chosenIndex: 2, speech: 'Hi' }));
    // Without the option the draft shows first, then the value starts over at the answer.
    const plain = [];
    for await (const u of partialJsonValues(chunks)) plain.push(JSON.stringify(u.value));
    assert.ok(plain.some((s) => s?.includes('9')));
    assert.equal(plain.at(-1), shown.at(-1));
  }
  assert.throws(() => new PartialJsonParser({ reasoningFirst: 1 }), TypeError);
});

test('regression: valid JSON holding a lone surrogate finishes exactly as JSON.parse builds it (found by the property suite)', () => {
  for (const text of ['"\ud83d"', '{"a": "x\udc00"}', '["\ud83d", 1]  ', '"\ud83d', '{"a": "x\ud800']) {
    for (const size of [1, 2, 100]) {
      const p = new PartialJsonParser();
      const q = new PartialJsonParser();
      // With a schema, as the stream adapters end it (`finishBoth`): a first half held at the end reaches the value too.
      const r = new PartialJsonParser({ schema: {} });
      for (let i = 0; i < text.length; i += size) {
        p.push(text.slice(i, i + size));
        q.push(text.slice(i, i + size));
        r.push(text.slice(i, i + size));
      }
      const outcome = (fn) => {
        try {
          return JSON.stringify(fn());
        } catch (e) {
          return `${e.name} ${e.kind}`;
        }
      };
      assert.equal(
        outcome(() => p.finish()),
        outcome(() => parseAndRepair(text)),
        `${JSON.stringify(text)} in ${size}s`,
      );
      assert.equal(
        outcome(() => q.finishDetailed()),
        outcome(() => parseDetailed(text)),
      );
      let result;
      const both = () => {
        const b = r.finishBoth();
        result = b.result;
        return b.value;
      };
      assert.equal(
        outcome(both),
        outcome(() => parseAndRepair(text)),
        `${JSON.stringify(text)} in ${size}s`,
      );
      if (result !== undefined) assert.deepEqual(result, extract(text, {}));
    }
  }
});

test('with a schema, a string the schema wants as a number or boolean shows only complete, coerced as extract coerces it', () => {
  const schema = {
    properties: {
      n: { type: 'integer' },
      x: { type: ['number', 'null'] },
      ok: { type: 'boolean' },
      s: { type: 'string' },
      bad: { type: 'integer' },
    },
  };
  const text = '{"n": "12", "x": "2.5", "ok": "TRUE", "s": "34", "bad": "2.5"}';
  for (const size of [1, 3]) {
    const p = new PartialJsonParser({ schema, snapshots: true });
    const shown = [];
    for (let i = 0; i < text.length; i += size) shown.push(p.push(text.slice(i, i + size)).value);
    for (const v of shown) {
      if (v?.n !== undefined) assert.equal(v.n, 12, 'n is never a string on the way');
      if (v?.ok !== undefined) assert.equal(v.ok, true);
    }
    assert.deepEqual(
      shown.at(-1),
      { n: 12, x: 2.5, ok: true, s: '34', bad: '2.5' },
      'a string that does not read as one stays a string',
    );
    // finish() is still parseAndRepair's; finishExtract is extract's.
    assert.deepEqual(p.finish(), parseAndRepair(text));
  }
  const off = new PartialJsonParser({ schema, coerce: false });
  assert.equal(off.push(text).value.n, '12');
  const forbid = new PartialJsonParser({ schema, forbidCoercions: ['string_to_boolean'] });
  assert.deepEqual(forbid.push(text).value, { n: 12, x: 2.5, ok: 'TRUE', s: '34', bad: '2.5' });
});

test('with a schema, an unknown coercion rule is a RangeError that names the parser', () => {
  assert.throws(
    () => new PartialJsonParser({ schema: { type: 'integer' }, forbidCoercions: ['string_to_bool'] }),
    (e) => e instanceof RangeError && /^PartialJsonParser: unknown coercion rule 'string_to_bool'/.test(e.message),
  );
});

// Found by the door's property suite (issue 27): prose with a bracket, then a complete array. While the
// text may still close the first candidate the stream shows it; at the end the one-shot locator rules it
// out for the complete array after it, and `finish()` moves there as the class documents.
test('a candidate the end of the text rules out gives way at finish() to the JSON parseAndRepair finds', () => {
  const text = 'true[truex[]';
  const p = new PartialJsonParser();
  assert.deepEqual(p.push(text.slice(0, 9)).value, []);
  assert.deepEqual(p.push(text.slice(9)).value, ['truex[']);
  assert.equal(parseDetailed(text).span.start, 10);
  assert.deepEqual(p.finish(), parseAndRepair(text));
  assert.deepEqual(parseAndRepair(text), []);
});
