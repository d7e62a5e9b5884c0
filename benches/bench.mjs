// The competitive benchmark: this package against jsonrepair, @toolsycc/json-repair, partial-json,
// best-effort-json-parser, @streamparser/json and JSON.parse on generated LLM-like workloads. Reports
// correctness (the exact value a correct repair gives) and speed as ratios, each ratio against a JavaScript
// library measured in a new process (cell.mjs, the two sides taking turns). `npm run bench`.
// BENCH_QUICK=1 shortens the timing loops (to check the script runs).
import { isDeepStrictEqual } from 'node:util';
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  parseAndRepair,
  parseDetailed,
  repairJson,
  clean,
  StreamCleaner,
  extract,
  compileSchema,
} from 'llm-response-sanitizer';
import Ajv from 'ajv';
import { parsePartialJson as aiParsePartialJson } from 'ai';
import { contenders, streamers } from './contenders.mjs';
import { cpuMs, rates } from './measure.mjs';
import {
  DEFECTS,
  WRAPPERS,
  SCRIPTS,
  PROSE,
  SHAPES,
  CONTENTS,
  contentDocument,
  document,
  proseDocument,
  structureDocument,
  validDocument,
  entitiesFor,
  rng,
} from './workloads.mjs';

const quick = process.env.BENCH_QUICK === '1';
const budgetMs = quick ? 20 : 400;

const libraries = Object.fromEntries(
  [
    'llm-response-sanitizer',
    'jsonrepair',
    '@toolsycc/json-repair',
    'partial-json',
    'best-effort-json-parser',
    'JSON.parse',
  ].map((n) => [n, contenders[n]]),
);

function correct(fn, w) {
  try {
    return isDeepStrictEqual(fn(w.text), w.value);
  } catch {
    return false;
  }
}

/**
 * `rates` of the named contenders (see contenders.mjs) on `texts`, measured in a new process (cell.mjs) so
 * that no earlier workload has shaped a JIT-compiled competitor: how a user measures them.
 */
function fresh(names, texts, totalMs = budgetMs * 2, stream = undefined) {
  const out = execFileSync(process.execPath, [fileURLToPath(new URL('./cell.mjs', import.meta.url))], {
    input: JSON.stringify({ names, texts, budgetMs: totalMs, stream }),
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.toString('utf8'));
}

/**
 * The least CPU time in ms of `runs` runs of each named streaming parser (`streamers`) reading `text` in
 * chunks of `size` characters, taking turns a run at a time in a new process (cell.mjs).
 */
const freshStream = (names, text, size, runs) => fresh(names, [text], 0, { size, runs });

/** The middle of `xs` (the upper one of an even count). */
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const fmt = (x, d = 1) => (x >= 100 ? x.toFixed(0) : x.toFixed(d));
const mbps = (ops, bytes) => fmt((ops * bytes) / 1e6);
const rows = [];
const out = (line = '') => {
  console.log(line);
  rows.push(line);
};

out('# llm-response-sanitizer benchmark');
out();
out(
  `Node ${process.version}, ${quick ? 'quick mode' : `${budgetMs} ms per measurement`}. Ratios > 1 mean this package is faster.`,
);

// 1. Valid JSON: the fast path against JSON.parse.
out();
out('## Valid JSON through parseAndRepair vs JSON.parse (bar: ≥ 0.9×)');
out();
out('| document | JSON.parse MB/s | parseAndRepair MB/s | ratio | jsonrepair+JSON.parse ratio to JSON.parse |');
out('| --- | ---: | ---: | ---: | ---: |');
for (const bytes of [2_000, 1_000_000]) {
  const w = validDocument(7, bytes);
  const [base, ours, jr] = rates(
    [libraries['JSON.parse'], libraries['llm-response-sanitizer'], libraries.jsonrepair],
    [w.text],
    budgetMs * 2,
    bytes >= 1e6,
  );
  out(
    `| valid ${w.text.length >= 1e6 ? '1 MB' : '2 KB'} | ${mbps(base, w.text.length)} | ${mbps(ours, w.text.length)} | ${fmt(ours / base, 2)}× | ${fmt(jr / base, 2)}× |`,
  );
}

// 2. One defect class per ~2 KB response.
out();
out('## ~2 KB responses, one defect class each (bar: 100% right, ≥ 5× jsonrepair)');
out();
const names = Object.keys(libraries).filter((n) => n !== 'JSON.parse');
out(`| defect | ${names.map((n) => `${n} right`).join(' | ')} | ours MB/s | jsonrepair MB/s | speed vs jsonrepair |`);
out(`| --- | ${names.map(() => '---:').join(' | ')} | ---: | ---: | ---: |`);
const classes = [...DEFECTS.map((d) => [d, d, 'none']), ...WRAPPERS.map((h) => [h, 'trailing_commas', h])];
const allOurs = [];
for (const [label, defect, how] of classes) {
  const ws = Array.from({ length: 20 }, (_, i) => document(1000 + i, entitiesFor(2000), defect, how));
  const rights = names.map((n) => ws.filter((w) => correct(libraries[n], w)).length / ws.length);
  allOurs.push(rights[0]);
  const texts = ws.map((w) => w.text);
  const avg = texts.reduce((a, t) => a + t.length, 0) / texts.length;
  const [ours, jr] = fresh(['llm-response-sanitizer', 'jsonrepair'], texts);
  const caveat = rights[1] === 0 ? ' (jsonrepair fails fast)' : '';
  out(
    `| ${label} | ${rights.map((r) => `${Math.round(r * 100)}%`).join(' | ')} | ${mbps(ours, avg)} | ${mbps(jr, avg)} | ${fmt(ours / jr)}×${caveat} |`,
  );
}

// Where jsonrepair fails, it stops early, so its speed on that class says little. Measured instead: the same
// defect in the form jsonrepair reads, and the pipeline users build around it for reasoning and fences.
out();
out(
  'Where jsonrepair fails it gives up early, and its speed on that class means little. The same defects where jsonrepair is right:',
);
out();
out('| workload | ours right | jsonrepair right | ours MB/s | jsonrepair MB/s | speed vs jsonrepair |');
out('| --- | ---: | ---: | ---: | ---: | ---: |');
const fair = [
  ['comments, `//` and `/* */` only (jsonrepair reads no `#`)', 'js_comments', 'none', 'jsonrepair'],
  [
    'think_block: a think-tag regex, then jsonrepair',
    'trailing_commas',
    'think_block',
    'a think-tag regex, then jsonrepair',
  ],
  [
    'fence_and_prose: a fence regex, then jsonrepair',
    'trailing_commas',
    'fence_and_prose',
    'a fence regex, then jsonrepair',
  ],
];
/** A row of the table above: documents `ws`, ours against the named contender `theirs`. */
function fairRow(label, ws, theirs) {
  const right = [libraries['llm-response-sanitizer'], contenders[theirs]].map(
    (f) => ws.filter((w) => correct(f, w)).length / ws.length,
  );
  allOurs.push(right[0]);
  const texts = ws.map((w) => w.text);
  const avg = texts.reduce((a, t) => a + t.length, 0) / texts.length;
  const [ours, jr] = fresh(['llm-response-sanitizer', theirs], texts);
  out(
    `| ${label} | ${right.map((r) => `${Math.round(r * 100)}%`).join(' | ')} | ${mbps(ours, avg)} | ${mbps(jr, avg)} | ${fmt(ours / jr)}× |`,
  );
}
for (const [label, defect, how, theirs] of fair) {
  const ws = Array.from({ length: 20 }, (_, i) => document(1000 + i, entitiesFor(2000), defect, how));
  fairRow(label, ws, theirs);
}

// Reasoning models write thousands of characters of reasoning before the answer (DeepSeek-R1, Qwen3, QwQ),
// often with drafts of the JSON in it: the same 2 KB documents after 10 KB and 50 KB of it.
const reasoningOf = (kb) =>
  'The user wants entities. A draft: {"entities": [1, 2]} is too short; let me check each field again. '
    .repeat(Math.ceil((kb * 1000) / 100))
    .slice(0, kb * 1000);
for (const kb of [10, 50]) {
  const ws = Array.from({ length: 5 }, (_, i) => document(1000 + i, entitiesFor(2000), 'trailing_commas')).map((w) => ({
    text: `<think>\n${reasoningOf(kb)}\n</think>\n\n${w.text}`,
    value: w.value,
  }));
  fairRow(`think_block of ${kb} KB: a think-tag regex, then jsonrepair`, ws, 'a think-tag regex, then jsonrepair');
}

// 2a. The repair report: what parseDetailed adds to parseAndRepair on the same documents.
out();
out('The repair report, `parseDetailed` against `parseAndRepair` on the same documents (µs per document):');
out();
out('| defect | repairs per document | parseAndRepair | parseDetailed | the report adds |');
out('| --- | ---: | ---: | ---: | ---: |');
for (const defect of ['trailing_commas', 'single_quotes', 'raw_newlines']) {
  const texts = Array.from({ length: 20 }, (_, i) => document(1000 + i, entitiesFor(2000), defect).text);
  const repairs = texts.reduce((a, t) => a + parseDetailed(t).repairs.length, 0) / texts.length;
  const [plain, detailed] = rates([(t) => parseAndRepair(t), (t) => parseDetailed(t)], texts, budgetMs * 2);
  const [a, b] = [1e6 / plain, 1e6 / detailed];
  out(`| ${defect} | ${fmt(repairs)} | ${fmt(a, 2)} | ${fmt(b, 2)} | ${fmt(b - a, 2)} |`);
}

// 2a'. Small responses (one entity, about 300 bytes: the size of a tool call's arguments or a short answer),
// where a call's fixed cost and the host's `JSON.parse` weigh most.
out();
out('## ~300 B responses, one defect class each (one entity)');
out();
out('| defect | ours right | jsonrepair right | ours µs | jsonrepair µs | speed vs jsonrepair |');
out('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const defect of DEFECTS) {
  const ws = Array.from({ length: 20 }, (_, i) => document(1000 + i, 1, defect));
  const share = (fn) => ws.filter((w) => correct(fn, w)).length / ws.length;
  const [right, theirs] = [share(libraries['llm-response-sanitizer']), share(libraries.jsonrepair)];
  allOurs.push(right);
  const [ours, jr] = fresh(
    ['llm-response-sanitizer', 'jsonrepair'],
    ws.map((w) => w.text),
    budgetMs,
  );
  const caveat = theirs === 0 ? ' (jsonrepair fails fast)' : '';
  out(
    `| ${defect} | ${Math.round(right * 100)}% | ${Math.round(theirs * 100)}% | ${fmt(1e6 / ours, 2)} | ${fmt(1e6 / jr, 2)} | ${fmt(ours / jr)}×${caveat} |`,
  );
}

// 2a''. Responses as a service receives them: valid JSON and JSON that needs repair, in random order.
out();
out('## Valid responses and responses needing repair mixed, in random order');
out();
out('Trailing commas, missing commas, raw newlines, JavaScript literals, one in five truncated; 100 responses.');
out();
out(
  '| valid share | ~300 B: ours µs | jsonrepair µs | vs jsonrepair | ~2 KB: ours µs | jsonrepair µs | vs jsonrepair |',
);
out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const share of [0.1, 0.5, 0.9]) {
  const cells = [];
  for (const bytes of [300, 2_000]) {
    const r = rng(7000 + share * 10 + bytes);
    const kinds = ['trailing_commas', 'missing_commas', 'raw_newlines', 'js_literals'];
    const ws = Array.from({ length: 100 }, (_, i) =>
      r() < share
        ? validDocument(300 + i, bytes)
        : document(300 + i, entitiesFor(bytes), kinds[i % 4], i % 5 === 0 ? 'truncated' : 'none'),
    );
    allOurs.push(ws.filter((w) => correct(libraries['llm-response-sanitizer'], w)).length / ws.length);
    const [ours, jr] = fresh(
      ['llm-response-sanitizer', 'jsonrepair'],
      ws.map((w) => w.text),
      budgetMs,
    );
    cells.push(`${fmt(1e6 / ours, 2)} | ${fmt(1e6 / jr, 2)} | ${fmt(ours / jr)}×`);
  }
  out(`| ${share} | ${cells.join(' | ')} |`);
}

// 2b. The same classes with the strings models write: typographic punctuation, emoji, other scripts.
out();
out('## ~2 KB responses by the script of their strings (bar: 100% right, ≥ 6× jsonrepair in every cell)');
out();
const scriptNames = Object.keys(SCRIPTS).filter((k) => k !== 'typographic-single');
out(`| defect | ${scriptNames.join(' | ')} |`);
out(`| --- | ${scriptNames.map(() => '---:').join(' | ')} |`);
for (const [label, defect, how] of classes) {
  const cells = scriptNames.map((script) => {
    const ws = Array.from({ length: 20 }, (_, i) => document(1000 + i, entitiesFor(2000), defect, how, script));
    const right = ws.filter((w) => correct(libraries['llm-response-sanitizer'], w)).length / ws.length;
    allOurs.push(right);
    const [ours, jr] = fresh(
      ['llm-response-sanitizer', 'jsonrepair'],
      ws.map((w) => w.text),
      budgetMs,
    );
    return `${fmt(ours / jr)}×${right < 1 ? ` (${Math.round(right * 100)}% right)` : ''}`;
  });
  out(`| ${label} | ${cells.join(' | ')} |`);
}
out();
out('`comments` and `think_block`: jsonrepair gets them wrong and stops early (see the table above).');
out();
out('Valid JSON by script, parseAndRepair against JSON.parse (bar: ≥ 0.95×):');
out();
out(`| document | ${scriptNames.join(' | ')} |`);
out(`| --- | ${scriptNames.map(() => '---:').join(' | ')} |`);
for (const bytes of [200, 1_000_000]) {
  const cells = scriptNames.map((script) => {
    const w = validDocument(7, bytes, script);
    if (!isDeepStrictEqual(parseAndRepair(w.text), w.value)) throw new Error(`bench: valid ${script} differs`);
    const [base, ours] = rates(
      [libraries['JSON.parse'], libraries['llm-response-sanitizer']],
      [w.text],
      budgetMs,
      bytes >= 1e6,
    );
    return `${fmt(ours / base, 2)}×`;
  });
  out(`| valid ${bytes >= 1e6 ? '1 MB' : '~300 B (one entity)'} | ${cells.join(' | ')} |`);
}

// 2b'. The structure itself beyond ASCII: typographic quotes around keys and strings, full-width
// punctuation, Unicode spaces, unquoted keys in Chinese.
out();
out('## ~2 KB responses whose structure is written beyond ASCII');
out();
out('Keys and strings in typographic quotes, full-width `：` and `，`, no-break and ideographic spaces between');
out('tokens, unquoted keys in Chinese. No bar of their own; a ratio only where jsonrepair is right.');
out();
out('| shape | ours right | jsonrepair right | ours MB/s | jsonrepair MB/s | speed vs jsonrepair |');
out('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const shape of SHAPES) {
  const ws = Array.from({ length: 20 }, (_, i) => structureDocument(1000 + i, shape));
  const share = (fn) => ws.filter((w) => correct(fn, w)).length / ws.length;
  const [right, theirs] = [share(libraries['llm-response-sanitizer']), share(libraries.jsonrepair)];
  allOurs.push(right);
  const texts = ws.map((w) => w.text);
  const [ours, jr] = fresh(['llm-response-sanitizer', 'jsonrepair'], texts, budgetMs);
  const bytes = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  const speed = theirs === 1 ? `${fmt(ours / jr)}×` : '(jsonrepair wrong)';
  out(
    `| ${shape} | ${Math.round(right * 100)}% | ${Math.round(theirs * 100)}% | ${mbps(ours, bytes)} | ${mbps(jr, bytes)} | ${speed} |`,
  );
}

// 2b''. Other content: what models put in strings besides words (code, Markdown, HTML, URLs) and values of
// other shapes, each with trailing commas and with unquoted keys.
out();
out('## ~1.5–3 KB responses of other content');
out();
out('Strings holding source code, Markdown with a fenced block, HTML, URLs and paths; a 200-number array, deep');
out('nesting, small records. No bar of their own; a ratio only where jsonrepair is right.');
out();
out(
  '| content | ours right | jsonrepair right | trailing commas: ours MB/s | vs jsonrepair | unquoted keys: ours MB/s | vs jsonrepair |',
);
out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const content of CONTENTS) {
  const cells = [];
  let right = 0;
  let theirs = 0;
  for (const defect of ['trailing_commas', 'unquoted_keys']) {
    const ws = Array.from({ length: 20 }, (_, i) => contentDocument(1000 + i, content, defect));
    right += ws.filter((w) => correct(libraries['llm-response-sanitizer'], w)).length / ws.length / 2;
    const jrRight = ws.filter((w) => correct(libraries.jsonrepair, w)).length / ws.length;
    theirs += jrRight / 2;
    const texts = ws.map((w) => w.text);
    const [ours, jr] = fresh(['llm-response-sanitizer', 'jsonrepair'], texts, budgetMs);
    const bytes = texts.reduce((n, t) => n + t.length, 0) / texts.length;
    cells.push(mbps(ours, bytes), jrRight === 1 ? `${fmt(ours / jr)}×` : '(jsonrepair wrong)');
  }
  allOurs.push(right);
  out(`| ${content} | ${Math.round(right * 100)}% | ${Math.round(theirs * 100)}% | ${cells.join(' | ')} |`);
}

// 2c. Prose: strings that are sentences (long runs of one script), as models write them.
out();
out('## ~1–2 KB responses whose strings are prose: English with typography, Chinese, Japanese, Russian, Korean');
out();
out('Ratios to jsonrepair (no bar of their own; the table by script above holds the 6× bar). The last two rows');
out('compare the JSON text (`repairJson` against `jsonrepair`) and the repair report (`parseDetailed`).');
out();
const langs = Object.keys(PROSE);
out(`| defect | ${langs.join(' | ')} |`);
out(`| --- | ${langs.map(() => '---:').join(' | ')} |`);
const proseRows = [
  ...['trailing_commas', 'missing_commas', 'single_quotes', 'python_literals', 'raw_newlines'].map((d) => [
    d,
    d,
    'llm-response-sanitizer',
    'jsonrepair',
  ]),
  ['single_quotes, repairJson (text)', 'single_quotes', 'repairJson', 'jsonrepair (text)'],
  ['single_quotes, parseDetailed', 'single_quotes', 'parseDetailed', 'jsonrepair'],
];
for (const [label, defect, ours, theirs] of proseRows) {
  const cells = langs.map((lang) => {
    const ws = Array.from({ length: 20 }, (_, i) => proseDocument(500 + i, lang, defect));
    const right = ws.filter((w) => correct(libraries['llm-response-sanitizer'], w)).length / ws.length;
    allOurs.push(right);
    const [a, b] = fresh(
      [ours, theirs],
      ws.map((w) => w.text),
      budgetMs,
    );
    return `${fmt(a / b)}×${right < 1 ? ` (${Math.round(right * 100)}% right)` : ''}`;
  });
  out(`| ${label} | ${cells.join(' | ')} |`);
}

// 3. One 1 MB response with every defect mixed, after a think block, in a fence, truncated.
out();
out('## 1 MB response, every defect mixed (bar: 100% right, ≥ 50× jsonrepair)');
out();
const big = document(42, entitiesFor(1_000_000), 'mixed', 'all');
out(`| library | right | MB/s | ours vs it |`);
out(`| --- | ---: | ---: | ---: |`);
for (const n of names) {
  const ok = correct(libraries[n], big);
  if (n === 'llm-response-sanitizer') {
    const [s] = rates([libraries[n]], [big.text], budgetMs * 2);
    out(`| ${n} | ${ok ? 'yes' : 'no'} | ${mbps(s, big.text.length)} | 1× |`);
    continue;
  }
  const [bigOurs, s] = rates([libraries['llm-response-sanitizer'], libraries[n]], [big.text], quick ? 1 : budgetMs);
  out(`| ${n} | ${ok ? 'yes' : 'no'} | ${mbps(s, big.text.length)} | ${fmt(bigOurs / s)}× |`);
}

// 4. Deep nesting: a value up to maxDepth, a typed error beyond, never a crash.
out();
out('## Nesting (bar: value up to 10,000 levels, typed error beyond, 1,000,000 never crashes)');
out();
out(`| library | ${[1_000, 10_000, 1_000_000].map((d) => `${d.toLocaleString('en')} open brackets`).join(' | ')} |`);
out(`| --- | --- | --- | --- |`);
const depthOf = (v) => {
  let d = 0;
  for (; Array.isArray(v); v = v[0]) d++;
  return d;
};
for (const n of names) {
  const cells = [1_000, 10_000, 1_000_000].map((d) => {
    try {
      const got = depthOf(libraries[n]('['.repeat(d)));
      return got === d ? 'value' : `wrong value (depth ${got})`;
    } catch (e) {
      if (e instanceof RangeError && /call stack/.test(e.message)) return 'stack overflow';
      return `${e.name}${e.kind ? ` (${e.kind})` : ''}`;
    }
  });
  out(`| ${n} | ${cells.join(' | ')} |`);
}

/** A table of `[label, text, value]` replies: each library right (its value exactly) or wrong. */
function rightOrWrong(replies) {
  out(`| reply | ${names.join(' | ')} |`);
  out(`| --- | ${names.map(() => '---').join(' | ')} |`);
  for (const [label, text, value] of replies) {
    const cells = names.map((n) => (correct(libraries[n], { text, value }) ? 'right' : 'wrong'));
    out(`| ${label} | ${cells.join(' | ')} |`);
  }
}

// 4b. Replies as they come back from an API, each checked against its exact value.
out();
out('## Replies as APIs return them (no bar)');
out();
{
  const value = { name: 'Mirela', tags: ['rope', 'lantern'], stats: { wits: 4 } };
  const pretty = JSON.stringify(value, null, 2);
  rightOrWrong([
    // The `{` that started the reply was written into the request (a prefill), so the reply lacks it.
    ['the rest of a reply whose `{` was the prefill', pretty.slice(1), value],
    ['line breaks written as `\\n`, quotes not escaped', pretty.replaceAll('\n', '\\n'), value],
  ]);
}

out();
out('## Values written loosely (no bar)');
out();
out('Right: the value with every word the model wrote kept, each in its member or item.');
out();
rightOrWrong([
  [
    'numbers with their units (`"oven": 190 °C`, `"cost": 12.50 USD`, `"heat": 80 %`)',
    '{"dish": "Shakshuka", "oven": 190 °C, "cost": 12.50 USD, "heat": 80 %, "serves": 4}',
    { dish: 'Shakshuka', oven: '190 °C', cost: '12.50 USD', heat: '80 %', serves: 4 },
  ],
  [
    'a list of quantities (`[2 eggs, 1 cup flour]`)',
    '{"ingredients": [2 eggs, 1 cup flour, 3 tbsp oil]}',
    { ingredients: ['2 eggs', '1 cup flour', '3 tbsp oil'] },
  ],
  [
    'keys written with `=` (a Lua table)',
    '{\n  title = "Night Ferry",\n  max_players = 4,\n  music = true\n}',
    { title: 'Night Ferry', max_players: 4, music: true },
  ],
  [
    'bare keys of several words (`Favorite Color: "blue"`)',
    '{Name: "Ada", Favorite Color: "blue", Age: 36}',
    { Name: 'Ada', 'Favorite Color': 'blue', Age: 36 },
  ],
  [
    "Python reprs with keyword arguments (`Character(name='Ada', level=3)`)",
    "{\"party\": [Character(name='Ada', level=3, tags=['mage']), Character(name='Brom', level=5, tags=[])]}",
    {
      party: [
        { name: 'Ada', level: 3, tags: ['mage'] },
        { name: 'Brom', level: 5, tags: [] },
      ],
    },
  ],
  [
    'dialogue with its quotes unescaped, quoted words side by side after a comma',
    '{"line": "She said "no", "fine" "run!" and left.", "mood": "tense"}',
    { line: 'She said "no", "fine" "run!" and left.', mood: 'tense' },
  ],
]);

// 5. Adversarial shapes: 10× the input must cost ≤ 20× the time.
out();
out('## Adversarial shapes: time(1 MB) / time(100 KB) (bar: ≤ 20)');
out();
out("`repairJson` is this package's own work; `parseAndRepair` adds the host's `JSON.parse` of the result.");
out();
const shapes = {
  'runs of quotes': (n) => `{"a": "${'"'.repeat(n)}`,
  'open brackets (maxDepth raised)': (n) => '['.repeat(n),
  'trailing commas': (n) => `[${'1,'.repeat(n / 2)}]`,
  'missing commas': (n) => `[${'1 '.repeat(n / 2)}]`,
  'unterminated strings': (n) => `["${'ab, "cd'.repeat(n / 7)}`,
  'unterminated comment': (n) => `{"a": 1 /*${' '.repeat(n)}`,
  'long unquoted run': (n) => `{"a": ${'x'.repeat(n)}`,
  'quote-comma soup': (n) => `{"a": "${'", "'.repeat(n / 4)}`,
};
/** Median time of `fn(t)` in ns: at least `minRuns` runs, more while under ~0.2 s in total. */
function medianTime(fn, t, minRuns = 5) {
  const samples = [];
  const start = process.hrtime.bigint();
  while (
    samples.length < minRuns ||
    (Number(process.hrtime.bigint() - start) < (quick ? 2e7 : 2e8) && samples.length < 200)
  ) {
    const s0 = process.hrtime.bigint();
    try {
      fn(t);
    } catch {
      /* errors are results too */
    }
    samples.push(Number(process.hrtime.bigint() - s0));
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}
/**
 * time(large) / time(small), the medians of runs that alternate between the two inputs, so that a
 * slower or faster phase of the machine weighs on both alike.
 */
function scaling(fn, small, large) {
  const times = [[], []];
  const start = process.hrtime.bigint();
  while (
    times[1].length < 5 ||
    (Number(process.hrtime.bigint() - start) < (quick ? 4e7 : 4e8) && times[1].length < 200)
  ) {
    [small, large].forEach((t, k) => {
      const s0 = process.hrtime.bigint();
      try {
        fn(t);
      } catch {
        /* errors are results too */
      }
      times[k].push(Number(process.hrtime.bigint() - s0));
    });
  }
  return median(times[1]) / median(times[0]);
}
out(`| shape | ours: repairJson | ours: parseAndRepair | jsonrepair |`);
out(`| --- | ---: | ---: | ---: |`);
for (const [name, make] of Object.entries(shapes)) {
  const opts = { maxDepth: 2_000_000 };
  const small = make(100_000);
  const large = make(1_000_000);
  const ratio = (fn) => fmt(scaling(fn, small, large));
  // Competitors get one run of the large input: some take minutes on it (that is the point of the table).
  let jr = 'skipped';
  if (!quick) {
    const t100 = medianTime(libraries.jsonrepair, small, 1);
    jr =
      t100 > 2.5e8
        ? `not run: 100 KB took ${(t100 / 1e9).toFixed(1)} s`
        : fmt(medianTime(libraries.jsonrepair, large, 1) / t100);
  }
  out(`| ${name} | ${ratio((t) => repairJson(t, opts))} | ${ratio((t) => parseAndRepair(t, opts))} | ${jr} |`);
}

// 6. Prototype safety.
out();
out('## Prototype safety (bar: `__proto__` is a plain own property)');
out();
out('| library | result |');
out('| --- | --- |');
for (const n of names) {
  let verdict;
  try {
    const v = libraries[n]('{"__proto__": {"polluted": true}, "a": 1,}');
    verdict =
      Object.getPrototypeOf(v) !== Object.prototype
        ? 'prototype changed'
        : Object.hasOwn(v, '__proto__')
          ? 'own property'
          : 'key dropped';
  } catch (e) {
    verdict = `throws ${e.name}`;
  }
  out(`| ${n} | ${verdict} |`);
}

// 7. Cleaning (SPEC §4): one-shot against a hand-rolled regex stripper, streaming against re-cleaning the
// growing buffer at every chunk (what hand-rolled streaming strippers do), and linear growth.
out();
out('## Cleaning: clean() and StreamCleaner');
out();
const turn = (bytes) => {
  const thought = 'The merchant eyes me warily; I should be polite and ask about the sword. '.repeat(
    Math.ceil(bytes / 5 / 74),
  );
  const speech = '"Good morning! Might I see the blade on the wall? I have coin, and a story to go with it." '.repeat(
    Math.ceil((bytes * 4) / 5 / 90),
  );
  return `<think>\n${thought}\n</think>\n\nAssistant: ${speech}\n`;
};
const cleanOptions = { removeAssistantPrefix: true };
const regexStrip = (t) =>
  t
    .replace(/^\s*<think>[\s\S]*?<\/think>/i, '')
    .replace(/^\s*Assistant:\s*/, '')
    .trim();
const turn2k = turn(2_000);
if (clean(turn2k, cleanOptions) !== regexStrip(turn2k)) throw new Error('bench: cleaning workloads disagree');
const [cOurs, cRegex] = rates([(t) => clean(t, cleanOptions), regexStrip], [turn2k], budgetMs * 2);
out('| workload | ours | comparison | ratio |');
out('| --- | ---: | ---: | ---: |');
out(
  `| 2 KB turn, clean() vs a regex stripper | ${mbps(cOurs, turn2k.length)} MB/s | ${mbps(cRegex, turn2k.length)} MB/s | ${fmt(cOurs / cRegex, 2)}× |`,
);
// A reasoning model's turn: most of it reasoning.
for (const kb of [10, 50]) {
  const t = `<think>\n${reasoningOf(kb)}\n</think>\n\n${turn(2_000).replace(/^[\s\S]*<\/think>\s*/, '')}`;
  if (clean(t, cleanOptions) !== regexStrip(t)) throw new Error('bench: cleaning workloads disagree');
  const [a, b] = rates([(x) => clean(x, cleanOptions), regexStrip], [t], budgetMs * 2);
  out(
    `| ${kb} KB of reasoning and a 2 KB answer, clean() vs a regex stripper | ${mbps(a, t.length)} MB/s | ${mbps(b, t.length)} MB/s | ${fmt(a / b, 2)}× |`,
  );
}
const streamOnce = (t, size) => {
  const s = new StreamCleaner(cleanOptions);
  let outText = '';
  for (let i = 0; i < t.length; i += size) outText += s.push(t.slice(i, i + size));
  outText += s.finish();
  s.free();
  return outText;
};
const recleanEachChunk = (t, size) => {
  let emitted = '';
  for (let i = 0; i < t.length; i += size) {
    const now = regexStrip(t.slice(0, i + size));
    if (now.startsWith(emitted)) emitted = now;
  }
  return emitted;
};
const t100k = turn(100_000);
const t1m = turn(1_000_000);
if (streamOnce(t100k, 10) !== clean(t100k, cleanOptions)) throw new Error('bench: streamed text differs from clean()');
const ms = (ns) => (ns / 1e6).toFixed(1);
const s100 = medianTime((t) => streamOnce(t, 10), t100k, 3);
const s1m = medianTime((t) => streamOnce(t, 100), t1m, 3);
const s1m10 = medianTime((t) => streamOnce(t, 10), t1m, 3);
const naive100 = quick ? NaN : medianTime((t) => recleanEachChunk(t, 10), t100k, 1);
out(
  `| 100 KB in 10-char chunks, StreamCleaner vs re-cleaning the buffer per chunk | ${ms(s100)} ms | ${quick ? 'skipped' : `${ms(naive100)} ms`} | ${quick ? '–' : `${fmt(naive100 / s100)}×`} |`,
);
out(`| 1 MB in 100-char chunks, StreamCleaner | ${ms(s1m)} ms | | |`);
out(`| growth: 1 MB / 100 KB, both in 10-char chunks (linear ≈ 10) | ${fmt(s1m10 / s100)} | | |`);

// 8. Streaming JSON (SPEC §7): the value after every chunk. The partial parsers of the field re-parse the
// growing buffer at each chunk; @streamparser/json is linear but strict and gives completed values only.
out();
out('## Streaming JSON: PartialJsonParser, value after every chunk');
out();
const streamDoc100k = validDocument(21, 100_000).text;
const streamDoc1m = validDocument(22, 1_000_000).text;
const streamOurs = streamers['llm-response-sanitizer'];
const reparseEach = (parse) => (t, size) => {
  let v;
  for (let i = 0; i < t.length; i += size) {
    try {
      v = parse(t.slice(0, i + size));
    } catch {
      /* a prefix it cannot read */
    }
  }
  return v;
};
const aiRun = async (t, size) => {
  let v;
  for (let i = 0; i < t.length; i += size) v = (await aiParsePartialJson(t.slice(0, i + size))).value;
  return v;
};
if (!isDeepStrictEqual(streamOurs(streamDoc100k, 10), JSON.parse(streamDoc100k)))
  throw new Error('bench: streamed value differs');
const bestCpu = async (fn, runs) => {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, (await cpuMs(fn))[0]);
  return best;
};
const ours100 = await bestCpu(() => streamOurs(streamDoc100k, 10), 5);
const ours1m100 = await bestCpu(() => streamOurs(streamDoc1m, 100), 3);
const ours1m10 = await bestCpu(() => streamOurs(streamDoc1m, 10), 3);
if (!isDeepStrictEqual(streamOurs(streamDoc100k, 10, { snapshots: true }), JSON.parse(streamDoc100k)))
  throw new Error('bench: streamed snapshot value differs');
const snap100 = await bestCpu(() => streamOurs(streamDoc100k, 10, { snapshots: true }), 5);
const snap1m10 = await bestCpu(() => streamOurs(streamDoc1m, 10, { snapshots: true }), 3);
// An object is copied key by key with snapshots: one of thousands of keys costs that many per chunk.
const bigObject = JSON.stringify(
  Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key_${i}`, `value number ${i}`])),
  null,
  1,
);
const objLive = await bestCpu(() => streamOurs(bigObject, 10), 3);
const objSnap = await bestCpu(() => streamOurs(bigObject, 10, { snapshots: true }), 1);
out('| workload | total CPU | vs ours |');
out('| --- | ---: | ---: |');
out(`| 100 KB in 10-char chunks: llm-response-sanitizer | ${ours100.toFixed(1)} ms | 1× |`);
const versus = (ms) => `${ms.toFixed(ms < 100 ? 1 : 0)} ms | ${fmt(ms / ours100)}×`;
if (quick) {
  out('| competitors | skipped (BENCH_QUICK) | |');
} else {
  const [pj, pjValue] = await cpuMs(() => reparseEach(contenders['partial-json'])(streamDoc100k, 10));
  const [ai, aiValue] = await cpuMs(() => aiRun(streamDoc100k, 10));
  const same = (v) => (isDeepStrictEqual(v, JSON.parse(streamDoc100k)) ? '' : ' (final value wrong)');
  out(`| 100 KB in 10-char chunks: partial-json (re-parse per chunk) | ${versus(pj)}${same(pjValue)} |`);
  out(`| 100 KB in 10-char chunks: AI SDK parsePartialJson (re-parse per chunk) | ${versus(ai)}${same(aiValue)} |`);
}
out(
  `| 100 KB in 10-char chunks, immutable snapshots (\`snapshots: true\`): llm-response-sanitizer | ${snap100.toFixed(1)} ms | ${fmt(snap100 / ours100)}× the live value's time |`,
);
out(
  `| 66 KB object of 2,000 keys in 10-char chunks, snapshots (copied key by key): llm-response-sanitizer | ${objSnap.toFixed(0)} ms | ${fmt(objSnap / objLive)}× the live value's ${objLive.toFixed(1)} ms |`,
);
out(`| 1 MB in 100-char chunks: llm-response-sanitizer | ${ours1m100.toFixed(1)} ms | 1× |`);
out(`| growth: 1 MB / 100 KB, both in 10-char chunks (linear ≈ 10) | ${fmt(ours1m10 / ours100)} | |`);
// With snapshots each chunk copies the containers on its path, the growing root array among them: a native
// copy per chunk, so the growth is above linear by that copy.
out(
  `| growth with snapshots: 1 MB / 100 KB, both in 10-char chunks (a copy of the growing array per chunk) | ${fmt(snap1m10 / snap100)} | |`,
);
if (!quick) {
  // Against @streamparser/json, a strict incremental parser as fast as ours: each workload in a process of
  // its own (cell.mjs), both values checked, the two taking turns a run at a time, the least CPU time of
  // each. Its time follows the tokens, ours mostly the chunks: documents of longer words hold fewer tokens.
  out();
  out(
    'Against @streamparser/json (strict, no partial root), each workload in a new process, the two taking turns, best of 9 and 5 runs:',
  );
  out();
  out('| strings | 100 KB / 10: ours | @streamparser/json | ratio | 1 MB / 100: ours | @streamparser/json | ratio |');
  out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const script of ['latin1', 'typographic', 'emoji', 'cjk', 'cjk-dense', 'cyrillic']) {
    const cells = [];
    for (const [seed, bytes, size, runs] of [
      [21, 100_000, 10, 9],
      [22, 1_000_000, 100, 5],
    ]) {
      const t = validDocument(seed, bytes, script).text;
      const [ours, theirs] = freshStream(['llm-response-sanitizer', '@streamparser/json'], t, size, runs);
      cells.push(`${ours.toFixed(1)} ms | ${theirs.toFixed(1)} ms | ${fmt(theirs / ours, 2)}×`);
    }
    out(`| ${script} | ${cells.join(' | ')} |`);
  }
}

// 9. Schema-guided extraction: a 2 KB turn response (seed 004's schema).
out();
out('## Schema-guided extraction: a 2 KB turn response');
out();
const turnSchema = JSON.parse(
  readFileSync(new URL('../tests/fixtures/extract/turn-action.schema.json', import.meta.url), 'utf8'),
);
const ajvSchema = { ...turnSchema };
delete ajvSchema.$schema;
const ajvValidate = new Ajv({ allErrors: true }).compile(ajvSchema);
const turnValue = (i) => ({
  chosenIndex: 1 + (i % 5),
  speech: `Hold the line at the north gate, all of you! Turn ${i}.`,
  thoughts:
    'The goblins are massing near the bridge; if the gate falls the village is lost. Borin looks tired but steady.',
  notes: Array.from({ length: 9 }, (_, k) => ({
    text: `Observation ${k} about the siege: the torches moved east after the second bell, and the captain doubled the watch.`,
    subject: ['Borin', 'north gate', 'goblin warband', 'Mira'][k % 4],
    subjectType: ['character', 'location', 'creature', 'character'][k % 4],
    context: 'night of the siege',
  })),
});
const turnJson = Array.from({ length: 20 }, (_, i) => JSON.stringify(turnValue(i), null, 1));
const turnResponses = turnJson.map(
  (j, i) =>
    `<think>The player wants to defend. Option {"chosenIndex": 9} is not offered.</think>\n\`\`\`json\n${j.replace(`"chosenIndex": ${1 + (i % 5)}`, `"chosenIndex": "${1 + (i % 5)}"`)}\n\`\`\``,
);
const compiledTurn = compileSchema(turnSchema);
for (const [i, t] of turnResponses.entries()) {
  const r = extract(t, compiledTurn);
  if (!r.ok || !isDeepStrictEqual(r.value, turnValue(i))) throw new Error('bench: extraction differs');
}
const avgTurn = turnJson.reduce((a, t) => a + t.length, 0) / turnJson.length;
const [exOurs, exAjv] = rates(
  [(t) => extract(t, compiledTurn), (t) => ajvValidate(JSON.parse(t))],
  turnJson,
  budgetMs * 2,
);
const [exMessy] = rates([(t) => extract(t, compiledTurn)], turnResponses, budgetMs * 2);
const ajvMessy = turnResponses.filter((t) => {
  try {
    return ajvValidate(JSON.parse(t));
  } catch {
    return false;
  }
}).length;
out('| workload | extract (compiled schema) | JSON.parse + ajv validate | ratio |');
out('| --- | ---: | ---: | ---: |');
out(
  `| valid 2 KB turn JSON (${Math.round(avgTurn)} chars) | ${mbps(exOurs, avgTurn)} MB/s | ${mbps(exAjv, avgTurn)} MB/s | ${fmt(exOurs / exAjv)}× |`,
);
out(
  `| the same after a think block, fenced, \`"chosenIndex": "2"\` | ${mbps(exMessy, avgTurn)} MB/s, 100% right | ${ajvMessy}% right (JSON.parse throws) | |`,
);

// 10. Cold start: import and the first call in a new process, as every CLI run, serverless function and page
// load pays it. Each measurement is a separate process (benches/cold-start.mjs); medians of 20, interleaved.
out();
out("## Cold start: import + first call in a new process (bar: ≤ jsonrepair's + 10 ms)");
out();
const coldRuns = quick ? 3 : 20;
const coldProbe = fileURLToPath(new URL('cold-start.mjs', import.meta.url));
const coldOf = Object.fromEntries(['ours', 'ours-cjs', 'jsonrepair'].map((k) => [k, []]));
for (let i = 0; i < coldRuns; i++) {
  for (const [which, runs] of Object.entries(coldOf)) {
    runs.push(JSON.parse(execFileSync(process.execPath, [coldProbe, which], { encoding: 'utf8' })));
  }
}
const coldJr = median(coldOf.jsonrepair.map((r) => r.import + r.call));
out('| library | import | first call | total | minus jsonrepair |');
out('| --- | ---: | ---: | ---: | ---: |');
for (const [which, label] of [
  ['ours', 'llm-response-sanitizer (`import`)'],
  ['ours-cjs', 'llm-response-sanitizer (`require`)'],
  ['jsonrepair', 'jsonrepair (fence regex, `JSON.parse`)'],
]) {
  const runs = coldOf[which];
  const total = median(runs.map((r) => r.import + r.call));
  out(
    `| ${label} | ${median(runs.map((r) => r.import)).toFixed(1)} ms | ${median(runs.map((r) => r.call)).toFixed(1)} ms | ${total.toFixed(1)} ms | ${(total - coldJr).toFixed(1)} ms |`,
  );
}

// The command line, as a shell script or `npx` runs it: a new process from start to exit for one response
// in a file, against jsonrepair's own command line on the same text, and an empty module for the process
// alone. Ours turns on Node's compile cache (22.1 and later) where the system's temporary directory is, so
// the first run and the later ones are measured apart: the first with a new, empty temporary directory each
// time, the later ones with one the first run filled (both bench-owned, removed after). Not through
// NODE_COMPILE_CACHE, which would cache the program itself too, as the shipped command line cannot.
out();
out('## Cold start of the command line: one response from a file, process start to exit (no bar)');
out();
const cliInput = join(mkdtempSync(join(tmpdir(), 'lrs-bench-')), 'response.txt');
writeFileSync(cliInput, `{"name": "Ada — “the first”", 'tags': ["x", "y",], ok: True,}`);
const cliOurs = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const cliTheirs = fileURLToPath(new URL('../node_modules/jsonrepair/bin/cli.js', import.meta.url));
const emptyModule = join(cliInput, '..', 'empty.mjs');
writeFileSync(emptyModule, 'export {};\n');
const ourEnv = (tmp) => {
  const env = { ...process.env, TMPDIR: tmp };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return env;
};
const warmCache = mkdtempSync(join(tmpdir(), 'lrs-bench-cache-'));
const cliRuns = {
  warm: { args: [cliOurs, 'repair', cliInput], env: () => ourEnv(warmCache) },
  first: { args: [cliOurs, 'repair', cliInput], env: () => ourEnv(mkdtempSync(join(tmpdir(), 'lrs-bench-cache-'))) },
  jsonrepair: { args: [cliTheirs, cliInput], env: () => process.env },
  empty: { args: [emptyModule], env: () => process.env },
};
const cliOut = {};
const cliMs = Object.fromEntries(Object.keys(cliRuns).map((k) => [k, []]));
const firstCaches = [];
for (let i = -1; i < coldRuns; i++) {
  for (const [which, run] of Object.entries(cliRuns)) {
    const env = run.env();
    if (which === 'first') firstCaches.push(env.TMPDIR);
    const t0 = process.hrtime.bigint();
    cliOut[which] = execFileSync(process.execPath, run.args, { encoding: 'utf8', env });
    // The first round fills the warm cache and is not counted.
    if (i >= 0) cliMs[which].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
for (const dir of [warmCache, ...firstCaches, join(cliInput, '..')]) rmSync(dir, { recursive: true, force: true });
if (!isDeepStrictEqual(JSON.parse(cliOut.warm), JSON.parse(cliOut.jsonrepair)))
  throw new Error(`bench: the two command lines disagree: ${cliOut.warm} against ${cliOut.jsonrepair}`);
const cliJr = median(cliMs.jsonrepair);
out('| command | wall time | minus jsonrepair |');
out('| --- | ---: | ---: |');
for (const [which, label] of [
  ['warm', '`llm-response-sanitizer repair FILE`, later runs'],
  ['first', '`llm-response-sanitizer repair FILE`, first run (empty compile cache)'],
  ['jsonrepair', '`jsonrepair FILE`'],
  ['empty', '`node` with an empty module (the process alone)'],
]) {
  const ms = median(cliMs[which]);
  out(`| ${label} | ${ms.toFixed(1)} ms | ${(ms - cliJr).toFixed(1)} ms |`);
}
out();
out(
  `Medians of ${coldRuns} runs each, interleaved. Node ${process.versions.node}: ${typeof process.getBuiltinModule('node:module').enableCompileCache === 'function' ? 'the command line compiles the library from the cache after its first run' : 'no compile cache (Node 22.1 and later have one), so the two rows of ours differ only by noise'}.`,
);

// 11. Size.
const wasm = readFileSync(new URL('../pkg/llm_response_sanitizer_bg.wasm', import.meta.url));
out();
out(`## Size (bar: ≤ 100 KB gzipped)`);
out();
out(
  `Shipped wasm: ${(wasm.length / 1024).toFixed(1)} KB, ${(gzipSync(wasm, { level: 9 }).length / 1024).toFixed(1)} KB gzipped.`,
);

mkdirSync(new URL('../target/', import.meta.url), { recursive: true });
writeFileSync(new URL('../target/bench.md', import.meta.url), `${rows.join('\n')}\n`);
if (allOurs.some((r) => r < 1)) {
  console.error('\nbench: this package got a defect class wrong');
  process.exitCode = 1;
}
