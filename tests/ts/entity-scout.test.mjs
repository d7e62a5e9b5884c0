// The entity-scout example end to end: the demo (what `npm run example:entity-scout` runs after the build)
// against its local OpenAI-compatible server, and the EntityScout class driven directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { EntityScout, main } from '../../examples/entity-scout/entity-scout.mjs';
import { startOpenAIServer } from '../../examples/entity-scout/openai-server.mjs';

const dir = fileURLToPath(new URL('../../examples/entity-scout/', import.meta.url));
const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

test('the demo: reports for every sample file, with checksums, statuses, attempts and the POIs the file holds', async () => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [`${dir}demo.mjs`]);
  const reports = stdout.trim().split('\n').map((l) => JSON.parse(l));
  const byName = Object.fromEntries(reports.map((r) => [r.filePath.slice(r.filePath.lastIndexOf('/') + 1), r]));
  assert.deepEqual(Object.keys(byName), ['combat.ts', 'dialogue.py', 'haunted.js', 'inventory.js', 'notes.md', 'vendor.bundle.js']);
  const summary = Object.fromEntries(Object.entries(byName).map(([n, r]) => [n, [r.status, r.analysisAttempts]]));
  assert.deepEqual(summary, {
    'combat.ts': ['processed', 2], // a range ending before it starts, caught by the check and corrected
    'dialogue.py': ['processed', 2], // fields missing and misnamed, caught by the schema and corrected
    'haunted.js': ['error', 3], // never any JSON: 1 answer + 2 corrections
    'inventory.js': ['processed', 1], // think block, fence, single quotes, trailing commas, strings for numbers
    'notes.md': ['skipped', 0],
    'vendor.bundle.js': ['skipped', 0],
  });
  for (const r of reports) assert.equal(r.fileChecksum, sha256(r.filePath), r.filePath);
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
  assert.ok(byName['inventory.js'].pois.every((p) => typeof p.confidence === 'number' && typeof p.endLine === 'number'), 'coerced from strings');
  assert.deepEqual(byName['combat.ts'].pois[0], { name: 'Combatant', type: 'TypeDefinition', startLine: 1, endLine: 5, confidence: 0.95 });
  assert.match(byName['haunted.js'].error, /no valid analysis after 3 answers/);
  assert.match(byName['vendor.bundle.js'].error, /over maxFileSize \(4096\)/);
  assert.match(stderr, /files: 3 processed, 2 skipped, 1 error; 8 answers; 18 POIs/);
  // 8 answers plus the 429 and the 503 that were retried.
  assert.match(stderr, /10 requests to the model/);
});

test('EntityScout with a query function: retries per config, honest attempts, unreadable files, exhausted transport retries', async () => {
  const file = `${dir}sample/inventory.js`;
  let calls = 0;
  const wrong = new EntityScout({ maxRetries: 1, query: async () => (calls++, '{"pois": [{"name": "x"}]}') });
  const r = await wrong.run(file);
  assert.equal(r.status, 'error');
  assert.equal(r.analysisAttempts, 2);
  assert.equal(calls, 2);
  assert.match(r.error, /missing required property|required/);

  const missing = await wrong.run(`${dir}sample/no-such-file.js`);
  assert.equal(missing.status, 'error');
  assert.match(missing.error, /cannot read the file: ENOENT/);
  assert.equal(missing.fileChecksum, null);

  const server = await startOpenAIServer(() => ({ status: 503, error: 'down' }));
  try {
    const down = new EntityScout({ baseURL: server.url, backoff: { initialDelayMs: 1, maxRetries: 2, jitter: false } });
    const d = await down.run(file);
    assert.equal(d.status, 'error');
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
});
