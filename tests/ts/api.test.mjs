// The public API's contract: types of errors, positions in UTF-16, prototype safety, options and limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from 'llm-response-sanitizer';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const { parseAndRepair, parseDetailed, repairJson, JsonRepairError, init, repairKinds, clean, PartialJsonParser } = api;

test('init is idempotent and Node is ready on import', async () => {
  assert.equal(api.isReady(), true);
  await init();
  await init();
  assert.deepEqual(parseAndRepair('[1,]'), [1]);
});

// The Node entry reads the .wasm through `process.getBuiltinModule` (Node ≥ 20.16). Where a runtime lacks it,
// the entry loads asynchronously: a call before `await init()` says to call it, and works after.
test('without process.getBuiltinModule the Node entry is ready after await init()', () => {
  const script = `
    delete process.getBuiltinModule;
    const api = await import('llm-response-sanitizer');
    let before;
    try { api.parseAndRepair('[1,]'); before = 'no error'; } catch (e) { before = e.message; }
    await api.init();
    process.stdout.write(JSON.stringify({ before, ready: api.isReady(), after: api.parseAndRepair('[1,]') }));
  `;
  const out = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('.', import.meta.url),
      encoding: 'utf8',
    }),
  );
  assert.match(out.before, /call `await init\(\)` first/);
  assert.equal(out.ready, true);
  assert.deepEqual(out.after, [1]);
});

test('require() gives the same API', () => {
  const m = createRequire(import.meta.url)('llm-response-sanitizer');
  assert.deepEqual(m.parseAndRepair("{'a': 1}"), { a: 1 });
});

test('non-string input is a TypeError with a clear message, for every entry point', () => {
  for (const bad of [undefined, null, 42, {}, ['{}'], Buffer.from('{}')]) {
    for (const fn of [parseAndRepair, repairJson, parseDetailed, api.LLMResponseSanitizer.sanitize]) {
      assert.throws(
        () => fn(bad),
        (e) => e instanceof TypeError && /expects a string/.test(e.message),
      );
    }
  }
});

test('JsonRepairError has a stable name, readonly fields and says what and where', () => {
  try {
    parseAndRepair('Sorry, I cannot do that.');
    assert.fail('should throw');
  } catch (e) {
    assert.ok(e instanceof JsonRepairError && e instanceof Error);
    assert.equal(e.name, 'JsonRepairError');
    assert.equal(e.kind, 'no_json');
    assert.equal(e.line, 1);
    assert.equal(e.column, 1);
    assert.match(e.message, /no JSON object or array/);
    assert.match(e.message, /line 1, column 1/);
  }
});

test('repair positions are UTF-16 indices into the original string, with 1-based line and column', () => {
  const input = '<think>é😀</think>\n{"k😀": [1, 2,],\n "b": True}';
  const r = parseDetailed(input);
  const comma = r.repairs.find((x) => x.kind === 'trailing_comma');
  assert.equal(input.slice(comma.position, comma.position + 1), ',');
  assert.equal(input.indexOf(',]'), comma.position);
  assert.equal(comma.line, 2);
  assert.equal(comma.column, input.indexOf(',]') - input.indexOf('\n'));
  const py = r.repairs.find((x) => x.kind === 'python_literal');
  assert.equal(input.slice(py.position, py.position + 4), 'True');
  assert.equal(py.line, 3);
  assert.match(py.message, /line 3, column 7/);
  assert.equal(input.slice(r.span.start, r.span.start + 1), '{');
  assert.equal(r.span.end, input.length);
});

test('valid JSON passes through exactly as JSON.parse builds it', () => {
  for (const t of [
    '-0',
    '"<think>x</think>"',
    '{"a":1,"a":2}',
    '[1e400]',
    ' "\\ud800" ',
    '{"__proto__": 1}',
    '"{\'a\': 1,}"',
  ]) {
    assert.deepStrictEqual(parseAndRepair(t), JSON.parse(t));
    const d = parseDetailed(t);
    assert.equal(d.status, 'valid');
    assert.equal(d.repairs.length, 0);
    assert.equal(repairJson(t), t.trim());
  }
  assert.ok(Object.is(parseAndRepair('-0'), -0));
});

test('frozen intrinsics, or an engine without Error.stackTraceLimit: the JSON.parse probe neither throws nor adds to Error', () => {
  // The probe quiets V8's stack traces while inputs are mostly invalid (`Error.stackTraceLimit = 0`). Hardened
  // code freezes Error (Object.freeze, Node's --frozen-intrinsics, a SES lockdown); Firefox has no such property.
  // Mostly valid inputs with one that needs repair now and then: the probe runs, quieted, after each of those.
  const calls = () => {
    for (let i = 0; i < 40; i++) {
      const comma = i % 8 === 7 ? ',' : '';
      assert.deepEqual(parseAndRepair(`{"turn": ${i}${comma}}`), { turn: i });
      assert.equal(repairJson(`{"n": [${i}${comma}]}`), comma ? `{"n":[${i}]}` : `{"n": [${i}]}`);
    }
  };
  const saved = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  try {
    // First without the property (a failed assignment below turns the quieting off for good).
    delete Error.stackTraceLimit;
    calls();
    assert.ok(!Object.hasOwn(Error, 'stackTraceLimit'), 'nothing was added to Error');
    Object.defineProperty(Error, 'stackTraceLimit', { ...saved, writable: false });
    calls();
    assert.equal(Error.stackTraceLimit, saved.value);
  } finally {
    Object.defineProperty(Error, 'stackTraceLimit', saved);
  }
});

test('after a long run of responses that need repair, valid JSON still comes out exactly as JSON.parse builds it', () => {
  // Such a run makes the wrapper skip its JSON.parse probe (a speed choice); no result may change.
  const run = () => {
    for (let i = 0; i < 20; i++) assert.deepEqual(parseAndRepair(`{"turn": ${i},}`), { turn: i });
  };
  const valid = ['{"a": "x\ud800y"}', ' {"r": "</think>"} ', '{"__proto__": {"x": 1}}', '[1e400, -0]', '{"a":1,"a":2}'];
  for (const t of valid) {
    run();
    assert.deepStrictEqual(parseAndRepair(t), JSON.parse(t));
    run();
    assert.equal(repairJson(t), t.trim());
    run();
    const d = parseDetailed(t);
    assert.deepStrictEqual(
      [d.value, d.json, d.status, d.repairs, d.span.start],
      [JSON.parse(t), t.trim(), 'valid', [], t.length - t.trimStart().length],
    );
  }
  // Valid JSON deeper than the default maxDepth is JSON.parse's to answer, as without the run.
  const deep = '['.repeat(10_001) + ']'.repeat(10_001);
  run();
  assert.equal(depth(parseAndRepair(deep)), 10_001);
  run();
  assert.equal(repairJson(deep), deep);
  run();
  assert.equal(depth(parseDetailed(deep).value), 10_001);
  run();
  assert.equal(Object.getPrototypeOf(parseAndRepair('{"__proto__": {"x": 1}}')), Object.prototype);
  run();
  assert.throws(
    () => parseAndRepair('[1,]', { forbid: ['trailing_comma'] }),
    (e) => e.kind === 'repair_forbidden' && e.position === 2,
  );
  run();
  assert.throws(
    () => parseAndRepair('['.repeat(1_000_000)),
    (e) => e.kind === 'depth_limit',
  );
});

test('text reaches the core intact in every form a string takes: ASCII, Latin-1, UTF-16, lone surrogates', () => {
  // Node writes a string as V8 stores it, Latin-1 or UTF-16, and the core transcodes it (eight ASCII units
  // at a time: runs of every length around characters of one, two, three and four UTF-8 bytes); browsers
  // write UTF-8.
  const latin1 = Array.from({ length: 223 }, (_, i) => String.fromCharCode(i + 33))
    .join('')
    .replace(/["\\]/g, '');
  const runs = Array.from({ length: 20 }, (_, n) => `${'a'.repeat(n)}${['é', '—', '😀', '你'][n % 4]}`).join('');
  for (const s of [
    'plain ascii',
    latin1,
    'déjà vu ÿ'.repeat(40),
    '“curly” 😀',
    `${latin1}😀`,
    'é'.repeat(1000),
    runs,
    `${'x'.repeat(40)}—`,
  ]) {
    const text = `{"s": ${JSON.stringify(s)},}`;
    assert.deepEqual(parseAndRepair(text), { s });
    assert.equal(repairJson(text), `{"s":${JSON.stringify(s)}}`);
    const d = parseDetailed(text);
    assert.deepEqual([d.repairs[0].kind, d.repairs[0].position], ['trailing_comma', text.length - 2]);
    assert.equal(clean(`<think>ÿ</think>${s}`), s);
    const p = new PartialJsonParser();
    p.push(text.slice(0, 9));
    assert.deepEqual(p.push(text.slice(9)).value, { s });
    assert.deepEqual(p.finish(), { s });
  }
  assert.deepStrictEqual(parseAndRepair('{"a": "é\ud800",}'), { a: 'é\ufffd' });
});

test('a value dense in characters beyond Latin-1 comes back whole, in either form the core picks for it', () => {
  // parseAndRepair's value crosses as Latin-1 with escapes when few characters are beyond Latin-1, and as
  // UTF-16 when many are (one in 25 bytes of its JSON text or more): both sides of that line, every width
  // of character, surrogate pairs, escapes and a lone surrogate, and results that are not a value.
  const near = (c, n) => `${'a'.repeat(n)}${c}`;
  for (const s of [
    '你好世界'.repeat(30),
    'привет мир, как дела?'.repeat(10),
    '😀🚀✨'.repeat(20),
    'مرحبا بالعالم'.repeat(8),
    `${'日本語'.repeat(10)} "quoted" \\ back\nslash é ÿ`,
    near('—', 10),
    near('—', 14),
    near('—', 15),
    near('—', 30),
    `你${'a'.repeat(200)}`,
    '\ud83d and 你好'.repeat(3),
  ]) {
    const value = { s, n: [1, 2], t: true };
    const text = `{'s': ${JSON.stringify(s)}, 'n': [1, 2,], 't': True}`;
    assert.deepStrictEqual(parseAndRepair(text), JSON.parse(repairJson(text)), text);
    if (!s.includes('\ud83d')) assert.deepStrictEqual(parseAndRepair(text), value, text);
  }
  // Valid input and errors are not values the core writes: the same answers as before.
  assert.deepEqual(parseAndRepair('{"s": "你好"}'), { s: '你好' });
  assert.throws(
    () => parseAndRepair('你好世界, no JSON here'),
    (e) => e instanceof JsonRepairError && e.kind === 'no_json',
  );
  assert.throws(
    () => parseAndRepair(`{'你好': ${'['.repeat(20)}`, { maxDepth: 5 }),
    (e) => e instanceof JsonRepairError && e.kind === 'depth_limit',
  );
});

test('JSON text after input beyond Latin-1 comes back exact (UTF-16 from the core), errors and reports too', () => {
  // repairJson and parseDetailed return the text itself: after input V8 stores in two bytes per character
  // the core writes it as UTF-16, which Node makes a string with one copy. Every width of character, dense
  // and sparse, escapes and control characters, a byte order mark inside a string, a lone surrogate.
  for (const s of [
    '我们分析了这个模块的结构，发现它有三个主要的问题。'.repeat(6),
    'Мы проанализировали структуру модуля и нашли три основные проблемы.'.repeat(3),
    'The module’s “main” problem — and a few others…',
    '😀🚀✨ ok 👍'.repeat(9),
    'مرحبا بالعالم',
    'tab\there, "quoted", back\\slash, \u0001 and é ÿ 你',
    '\ufeff日本語',
  ]) {
    const text = `{'s': ${JSON.stringify(s)}, 'n': [1, 2,], 't': True}`;
    const json = JSON.stringify({ s, n: [1, 2], t: true });
    assert.equal(repairJson(text), json, text);
    const d = parseDetailed(text);
    assert.equal(d.json, json);
    assert.deepStrictEqual(d.value, { s, n: [1, 2], t: true });
    // Positions in UTF-16 units of the input, whatever came before them.
    const at = (piece) => text.indexOf(piece, text.indexOf(JSON.stringify(s)) + JSON.stringify(s).length);
    assert.deepEqual(
      d.repairs.map((r) => [r.kind, r.position]),
      [
        ['single_quotes', 1],
        ['single_quotes', at("'n'")],
        ['trailing_comma', at(',]')],
        ['single_quotes', at("'t'")],
        ['python_literal', at('True')],
      ],
    );
  }
  assert.equal(repairJson("{'s': 'a\ud800b 你好',}"), '{"s":"a\ufffdb 你好"}');
  assert.throws(
    () => repairJson('你好世界, no JSON here'),
    (e) => e instanceof JsonRepairError && e.kind === 'no_json',
  );
});

test('JSON text after Latin-1 input comes back exact, and after a stream whose last chunk was Latin-1', () => {
  // In Node the core writes the text as Latin-1 when every character fits, else UTF-16 (the `text` form):
  // a stream's last chunk may be ASCII while its text holds characters beyond Latin-1.
  for (const s of ['plain', 'déjà vu ÿ « » © \u0001 "q" \\', '\u00ff'.repeat(40)]) {
    const text = `{'s': ${JSON.stringify(s)}, 'n': [1, 2,], 't': True}`;
    const json = JSON.stringify({ s, n: [1, 2], t: true });
    assert.equal(repairJson(text), json, text);
    assert.equal(parseDetailed(text).json, json, text);
  }
  for (const s of ['你好，世界', 'Мы проанализировали', '“quoted” — wait…', '😀 ok', 'é']) {
    const p = new PartialJsonParser();
    p.push(`{'s': ${JSON.stringify(s)}, 'n': [1, 2`);
    p.push(',]}');
    const d = p.finishDetailed();
    assert.equal(d.json, JSON.stringify({ s, n: [1, 2] }), s);
    assert.deepStrictEqual(d.value, { s, n: [1, 2] });
  }
});

test('a Latin-1 string read as it is (value only) gives what the UTF-8 route gives, errors included', () => {
  // parseAndRepair reads Latin-1 strings without transcoding; repairJson and parseDetailed take the UTF-8
  // route. Generated texts with accented letters, â/ï/Â (lead bytes of typographic sequences in UTF-8),
  // characters in U+0080..U+00BF (which decline the Latin-1 reading) and every kind of repair.
  const pieces = [
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '"',
    "'",
    ' ',
    '\n',
    '"k": ',
    'k: ',
    '1',
    'True',
    'NaN',
    'é',
    'â',
    'ï',
    'Â',
    'ÿ',
    '°',
    '«',
    '\u00a0',
    '"é"',
    "'âï'",
    'éa: ',
    '\\',
    '//',
    '/*',
    '*/',
    '```json\n',
    '```',
    '<think>',
    '</think>',
    '<|',
    '|>',
    'Â'.repeat(31),
    '...',
    'f(',
    ')',
    'â\u0080\u009c',
    'â\u0080\u009d',
    'ï»¿',
    'Â\u00a0',
    'â\u0080\u00a6',
  ];
  let seed = 7;
  const next = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const outcome = (f) => {
    try {
      return { value: f() };
    } catch (e) {
      return { kind: e.kind, position: e.position };
    }
  };
  let values = 0;
  for (let i = 0; i < 3000; i++) {
    const text = Array.from({ length: 1 + next(24) }, () => pieces[next(pieces.length)]).join('');
    const latin1 = outcome(() => parseAndRepair(text));
    const utf8 = outcome(() => JSON.parse(repairJson(text)));
    assert.deepStrictEqual(latin1, utf8, text);
    if ('value' in latin1) values++;
    const forbid = { forbid: ['unquoted_string', 'trailing_comma'] };
    assert.deepStrictEqual(
      outcome(() => parseAndRepair(text, forbid)),
      outcome(() => JSON.parse(repairJson(text, forbid))),
      text,
    );
  }
  assert.ok(values > 300, `only ${values} of the generated texts gave a value`);
  // Positions of errors from a Latin-1 string are UTF-16 indices.
  assert.throws(
    () => parseAndRepair('{"é": 1, "à": [2,],}', { forbid: ['trailing_comma'] }),
    (e) => e.position === 16,
  );
  assert.throws(
    () => parseAndRepair('ééé', {}),
    (e) => e.kind === 'no_json',
  );
  assert.throws(
    () => parseAndRepair('{"é": "àààà"}x', { maxInputLength: 5 }),
    (e) => e.kind === 'input_too_long',
  );
  assert.deepStrictEqual(parseAndRepair('{"é": "àç", "°": «1»}'), { é: 'àç', '°': '«1»' });
});

test('results stay right when linear memory grows between calls (cached views of it are renewed)', () => {
  const small = "{'é': [1, 2,],}";
  assert.deepStrictEqual(parseAndRepair(small), { é: [1, 2] });
  const before = api.wasmMemorySize();
  // Larger than anything before: the input and output buffers grow, and so may memory.
  const big = `{"a": [${'"ééé", '.repeat(400_000)}],}`;
  assert.equal(parseAndRepair(big).a.length, 400_000);
  assert.equal(repairJson(big).length, big.length - 2 - 400_000 - 1);
  assert.deepStrictEqual(parseAndRepair(small), { é: [1, 2] });
  assert.equal(repairJson(small), '{"é":[1,2]}');
  assert.ok(api.wasmMemorySize() > before, 'memory did not grow: the test proves nothing');
});

test('__proto__ and constructor keys are plain own properties; Object.prototype is never touched', () => {
  const inputs = [
    '{__proto__: {polluted: true}, constructor: {prototype: {polluted: true}},}',
    "{'__proto__': {'polluted': True}}",
    '[{"__proto__": {"polluted": 1}}',
  ];
  for (const t of inputs) {
    const v = parseAndRepair(t);
    const o = Array.isArray(v) ? v[0] : v;
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.ok(Object.hasOwn(o, '__proto__'));
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
  }
});

function depth(v) {
  let d = 0;
  for (; Array.isArray(v); v = v[0]) d++;
  return d;
}

test('maxDepth: up to the limit gives a value, deeper a typed error, a million levels never crash', () => {
  assert.equal(depth(parseAndRepair('['.repeat(10_000))), 10_000);
  for (const deep of ['['.repeat(1_000_000), '{"a":'.repeat(1_000_000), '['.repeat(10_001) + ']'.repeat(10_000)]) {
    assert.throws(
      () => parseAndRepair(deep),
      (e) => e instanceof JsonRepairError && e.kind === 'depth_limit' && e.limit === 10_000,
    );
  }
  assert.throws(
    () => parseAndRepair('[[[[1]]]]', { maxDepth: 3 }),
    (e) => e.kind === 'depth_limit' && e.position === 3,
  );
  assert.deepEqual(parseAndRepair('[[[1]]]', { maxDepth: 3 }), [[[1]]]);
  assert.equal(depth(parseAndRepair('['.repeat(1_000_000), { maxDepth: 1_000_000 })), 1_000_000);
});

test('maxInputLength counts UTF-16 code units', () => {
  assert.throws(
    () => parseAndRepair('{"a": "😀😀"}', { maxInputLength: 12 }),
    (e) => e.kind === 'input_too_long' && e.limit === 12,
  );
  assert.deepEqual(parseAndRepair('{"a": "😀😀"}', { maxInputLength: 13 }), { a: '😀😀' });
});

test('forbid, allow and strict stop the repairs they name', () => {
  assert.throws(
    () => parseAndRepair('[1,]', { forbid: ['trailing_comma'] }),
    (e) =>
      e.kind === 'repair_forbidden' &&
      e.repair === 'trailing_comma' &&
      e.position === 2 &&
      e.message ===
        'the text needs a repair the options forbid: trailing_comma (removed a trailing comma) (at line 1, column 3, index 2)',
  );
  assert.throws(
    () => parseAndRepair('{"a": "b', { forbid: ['truncation'] }),
    (e) => e.kind === 'repair_forbidden',
  );
  assert.deepEqual(parseAndRepair('{"a": "b', { forbid: ['quotes'] }), { a: 'b' });
  assert.throws(
    () => parseAndRepair('```json\n[1]\n```', { strict: true }),
    (e) => e.repair === 'code_fence',
  );
  assert.deepEqual(parseAndRepair(' [1] ', { strict: true }), [1]);
  assert.deepEqual(parseAndRepair('[1,]', { allow: ['syntax'] }), [1]);
  assert.throws(
    () => parseAndRepair("['a']", { allow: ['syntax'] }),
    (e) => e.repair === 'single_quotes',
  );
  assert.throws(() => parseAndRepair('[1]', { forbid: ['no_such_repair'] }), RangeError);
  assert.throws(() => parseAndRepair('[1]', { maxDepth: -1 }), RangeError);
});

test('repairKinds lists stable codes with classes and descriptions', () => {
  const kinds = repairKinds();
  assert.ok(kinds.length >= 30);
  for (const k of kinds) {
    assert.match(k.kind, /^[a-z_]+$/);
    assert.ok(api.REPAIR_CLASSES.includes(k.class), k.class);
    assert.ok(k.description.length > 10);
  }
  assert.deepEqual([...api.REPAIR_CLASSES], ['extraction', 'syntax', 'quotes', 'literals', 'truncation']);
  for (const needed of [
    'trailing_comma',
    'missing_comma',
    'single_quotes',
    'unquoted_key',
    'python_literal',
    'truncated_string',
  ]) {
    assert.ok(
      kinds.some((k) => k.kind === needed),
      needed,
    );
  }
  // The published RepairKind type is built from REPAIR_KINDS: the kinds the core reports, in its order.
  assert.deepEqual(
    [...api.REPAIR_KINDS],
    kinds.map((k) => k.kind),
  );
  const reported = new Set(parseDetailed("{'a': True, b: [1,,2,] // c\n").repairs.map((r) => r.kind));
  for (const kind of reported) assert.ok(api.REPAIR_KINDS.includes(kind), kind);
  // Frozen: a caller cannot change what the library accepts.
  assert.ok(Object.isFrozen(api.REPAIR_KINDS) && Object.isFrozen(kinds) && kinds.every(Object.isFrozen));
});

test('lone surrogates in input do not crash and valid ones are preserved', () => {
  assert.deepStrictEqual(parseAndRepair('{"a": "x\ud800y",}'), { a: 'x\ufffdy' });
  assert.deepStrictEqual(parseAndRepair('{"a": "\\ud800"}'), { a: '\ud800' });
});

// The door's contract with the core: `V` ("parse your own text") only when the host has not already failed to
// parse it. With `assumeInvalid` (its `JSON.parse` threw, or could not succeed) valid input comes back in full,
// status `valid`, so the host never parses a string of its own that it could not parse.
test('the core answers valid input in full when the host said its JSON.parse had failed', async () => {
  // The door itself, not the package's Node entry (one bundled module with its own copy of the door).
  const { callRepair, initFromBytes } = await import('../../dist/wasm.js');
  initFromBytes(readFileSync(new URL('../../pkg/llm_response_sanitizer_bg.wasm', import.meta.url)));
  const text = ' {"a": [1, "é"]}\n';
  for (const narrow of [false, true]) {
    const full = callRepair(text, 128, -1, '', true, !narrow, narrow);
    assert.equal(full.ok && full.valid, false);
    assert.deepEqual(JSON.parse(full.json), { a: [1, 'é'] });
    if (!narrow) assert.equal(JSON.parse(full.header).status, 'valid');
    const own = callRepair(text, 128, -1, '', false, !narrow, narrow);
    assert.equal(own.ok && own.valid, true);
  }
});
