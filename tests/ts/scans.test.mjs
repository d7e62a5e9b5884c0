// The long scans (a reasoning block read for its closing tag, prose read for fences, tags and brackets, a
// Latin-1 text checked for bytes that would be UTF-8 continuation bytes, the cleaner's search for a tag's
// first byte) go sixteen or thirty-two bytes a step in wasm, with a slower path for the last bytes. Every offset of what they look for, relative to
// those steps and to the end of the text, against a plain JavaScript reading of the same text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clean,
  cleanDetailed,
  COMMON_THINK_TAGS,
  extract,
  parseAndRepair,
  parseDetailed,
} from 'llm-response-sanitizer';

/** Filler of `n` characters holding none of the bytes the scans look for. */
const filler = (n) => 'reasoning, step by step '.repeat(Math.ceil(n / 24) + 1).slice(0, n);

test('a reasoning block ends at its closing tag wherever that falls in the scan', () => {
  for (let n = 0; n < 80; n++) {
    for (const [open, close] of [
      ['<think>', '</think>'],
      ['[THINK]', '[/THINK]'],
      ['<|START_THINKING|>', '<|END_THINKING|>'],
    ]) {
      const text = `${open}${filler(n)}${close}{"n": ${n},}`;
      assert.deepStrictEqual(parseAndRepair(text), { n }, text);
      // The closing tag among the last bytes, which the vector steps leave to the byte loop.
      assert.deepStrictEqual(parseAndRepair(`${open}${filler(n)}${close}[${n}]`), [n]);
      // A draft and a first byte of the closing tag that is not the tag, before it.
      const draft = `${open}${filler(n)}{"n": -1} ${close[0]}x ${filler(n % 17)}${close}\n{"n": ${n}}`;
      assert.deepStrictEqual(parseAndRepair(draft), { n }, draft);
    }
    // Never closed: everything is reasoning.
    assert.throws(() => parseAndRepair(`<think>${filler(n)}{"n": 1}`), { kind: 'no_json' });
  }
});

test('Latin-1 text with characters 0x80–0xBF anywhere reads the same as without them', () => {
  // `°`, `±`, `§`, `¿` are Latin-1 characters whose code is a UTF-8 continuation byte; `é` is not.
  for (const mark of ['°', '±', '§', '¿', '\u0080', 'é']) {
    for (let at = 0; at < 90; at++) {
      const content = `${filler(at)}${mark}${filler(89 - at)}`;
      const text = `{"k": "${content}", "n": ${at},}`;
      assert.deepStrictEqual(parseAndRepair(text), { k: content, n: at }, `${mark} at ${at}`);
      const detailed = parseDetailed(text);
      assert.deepStrictEqual(detailed.value, { k: content, n: at });
      assert.equal(detailed.repairs[0].position, text.length - 2, `${mark} at ${at}`);
    }
  }
  // `Â` and a no-break space are the bytes C2 A0, which read as UTF-8 would be one no-break space (JSON
  // whitespace, repaired): Latin-1 text holding them must be read as the two characters it holds.
  for (let at = 0; at < 90; at++) {
    const pad = filler(at);
    const text = `{"pad": "${pad}", "k": 1,\u00c2\u00a0"m": 2}`;
    assert.deepStrictEqual(parseAndRepair(text), { pad, k: 1, '\u00c2\u00a0': 'm": 2' }, `at ${at}`);
  }
});

test('the cleaner finds a tag wherever it falls in the scan, with one, two or many first bytes', () => {
  const sets = [
    { startThinkTag: '<think>', endThinkTag: '</think>' },
    { thinkTags: COMMON_THINK_TAGS },
    // Tags starting with letters: both cases of each first byte, more than three in all.
    {
      thinkTags: [
        { start: 'Thought:', end: 'Answer:' },
        { start: 'reasoning>', end: '<done>' },
        { start: '<think>', end: '</think>' },
      ],
    },
  ];
  for (const options of sets) {
    const [open, close] = options.thinkTags
      ? [options.thinkTags.at(-1).start, options.thinkTags.at(-1).end]
      : [options.startThinkTag, options.endThinkTag];
    for (let n = 0; n < 80; n++) {
      for (const lead of ['', ' ', filler(n % 23)]) {
        const text = `${lead}${open}${filler(n)}${close}the answer ${n}`;
        // The lead is shorter than the default grace period (100 characters), so the block goes.
        assert.equal(clean(text, options), `${lead}the answer ${n}`.trim(), JSON.stringify({ n, lead, open }));
        assert.equal(cleanDetailed(text, options).reasoning, filler(n), JSON.stringify({ n, lead, open }));
      }
    }
  }
});

test('prose before the JSON: a fence, a tag or a bracket wherever it falls in the scan', () => {
  const schema = { type: 'object', required: ['b'], properties: { b: { type: 'number' } } };
  for (let n = 0; n < 80; n++) {
    const prose = filler(n);
    // After prose, inline or fenced; after markup the scan for fences and tags stops at.
    assert.deepStrictEqual(parseAndRepair(`${prose} {"n": ${n}} ok`), { n });
    assert.deepStrictEqual(parseAndRepair(`${prose}\n\`\`\`json\n{"n": ${n},}\n\`\`\``), { n });
    assert.deepStrictEqual(parseAndRepair(`${prose}<b>${filler(n % 19)}</b> [${n}]`), [n]);
    assert.deepStrictEqual(parseAndRepair(`${prose}~~~\n{"n": ${n}}\n~~~`), { n });
    // A fence in another language is skipped, with the bracket inside it.
    assert.deepStrictEqual(parseAndRepair(`${prose}\`\`\`py\nx = [0]\n\`\`\`\n${prose}{"n": ${n}}`), { n });
    // Schema-guided extraction walks every candidate past the prose.
    const r = extract(`${prose} {"a": 1} and ${filler(n % 29)} {"b": ${n}}`, schema);
    assert.deepStrictEqual(r.value, { b: n }, JSON.stringify(r));
  }
});
