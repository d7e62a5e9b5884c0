// The schema engine through the npm API, where `pattern` is the host's RegExp: the official
// JSON-Schema-Test-Suite (fetched by scripts/fetch-schema-suite.sh), compile errors, issues, Standard Schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  compileSchema,
  extract,
  validate,
  CompiledSchema,
  SchemaCompileError,
  standardIssues,
  ISSUE_KEYWORDS,
} from 'llm-response-sanitizer';

const suite = new URL('../../target/schema-suite/', import.meta.url).pathname;

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** The suite's remotes under http://localhost:1234/ and every meta-schema under its own $id. */
function remotes() {
  const out = {};
  for (const p of files(join(suite, 'remotes'))) {
    if (!p.endsWith('.json') || /draft-next|draft3/.test(p)) continue;
    out[`http://localhost:1234/${relative(join(suite, 'remotes'), p)}`] = JSON.parse(readFileSync(p, 'utf8'));
  }
  for (const p of files(join(suite, 'metaschemas'))) {
    const s = JSON.parse(readFileSync(p, 'utf8'));
    const id = s.$id ?? s.id;
    if (typeof id === 'string') out[id.replace(/#$/, '')] = s;
  }
  return out;
}

for (const [dir, draft] of [
  ['draft2020-12', '2020-12'],
  ['draft7', '7'],
]) {
  test(`JSON-Schema-Test-Suite ${dir}: every required test passes through the npm API`, () => {
    assert.ok(existsSync(join(suite, 'ready')), 'run scripts/fetch-schema-suite.sh first');
    const options = { defaultDraft: draft, remotes: remotes() };
    let passed = 0;
    const failures = [];
    const keywords = new Set();
    for (const file of readdirSync(join(suite, 'tests', dir))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      for (const group of JSON.parse(readFileSync(join(suite, 'tests', dir, file), 'utf8'))) {
        let schema;
        try {
          schema = compileSchema(group.schema, options);
        } catch (e) {
          for (const t of group.tests) failures.push(`${file}: ${group.description}: ${t.description}: ${e.message}`);
          continue;
        }
        for (const t of group.tests) {
          const r = schema.validate(t.data);
          assert.equal(r.valid, r.issues.length === 0);
          // Every keyword an issue carries is one the published IssueKeyword type names.
          for (const i of r.issues) keywords.add(i.keyword);
          if (r.valid === t.valid) passed++;
          else failures.push(`${file}: ${group.description}: ${t.description}: expected valid=${t.valid}`);
        }
        schema.free();
      }
    }
    console.log(`${dir}: ${passed} of ${passed + failures.length} required tests pass (wasm, host RegExp)`);
    assert.deepEqual(failures, []);
    assert.ok(passed > 900);
    assert.deepEqual(
      [...keywords].filter((k) => !ISSUE_KEYWORDS.includes(k)),
      [],
      'issue keywords missing from ISSUE_KEYWORDS',
    );
    assert.ok(keywords.size > 25, [...keywords].join(' '));
  });
}

test('compile errors are typed, with a code and the place in the schema', () => {
  const cases = [
    [{ $ref: '#/$defs/missing' }, 'unresolved_ref', '#/$ref'],
    [{ properties: { a: { pattern: '(' } } }, 'invalid_pattern', '#/properties/a/pattern'],
    [{ $schema: 'https://example.com/my-draft' }, 'unsupported', '#'],
    [{ minimum: '3' }, 'invalid_schema', '#/minimum'],
    [{ type: 'text' }, 'invalid_schema', '#/type'],
  ];
  for (const [schema, code, schemaPath] of cases) {
    assert.throws(
      () => compileSchema(schema),
      (e) =>
        e instanceof SchemaCompileError &&
        e.name === 'SchemaCompileError' &&
        e.code === code &&
        e.schemaPath === schemaPath,
      JSON.stringify(schema),
    );
  }
  assert.throws(() => compileSchema('{"type":"object"}'), TypeError);
  assert.throws(() => compileSchema({}, { defaultDraft: '3' }), RangeError);
});

test('issues name the path, keyword, schema path and params; required and additionalProperties point at the property', () => {
  const schema = {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: { id: { type: 'integer' }, tags: { type: 'array', items: { enum: ['a', 'b'] } }, a: {} },
  };
  const r = validate({ tags: ['a', 'c'], extra: 1 }, schema);
  assert.equal(r.valid, false);
  assert.deepEqual(
    r.issues.map((i) => [i.path, i.keyword, i.schemaPath]),
    [
      ['/id', 'required', '#/required'],
      ['/tags/1', 'enum', '#/properties/tags/items/enum'],
      ['/extra', 'additionalProperties', '#/additionalProperties'],
    ],
  );
  assert.deepEqual(r.issues[0].params, { missingProperty: 'id' });
  assert.deepEqual(r.issues[1].params, { allowedValues: ['a', 'b'] });
  assert.match(r.issues[1].message, /must be one of "a", "b", got "c"/);
  assert.deepEqual(standardIssues(r.issues)[1], { message: r.issues[1].message, path: ['tags', 1] });
  // Keys that look like pointers or prototypes are plain data.
  const odd = validate(JSON.parse('{"__proto__": 1, "a/b": 2}'), { additionalProperties: false });
  assert.deepEqual(
    odd.issues.map((i) => i.path),
    ['/__proto__', '/a~1b'],
  );
});

test('a compiled schema is reusable, implements Standard Schema, and frees', () => {
  const s = compileSchema({ type: 'string', minLength: 2 });
  assert.ok(s instanceof CompiledSchema);
  assert.deepEqual(s['~standard'].validate('ok'), { value: 'ok' });
  assert.deepEqual(s['~standard'].validate('x').issues, [
    { message: 'must have at least 2 characters, got 1', path: [] },
  ]);
  assert.equal(s['~standard'].vendor, 'llm-response-sanitizer');
  for (let i = 0; i < 1000; i++) assert.equal(s.validate(i % 2 ? 'ab' : 'a').valid, i % 2 === 1);
  s.free();
  s.free();
  assert.throws(() => s.validate('ab'), /freed/);
  assert.equal(validate('ab', compileSchema({ const: 'ab' })).valid, true);
});

test('validate with a plain schema object follows its text: the same object changed between calls, equal texts in other objects', () => {
  const schema = { type: 'integer', minimum: 2 };
  assert.equal(validate(1, schema).valid, false);
  assert.equal(validate(3, schema).valid, true);
  schema.minimum = 5;
  assert.equal(validate(3, schema).valid, false, 'a schema changed after a call is read again');
  assert.deepEqual(validate(3, { type: 'integer', minimum: 5 }).issues[0].params.limit, 5);
  assert.equal(validate(3, { type: 'integer', minimum: 2 }).valid, true);
  // Other options compile it again: a draft-4 exclusiveMinimum is a boolean.
  const d4 = { type: 'integer', minimum: 3, exclusiveMinimum: true };
  assert.equal(validate(3, d4, { defaultDraft: '4' }).valid, false);
  assert.throws(() => validate(3, d4), SchemaCompileError);
});

test('ECMAScript regular expressions: Unicode classes, lookahead and no implicit anchoring', () => {
  const s = compileSchema({
    patternProperties: { '^\\p{L}+$': { type: 'integer' } },
    properties: { 'code-1': { pattern: '(?=.*\\d)[A-Z]{2}' } },
  });
  assert.equal(s.validate({ café: 1 }).valid, true);
  assert.equal(s.validate({ café: 'x' }).valid, false);
  assert.equal(s.validate({ 'code-1': 'xxAB1' }).valid, true);
  assert.equal(s.validate({ 'code-1': 'ab1' }).valid, false);
});

test('format is an annotation by default and an assertion on request', () => {
  assert.equal(validate('not a date', { format: 'date' }).valid, true);
  const s = compileSchema({ format: 'date-time' }, { assertFormat: true });
  assert.equal(s.validate('2026-11-21T10:00:00Z').valid, true);
  assert.equal(s.validate('2026-02-30T10:00:00Z').valid, false);
  assert.equal(s.validate('tomorrow').issues[0].keyword, 'format');
});

test('deep values and self-referencing schemas end in an issue, never a stack overflow', () => {
  const deep = JSON.parse('['.repeat(1000) + ']'.repeat(1000));
  const r = validate(deep, { $defs: { n: { type: 'array', items: { $ref: '#/$defs/n' } } }, $ref: '#/$defs/n' });
  assert.equal(r.valid, false);
  assert.equal(r.issues[0].keyword, 'depth');
  const loop = validate(1, { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' });
  assert.equal(loop.issues[0].keyword, 'depth');
});

test('values JSON cannot hold are a TypeError', () => {
  assert.throws(() => validate(undefined, {}), TypeError);
  assert.throws(() => validate(10n, {}), TypeError);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => validate(cyclic, {}), TypeError);
});

test('a value deeper than evaluation follows is a depth issue, a keyword of the published list', () => {
  let deep = 0;
  for (let i = 0; i < 400; i++) deep = [deep];
  const d = validate(deep, { $defs: { n: { items: { $ref: '#/$defs/n' } } }, $ref: '#/$defs/n' });
  assert.equal(d.valid, false);
  assert.ok(
    d.issues.some((i) => i.keyword === 'depth'),
    JSON.stringify(d.issues.map((i) => i.keyword)),
  );
  for (const i of d.issues) assert.ok(ISSUE_KEYWORDS.includes(i.keyword), i.keyword);
});

test('a pattern the host cannot test on a value (its stack overflows) is a pattern issue, and the module keeps working', () => {
  // The backreference keeps the pattern on the host's RegExp (js/pattern.js would answer without it).
  const schema = compileSchema({ type: 'string', pattern: '^([a-z]|[0-9])*\\1$' });
  const r = schema.validate('a'.repeat(5_000_000));
  assert.equal(r.valid, false);
  assert.deepEqual(
    r.issues.map((i) => i.keyword),
    ['pattern'],
  );
  // The same schema, and every other call, still work; dropping the schema is harmless.
  assert.equal(schema.validate('abc1233').valid, true);
  assert.deepEqual(validate('x', { type: 'string', pattern: '^x$' }).valid, true);
  schema.free();
});

test('a pattern that backtracks exponentially in the host answers a long value in linear time', () => {
  const schema = compileSchema({ type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } } });
  assert.equal(schema.validate({ id: 'a'.repeat(100) }).valid, true);
  const r = schema.validate({ id: `${'a'.repeat(100_000)}!` });
  assert.deepEqual(
    r.issues.map((i) => [i.keyword, i.path]),
    [['pattern', '/id']],
  );
  assert.equal(extract(`{"id": "${'a'.repeat(50_000)}"}`, schema).ok, true);
});
