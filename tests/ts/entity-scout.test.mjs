// The entity-scout example end to end: the demo (what `npm run example:entity-scout` runs after the build)
// against its local OpenAI-compatible server, and the EntityScout class driven directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { EntityScout, main, outcomeOf, REPORT_STATUSES } from '../../examples/entity-scout/entity-scout.mjs';
import { startOpenAIServer } from '../../examples/entity-scout/openai-server.mjs';

const dir = fileURLToPath(new URL('../../examples/entity-scout/', import.meta.url));
const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

test('the demo: reports for every sample file, with checksums, statuses, attempts and the POIs the file holds', async () => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [`${dir}demo.mjs`]);
  const reports = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const byName = Object.fromEntries(reports.map((r) => [r.filePath.slice(r.filePath.lastIndexOf('/') + 1), r]));
  // notes.md is not walked: .md is not in fileExtensions.
  assert.deepEqual(Object.keys(byName), ['combat.ts', 'dialogue.py', 'haunted.js', 'inventory.js', 'vendor.bundle.js']);
  const summary = Object.fromEntries(Object.entries(byName).map(([n, r]) => [n, [r.status, r.analysisAttempts]]));
  assert.deepEqual(summary, {
    'combat.ts': ['COMPLETED_SUCCESS', 2], // a range ending before it starts, caught by the check and corrected
    'dialogue.py': ['COMPLETED_SUCCESS', 2], // fields missing and misnamed, caught by the schema and corrected
    'haunted.js': ['FAILED_VALIDATION_ERROR', 3], // never any JSON: 1 answer + 2 corrections
    'inventory.js': ['COMPLETED_SUCCESS', 1], // think block, fence, single quotes, trailing commas, strings for numbers
    'vendor.bundle.js': ['SKIPPED_FILE_TOO_LARGE', 0],
  });
  // The pipeline's report fields, in its order; error is null on success.
  for (const r of reports)
    assert.deepEqual(Object.keys(r), [
      'filePath',
      'fileChecksum',
      'language',
      'pois',
      'status',
      'error',
      'analysisAttempts',
    ]);
  for (const r of reports.filter((x) => x.status !== 'SKIPPED_FILE_TOO_LARGE'))
    assert.equal(r.fileChecksum, sha256(r.filePath), r.filePath);
  // A file too large is not read at all.
  assert.equal(byName['vendor.bundle.js'].fileChecksum, null);
  assert.equal(byName['inventory.js'].error, null);
  assert.equal(byName['inventory.js'].language, 'JavaScript');
  assert.equal(byName['dialogue.py'].language, 'Python');
  assert.deepEqual(
    byName['inventory.js'].pois.map((p) => [p.name, p.type, p.startLine, p.endLine]),
    [
      ['./math.js', 'ImportStatement', 1, 1],
      ['MAX_SLOTS', 'VariableDeclaration', 3, 3],
      ['Inventory', 'ClassDefinition', 5, 20],
      ['constructor', 'MethodDefinition', 6, 9],
      ['add', 'MethodDefinition', 11, 15],
      ['weight', 'MethodDefinition', 17, 19],
      ['encumbrance', 'FunctionDefinition', 22, 24],
    ],
  );
  assert.ok(
    byName['inventory.js'].pois.every((p) => typeof p.confidence === 'number' && typeof p.endLine === 'number'),
    'coerced from strings',
  );
  assert.deepEqual(byName['combat.ts'].pois[0], {
    name: 'Combatant',
    type: 'TypeDefinition',
    startLine: 1,
    endLine: 5,
    confidence: 0.95,
  });
  assert.match(byName['haunted.js'].error, /^Failed to get valid JSON response after 3 attempts\. Last error: /);
  assert.equal(byName['vendor.bundle.js'].error, 'File size 5572 exceeds the maximum allowed size of 4096 bytes.');
  assert.match(stderr, /files: 3 processed, 1 skipped, 1 error; 8 answers; 18 POIs/);
  // 8 answers plus the 429 and the 503 that were retried.
  assert.match(stderr, /10 requests to the model/);
});

test('EntityScout with a query function: retries per config, honest attempts, unreadable files, exhausted transport retries', async () => {
  const file = `${dir}sample/inventory.js`;
  let calls = 0;
  const wrong = new EntityScout({ maxRetries: 1, query: async () => (calls++, '{"pois": [{"name": "x"}]}') });
  const r = await wrong.run(file);
  assert.equal(r.status, 'FAILED_VALIDATION_ERROR');
  assert.equal(outcomeOf(r.status), 'error');
  assert.equal(r.analysisAttempts, 2);
  assert.equal(calls, 2);
  assert.match(r.error, /missing required property|required/);

  const missing = await wrong.run(`${dir}sample/no-such-file.js`);
  assert.equal(missing.status, 'FAILED_FILE_NOT_FOUND');
  assert.match(missing.error, /cannot read the file: ENOENT/);
  assert.equal(missing.fileChecksum, null);
  const directory = await wrong.run(`${dir}sample`);
  assert.equal(directory.status, 'FAILED_FILE_READ_ERROR');
  // An explicit file is analysed whatever its extension; an empty one is not sent to the model.
  assert.equal((await wrong.run(`${dir}sample/notes.md`)).status, 'FAILED_VALIDATION_ERROR');
  const scratch = mkdtempSync(join(tmpdir(), 'scout-'));
  writeFileSync(join(scratch, 'empty.js'), ' \n\t\n');
  const before = calls;
  const empty = await wrong.run(join(scratch, 'empty.js'));
  assert.deepEqual(
    [empty.status, empty.pois, empty.error, empty.analysisAttempts, calls],
    ['COMPLETED_SUCCESS', [], null, 0, before],
  );

  const server = await startOpenAIServer(() => ({ status: 503, error: 'down' }));
  try {
    const down = new EntityScout({ baseURL: server.url, backoff: { initialDelayMs: 1, maxRetries: 2, jitter: false } });
    const d = await down.run(file);
    assert.equal(d.status, 'FAILED_LLM_API_ERROR');
    assert.equal(d.analysisAttempts, 0, 'no answer was received');
    assert.match(d.error, /could not be reached: openai: HTTP 503/);
    assert.equal(server.requests.length, 3);
  } finally {
    await server.close();
  }

  const c = new AbortController();
  c.abort();
  const aborted = new EntityScout({ signal: c.signal, query: async () => '{}' });
  await assert.rejects(aborted.run(file), { name: 'AbortError' });
  assert.throws(() => new EntityScout({ maxFileSize: -1, query: async () => '' }), RangeError);
  assert.throws(() => new EntityScout({ fileExtensions: '.js', query: async () => '' }), TypeError);
});

test("a schema of the caller's: the pipeline's own POI shape as a zod schema, and custom POI types", async () => {
  const file = `${dir}sample/inventory.js`;
  // The Cognitive Triangulation Pipeline's tests use {name, type, line} POIs with their own type names.
  const Poi = z.object({
    name: z.string(),
    type: z.enum(['Class', 'Function', 'Variable']),
    line: z.number().int().min(1),
  });
  const prompts = [];
  const answers = [
    'Sure! ```json\n{"pois": [{"name": "Inventory", "type": "class", "line": "5"}, {"name": "encumbrance", "type": "Method", "line": 22},]}\n```',
    '{"pois": [{"name": "Inventory", "type": "Class", "line": 5}, {"name": "encumbrance", "type": "Function", "line": 22}]}',
  ];
  const scout = new EntityScout({
    schema: z.object({ pois: z.array(Poi) }),
    query: async (prompt) => (prompts.push(prompt), answers[prompts.length - 1]),
  });
  const r = await scout.run(file);
  assert.equal(r.status, 'COMPLETED_SUCCESS');
  assert.equal(r.analysisAttempts, 2); // "Method" is not a type: corrected; "class" and "5" were coerced
  assert.deepEqual(r.pois, [
    { name: 'Inventory', type: 'Class', line: 5 },
    { name: 'encumbrance', type: 'Function', line: 22 },
  ]);
  // The prompt carries the schema's JSON Schema; the correction names the bad value.
  assert.match(prompts[0], /"enum":\["Class","Function","Variable"\]/);
  assert.match(prompts[1], /\/pois\/1\/type/);

  // A bare array of POIs, as a JSON Schema given as a function of the file's length.
  const bare = new EntityScout({
    schema: (lines) => ({
      type: 'array',
      items: { type: 'object', properties: { line: { type: 'integer', maximum: lines } }, required: ['line'] },
    }),
    query: async () => '[{"line": 3}, {"line": 99}]',
    maxRetries: 0,
  });
  const b = await bare.run(file);
  assert.equal(b.status, 'FAILED_VALIDATION_ERROR');
  assert.match(b.error, /\/1\/line/);

  // Custom POI types for the default schema.
  const typed = new EntityScout({
    poiTypes: ['Component', 'Hook'],
    query: async (prompt) => (
      assert.match(prompt, /one of Component, Hook/),
      '{"pois": [{"name": "useCart", "type": "Hook", "startLine": 1, "endLine": 2, "confidence": 1}]}'
    ),
  });
  assert.equal((await typed.run(file)).pois[0].type, 'Hook');
  assert.throws(() => new EntityScout({ poiTypes: [], query: async () => '' }), TypeError);
  assert.deepEqual(Object.values(REPORT_STATUSES).sort(), ['error', 'error', 'error', 'error', 'processed', 'skipped']);
});

test('the command line: --help, bad usage', async () => {
  const out = [];
  const err = [];
  const io = { stdout: { write: (s) => out.push(s) }, stderr: { write: (s) => err.push(s) }, env: {} };
  assert.equal(await main(['--help'], io), 0);
  assert.match(out.join(''), /^Usage: entity-scout \[options\] PATH/);
  assert.equal(await main([], io), 2);
  assert.match(err.join(''), /no PATH given/);
  assert.equal(await main(['--max-size', 'big', dir], io), 2);
  assert.match(err.join(''), /--max-size must be a non-negative integer/);
  assert.equal(await main(['--frobnicate', dir], io), 2);
  assert.equal(await main(['--schema', `${dir}no-such-schema.json`, dir], io), 2);
  assert.match(err.join(''), /no-such-schema\.json/);
  assert.match(out.join(''), /--schema FILE/);
});
