// Schemas from validation libraries (Standard Schema v1): zod 4, zod 3 (no JSON Schema of its own), valibot
// with and without its converter, arktype. Their JSON Schema picks candidates and guides coercion; their own
// validate has the final word; anything that is no schema is a TypeError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { Schema, JSONSchema } from 'effect';
import {
  extract,
  extractAsync,
  compileSchema,
  validate,
  queryWithCorrection,
  SchemaValidationError,
  PartialJsonParser,
  LLMResponseProcessor,
  LLMProcessingError,
  buildCorrectionPrompt,
  isStandardSchema,
} from 'llm-response-sanitizer';

const Turn = z.object({
  chosenIndex: z.number().int().min(1),
  speech: z.string(),
  mood: z.enum(['calm', 'angry']).default('calm'),
});

test('zod 4: coerced toward its JSON Schema, validated by zod, the output is zod’s', () => {
  const r = extract(
    '<think>{"chosenIndex": 9}</think>Sure! {"chosenIndex": "2", "speech": "Hi", "extra": true,}',
    Turn,
  );
  assert.equal(r.ok, true, JSON.stringify(r.issues));
  // zod's output: the default filled in, the unknown key stripped (zod strips it; it is no error).
  assert.deepEqual(r.value, { chosenIndex: 2, speech: 'Hi', mood: 'calm' });
  assert.deepEqual(
    r.coercions.map((c) => [c.path, c.rule]),
    [
      ['/chosenIndex', 'string_to_integer'],
      ['/mood', 'default'],
    ],
  );
  assert.deepEqual(
    r.repairs.map((x) => x.kind),
    ['trailing_comma'],
  );
});

test('zod 4: a value zod rejects is never ok; its issues come back as ours, with zod’s code', () => {
  const r = extract('{"chosenIndex": "x", "speech": 3}', Turn);
  assert.equal(r.ok, false);
  assert.ok(r.issues.length >= 1);
  const at = Object.fromEntries(r.issues.map((i) => [i.path, i]));
  assert.ok('/chosenIndex' in at, JSON.stringify(r.issues));
  assert.ok(r.standardIssues.some((i) => i.path[0] === 'chosenIndex'));
});

test('zod’s refinements decide: a candidate its JSON Schema accepts but zod refuses passes to the next candidate', () => {
  const Even = z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') });
  const r = extract('First {"n": 3}, then {"n": 4}', Even);
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { n: 4 });
  assert.equal(r.candidate, 1);
  const none = extract('First {"n": 3}, then {"n": 5}', Even);
  assert.equal(none.ok, false);
  assert.deepEqual(none.value, { n: 3 }, 'the first candidate is reported');
  assert.deepEqual(
    none.issues.map((i) => [i.path, i.keyword, i.message, i.params.vendor, i.params.code]),
    [['/n', 'standard', 'must be even', 'zod', 'custom']],
  );
});

test('zod 3 (no JSON Schema of its own): each candidate is read as it is and zod judges it', () => {
  const S = z3.object({ a: z3.number() });
  assert.ok(isStandardSchema(S));
  const r = extract('{"a": "1"} or {"a": 2}', S);
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { a: 2 });
  assert.deepEqual(r.coercions, [], 'nothing to coerce toward without a JSON Schema');
  const bad = extract('{"a": "1"}', S);
  assert.equal(bad.ok, false);
  assert.equal(bad.issues[0].path, '/a');
  assert.equal(bad.issues[0].params.code, 'invalid_type');
  // With a JSON Schema given for it, coercion comes back.
  const guided = extract('{"a": "1"}', S, { jsonSchema: { properties: { a: { type: 'number' } } } });
  assert.equal(guided.ok, true);
  assert.deepEqual(guided.value, { a: 1 });
});

test('valibot, with and without @valibot/to-json-schema; arktype', () => {
  const V = v.object({ n: v.pipe(v.number(), v.integer()), tag: v.picklist(['a', 'b']) });
  const plain = extract('{"n": 4, "tag": "a"}', V);
  assert.equal(plain.ok, true);
  assert.deepEqual(plain.value, { n: 4, tag: 'a' });
  assert.equal(extract('{"n": "4", "tag": "A"}', V).ok, false, 'no JSON Schema, no coercion');
  const described = extract('{"n": "4", "tag": "A"}', toStandardJsonSchema(V));
  assert.equal(described.ok, true, JSON.stringify(described.issues));
  assert.deepEqual(described.value, { n: 4, tag: 'a' });

  const A = type({ count: 'number.integer', name: 'string' });
  const ark = extract("{'count': '7', 'name': 'x'}", A);
  assert.equal(ark.ok, true, JSON.stringify(ark.issues));
  assert.deepEqual(ark.value, { count: 7, name: 'x' });
  assert.equal(extract('{"count": 1.5, "name": "x"}', A).ok, false);
});

test('effect: its Standard Schema judges every candidate; with the JSON Schema effect makes of it, coercion too', () => {
  const Struct = Schema.Struct({ n: Schema.Number, tag: Schema.Literal('a', 'b') });
  const S = Schema.standardSchemaV1(Struct);
  const r = extract("Sure: {'n': 2, 'tag': 'a',}", S);
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { n: 2, tag: 'a' });
  const bad = extract('{"n": "2", "tag": "A"}', S);
  assert.equal(bad.ok, false);
  assert.ok(bad.issues.every((i) => i.keyword === 'standard' && i.params.vendor === 'effect'));
  assert.deepEqual([...new Set(bad.issues.map((i) => i.path))].sort(), ['/n', '/tag']);
  const guided = extract('{"n": "2", "tag": "A"}', S, { jsonSchema: JSONSchema.make(Struct) });
  assert.equal(guided.ok, true, JSON.stringify(guided.issues));
  assert.deepEqual(guided.value, { n: 2, tag: 'a' });
});

test('anything that is neither a JSON Schema nor a Standard Schema is a TypeError, never a silent pass', () => {
  class Shape {
    constructor() {
      this.type = 'object';
    }
  }
  const oldZod = Object.assign(Object.create({ safeParse() {} }), { _def: { typeName: 'ZodObject' } });
  oldZod.safeParse = () => ({ success: true });
  const cases = [
    [new Shape(), /instance of Shape/],
    [() => true, /a function/],
    [oldZod, /older than 3\.24/],
    [{ properties: { a: z.string() } }, /#\/properties\/a.*zod schema inside a JSON Schema/],
    [{ properties: { a: { minimum: Infinity } } }, /#\/properties\/a\/minimum/],
    [null, /got null/],
    [[{ type: 'string' }], /an array/],
    ['{"type":"string"}', /got string/],
  ];
  for (const [schema, message] of cases) {
    for (const call of [
      () => extract('{"a": 1}', schema),
      () => compileSchema(schema),
      () => validate({}, schema),
      () => new PartialJsonParser({ schema }),
    ]) {
      assert.throws(call, (e) => e instanceof TypeError && message.test(e.message), `${message}`);
    }
  }
});

test('an asynchronous library: extract says to use extractAsync, which awaits it', async () => {
  const Slow = z.object({ id: z.string() }).refine(async (o) => o.id.length > 1, 'id too short');
  assert.throws(
    () => extract('{"id": "ab"}', Slow),
    (e) => e instanceof TypeError && /extractAsync/.test(e.message),
  );
  const r = await extractAsync('{"id": "a"} {"id": "ab"}', Slow);
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { id: 'ab' });
  // A plain JSON Schema gives extract's answer.
  assert.deepEqual(
    await extractAsync('{"a": "2"}', { properties: { a: { type: 'integer' } } }),
    extract('{"a": "2"}', { properties: { a: { type: 'integer' } } }),
  );
});

test('validate and compileSchema with a library schema: its output, its issues; a compiled one is reused', () => {
  assert.deepEqual(validate({ chosenIndex: 1, speech: 's' }, Turn), {
    valid: true,
    value: { chosenIndex: 1, speech: 's', mood: 'calm' },
    issues: [],
  });
  const bad = validate({ chosenIndex: 0 }, Turn);
  assert.equal(bad.valid, false);
  assert.deepEqual(bad.issues.map((i) => i.path).sort(), ['/chosenIndex', '/speech']);
  const compiled = compileSchema(Turn);
  assert.equal(compiled.standard, Turn);
  assert.equal(compiled.jsonSchema.properties.mood.enum.length, 2);
  assert.deepEqual(compiled['~standard'].validate({ chosenIndex: 3, speech: '' }), {
    value: { chosenIndex: 3, speech: '', mood: 'calm' },
  });
  assert.equal(extract('{"chosenIndex": 2, "speech": "x"}', compiled).ok, true);
  compiled.free();
});

test('queryWithCorrection with a zod schema rejects what zod rejects and re-asks with its issues', async () => {
  const answers = ['{"chosenIndex": "x", "speech": "hi"}', 'Fixed: {"chosenIndex": 2, "speech": "hi", "note": 1}'];
  const prompts = [];
  const r = await queryWithCorrection({
    prompt: 'Pick.',
    schema: Turn,
    query: async (p) => (prompts.push(p), answers.shift()),
  });
  assert.equal(r.attempts, 2);
  assert.deepEqual(r.value, { chosenIndex: 2, speech: 'hi', mood: 'calm' });
  assert.match(prompts[1], /\/chosenIndex/);
  // The JSON Schema zod describes itself with is shown to the model, not zod's internals.
  assert.match(prompts[1], /"enum":\["calm","angry"\]/);
  assert.doesNotMatch(prompts[1], /_zod|"def"/);
  await assert.rejects(
    queryWithCorrection({
      prompt: 'Pick.',
      schema: Turn,
      maxRetries: 0,
      query: async () => '{"chosenIndex": 0, "speech": "s"}',
    }),
    (e) => e instanceof SchemaValidationError && e.issues[0].path === '/chosenIndex',
  );
});

test('LLMResponseProcessor and buildCorrectionPrompt take a zod schema', async () => {
  const events = [];
  const processor = new LLMResponseProcessor({
    schema: Turn,
    safeEventDispatcher: { dispatch: (...a) => events.push(a) },
  });
  const ok = await processor.processResponse('```json\n{"chosenIndex": "1", "speech": "Go"}\n```', 'hero');
  assert.deepEqual(ok.value, { chosenIndex: 1, speech: 'Go', mood: 'calm' });
  assert.deepEqual(ok.action, { chosenIndex: 1, speech: 'Go' });
  await assert.rejects(processor.processResponse('{"chosenIndex": 0, "speech": "Go"}', 'hero'), LLMProcessingError);
  assert.equal(events.length, 1);
  const prompt = buildCorrectionPrompt({ issues: extract('{}', Turn).issues, invalidOutput: '{}', schema: Turn });
  assert.match(prompt, /"required":\["chosenIndex","speech"\]/);
});

test('PartialJsonParser with a zod schema holds enum strings until they are complete', () => {
  const p = new PartialJsonParser({ schema: Turn });
  const seen = [];
  for (const ch of '{"mood": "angry", "speech": "Hel') seen.push(JSON.stringify(p.push(ch).value));
  assert.ok(!seen.some((s) => /"mood":"an?g?r?"/.test(s)), seen.join('\n'));
  assert.ok(seen.includes('{"mood":"angry","speech":"Hel"}'));
  p.free();
});

test('the command line takes a schema module exporting a zod schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-schema-'));
  try {
    const zodUrl = import.meta.resolve('zod');
    writeFileSync(
      join(dir, 'turn.mjs'),
      `import { z } from ${JSON.stringify(zodUrl)};\nexport default z.object({ chosenIndex: z.number().int().min(1), speech: z.string() });\n`,
    );
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const run = (input) => {
      try {
        return {
          code: 0,
          out: execFileSync('node', [cli, 'extract', '--schema', join(dir, 'turn.mjs')], {
            input,
            encoding: 'utf8',
            stdio: ['pipe', 'pipe', 'pipe'],
          }),
        };
      } catch (e) {
        return { code: e.status, out: e.stdout, err: e.stderr };
      }
    };
    assert.deepEqual(run('Sure: {"chosenIndex": "3", "speech": "ok", "x": 1}'), {
      code: 0,
      out: '{"chosenIndex":3,"speech":"ok"}\n',
    });
    const bad = run('{"chosenIndex": 0, "speech": "ok"}');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /\/chosenIndex/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
