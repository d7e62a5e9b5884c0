// The packed tarball installed into a scratch project, a static server for it, and the corpus runners that
// pages, workers and Workers-style runtimes run: shared by the tarball and bundler tests.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../..', import.meta.url));

/** Packs the repository and installs the tarball into a new scratch project; returns its folder and the packed file list. */
export function installScratch(prefix) {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  const tarball = join(scratch, packed[0].filename);
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: scratch,
    stdio: 'ignore',
  });
  return { scratch, tarball, files: packed[0].files.map((f) => f.path) };
}

/** Serves `dir` on loopback; `requests` lists every path asked for, in order. */
export function serve(dir) {
  const types = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.mjs': 'text/javascript',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
  };
  const requests = [];
  return new Promise((done) => {
    const s = createServer((req, res) => {
      const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      requests.push(pathname);
      const path = join(dir, normalize(pathname).replace(/^\/+/, ''));
      try {
        const body = readFileSync(path);
        res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
        res.end(body);
      } catch {
        res.writeHead(404);
        res.end();
      }
    });
    s.listen(0, '127.0.0.1', () => done({ server: s, base: `http://127.0.0.1:${s.address().port}/`, requests }));
  });
}

/**
 * Runs every repair fixture through `window.api` (in a page, or in a worker where `window` is the worker's
 * global) and returns the names that disagree. Runs in the browser: it is passed by value, not closed over.
 */
export function runRepairCorpus(fixtures) {
  const bad = [];
  // The schema engine's pattern goes through the host's RegExp (a wasm-bindgen snippet in the package).
  const r = window.api.extract('Sure: {"code": "ab-1", "n": "2"}', {
    properties: { code: { pattern: '^[a-z]+-\\d$' }, n: { type: 'integer' } },
  });
  if (
    !r.ok ||
    r.value.n !== 2 ||
    window.api.validate({ code: 'X' }, { properties: { code: { pattern: '^[a-z]' } } }).valid
  )
    bad.push(`schema: ${JSON.stringify(r)}`);
  for (const f of fixtures) {
    try {
      const got = window.api.parseAndRepair(f.input);
      if (f.error || JSON.stringify(got) !== JSON.stringify(JSON.parse(f.expected))) bad.push(f.name);
    } catch (e) {
      if (!f.error || e.kind !== f.error || e.name !== 'JsonRepairError') bad.push(`${f.name}: ${e.message}`);
    }
    // Streamed one UTF-16 unit per chunk, the parser must finish with the same outcome.
    const p = new window.api.PartialJsonParser();
    let streamed;
    try {
      for (const u of f.input.split('')) p.push(u);
      streamed = JSON.stringify(p.finish());
    } catch (e) {
      streamed = `error ${e.kind}`;
    }
    if (streamed !== (f.error ? `error ${f.error}` : JSON.stringify(JSON.parse(f.expected))))
      bad.push(`${f.name} (streamed)`);
  }
  return { bad, count: fixtures.length };
}

/** Runs every cleaning case through `window.api`, one-shot and one UTF-16 unit per chunk. Runs in the browser. */
export function runCleanCases(cases) {
  const bad = [];
  for (const c of cases) {
    const s = new window.api.StreamCleaner(c.options);
    const streamed =
      c.input
        .split('')
        .map((u) => s.push(u))
        .join('') + s.finish();
    s.free();
    if (window.api.clean(c.input, c.options) !== c.expected || streamed !== c.expected) bad.push(c.name);
  }
  return { bad, count: cases.length };
}

export const cleanCases = () =>
  JSON.parse(readFileSync(new URL('../fixtures/clean/cases.json', import.meta.url), 'utf8')).cases;

/**
 * Opens `url`, waits for `document.title === 'ready'`, runs both corpora in the page and checks them; returns
 * the page. With `missingWasm`, the one console error allowed is the failed request for the `.wasm` that the
 * build did not copy (the package then loads its inline copy).
 */
export async function checkPage(browser, url, repairFixtures, { missingWasm = false } = {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let missing = 0;
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (missingWasm && /status of (404|500)/.test(m.text()) && /\.wasm/.test(m.location().url ?? '')) missing++;
    else errors.push(`${m.text()} (${m.location().url})`);
  });
  await page.goto(url);
  await page.waitForFunction(() => document.title !== '', null, { timeout: 30_000 });
  assert.equal(await page.title(), 'ready', errors.join('\n'));
  const { bad, count } = await page.evaluate(runRepairCorpus, repairFixtures);
  assert.ok(count >= 80);
  assert.deepEqual(bad, []);
  const cleaning = await page.evaluate(runCleanCases, cleanCases());
  assert.ok(cleaning.count >= 70);
  assert.deepEqual(cleaning.bad, []);
  assert.deepEqual(errors, []);
  assert.ok(missing <= 1);
  return page;
}
