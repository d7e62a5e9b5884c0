// The packed tarball through the bundlers and runtimes users build with, each with its plainest configuration:
// esbuild, webpack 5, Rollup, Vite's dev server (no optimizeDeps exclude), the one-file build, and a
// Workers-style runtime (workerd through Miniflare). Every browser build runs the whole corpus in Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import webpack from 'webpack';
import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { Miniflare } from 'miniflare';
import { launch } from './browser.mjs';
import { repairFixtures } from '../ts/fixtures.mjs';
import { repo, installScratch, serve, checkPage, runRepairCorpus } from './scratch.mjs';

let scratch, server, base, requests, browser;
const fixtures = repairFixtures();

before(async () => {
  ({ scratch } = installScratch('lrs-bundlers-'));
  ({ server, base, requests } = await serve(scratch));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A folder in the scratch project with an index.html loading `script` (a module unless told otherwise). */
function app(name, main, { module = true, script = 'dist/main.js' } = {}) {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src/main.js'), main);
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><link rel="icon" href="data:,"><script ${module ? 'type="module" ' : ''}src="./${script}"></script>`,
  );
  return dir;
}

/** An app's entry: load the package its way, then expose it to the corpus runners. */
const entry = (imports, init = 'api.init()') => `${imports}
${init}.then(() => { window.api = api; document.title = 'ready'; }, (e) => { document.title = 'failed: ' + e.message; });
`;

/** A loopback port nothing listens on now. */
function freePort() {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

/** The requests the page made for files of `name`'s build. */
const made = (name) => requests.filter((p) => p.startsWith(`/${name}/`));

test('esbuild, no configuration: the default entry bundles and runs (the .wasm falls back to its inline copy)', async () => {
  const dir = app('esbuild-plain', entry(`import * as api from 'llm-response-sanitizer';`));
  await esbuild.build({
    entryPoints: [join(dir, 'src/main.js')],
    bundle: true,
    format: 'esm',
    outdir: join(dir, 'dist'),
    logLevel: 'silent',
  });
  await checkPage(browser, `${base}esbuild-plain/index.html`, fixtures, { missingWasm: true });
  assert.deepEqual(made('esbuild-plain'), [
    '/esbuild-plain/index.html',
    '/esbuild-plain/dist/main.js',
    '/esbuild-plain/pkg/llm_response_sanitizer_bg.wasm',
  ]);
});

test('esbuild with the .wasm as a file (`llm-response-sanitizer/wasm`, file loader, code splitting): the inline copy is never fetched', async () => {
  const dir = app(
    'esbuild-file',
    entry(
      `import * as api from 'llm-response-sanitizer';\nimport wasmUrl from 'llm-response-sanitizer/wasm';`,
      'api.init(new URL(wasmUrl, import.meta.url))',
    ),
  );
  await esbuild.build({
    entryPoints: [join(dir, 'src/main.js')],
    bundle: true,
    format: 'esm',
    splitting: true,
    outdir: join(dir, 'dist'),
    loader: { '.wasm': 'file' },
    logLevel: 'silent',
  });
  const before = requests.length;
  await checkPage(browser, `${base}esbuild-file/index.html`, fixtures);
  const fetched = requests.slice(before);
  assert.ok(
    fetched.some((p) => p.endsWith('.wasm')),
    fetched.join(' '),
  );
  // The inline copy is a chunk of its own, fetched by nobody.
  const copy = readdirSync(join(dir, 'dist')).filter((f) => f.startsWith('llm_response_sanitizer_bg.wasm.base64'));
  assert.equal(copy.length, 1, readdirSync(join(dir, 'dist')).join(' '));
  assert.ok(!fetched.some((p) => p.includes('base64')), fetched.join(' '));
  assert.ok(readFileSync(join(dir, 'dist/main.js'), 'utf8').length < 200_000);
});

test('webpack 5, production, no configuration beyond the entry: the .wasm is emitted as an asset and fetched', async () => {
  const dir = app('webpack', entry(`import * as api from 'llm-response-sanitizer';`), { module: false });
  const stats = await new Promise((done, fail) =>
    webpack(
      {
        mode: 'production',
        context: dir,
        entry: './src/main.js',
        output: { path: join(dir, 'dist'), filename: 'main.js' },
        performance: { hints: false },
      },
      (e, s) => (e ? fail(e) : done(s)),
    ),
  );
  assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
  assert.ok(readdirSync(join(dir, 'dist')).some((f) => f.endsWith('.wasm')));
  await checkPage(browser, `${base}webpack/index.html`, fixtures);
  const fetched = made('webpack');
  assert.ok(
    fetched.some((p) => p.endsWith('.wasm')),
    fetched.join(' '),
  );
  assert.deepEqual(
    fetched.filter((p) => p.endsWith('.js')),
    ['/webpack/dist/main.js'],
    'the inline copy is not fetched',
  );
});

test('Rollup with node-resolve: the inline entry (one file) and the default entry (the inline copy as a lazy chunk)', async () => {
  for (const [name, specifier] of [
    ['rollup-inline', 'llm-response-sanitizer/inline'],
    ['rollup-default', 'llm-response-sanitizer'],
  ]) {
    const dir = app(name, entry(`import * as api from '${specifier}';`));
    const bundle = await rollup({
      input: join(dir, 'src/main.js'),
      plugins: [nodeResolve({ browser: true, rootDir: dir })],
      onwarn: () => {},
    });
    await bundle.write({ dir: join(dir, 'dist'), format: 'es' });
    await bundle.close();
    await checkPage(browser, `${base}${name}/index.html`, fixtures, { missingWasm: name === 'rollup-default' });
  }
  assert.deepEqual(readdirSync(join(scratch, 'rollup-inline/dist')), ['main.js']);
});

test('the one-file build: a page imports dist/standalone.js and makes no other request', async () => {
  writeFileSync(
    join(scratch, 'standalone.html'),
    `<!doctype html><link rel="icon" href="data:,"><script type="module">${entry(`import * as api from './node_modules/llm-response-sanitizer/dist/standalone.js';`)}</script>`,
  );
  const before = requests.length;
  await checkPage(browser, `${base}standalone.html`, fixtures);
  assert.deepEqual(requests.slice(before), [
    '/standalone.html',
    '/node_modules/llm-response-sanitizer/dist/standalone.js',
  ]);
});

test("Vite's dev server with no optimizeDeps exclude: the pre-bundled package still loads its WebAssembly", async () => {
  const dir = join(scratch, 'vite-dev');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><link rel="icon" href="data:,"><script type="module" src="./main.js"></script>`,
  );
  writeFileSync(join(dir, 'main.js'), entry(`import * as api from 'llm-response-sanitizer';`));
  writeFileSync(join(dir, 'vite.config.mjs'), `export default { logLevel: 'error', clearScreen: false };`);
  const port = await freePort();
  const vite = spawn(
    join(repo, 'node_modules/.bin/vite'),
    ['--config', 'vite.config.mjs', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: dir, stdio: 'ignore' },
  );
  try {
    const url = `http://127.0.0.1:${port}/`;
    for (let tries = 0; ; tries++) {
      try {
        if ((await fetch(url)).ok) break;
      } catch {
        // not listening yet
      }
      if (tries > 300) throw new Error('the Vite dev server did not start in 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    await checkPage(browser, url, fixtures, { missingWasm: true });
  } finally {
    vite.kill();
  }
});

test('a Workers-style runtime (workerd through Miniflare): the workerd condition imports the .wasm as a module', async () => {
  const dir = join(scratch, 'worker');
  mkdirSync(dir, { recursive: true });
  // The corpus runner reads `window.api`; in the worker that is the module namespace.
  writeFileSync(
    join(dir, 'worker.js'),
    `import * as api from 'llm-response-sanitizer';
const window = { api };
const runRepairCorpus = ${runRepairCorpus.toString()};
export default {
  async fetch(request) {
    const fixtures = await request.json();
    const x = api.extract('<think>{"n": 0}</think>{"n": "7"}', { properties: { n: { type: 'integer', minimum: 1 } } });
    return Response.json({ corpus: runRepairCorpus(fixtures), x: x.value, clean: api.clean('<think>a</think> b ') });
  },
};
`,
  );
  // What wrangler does: bundle for the workerd condition and leave the .wasm import to the runtime.
  const out = await esbuild.build({
    entryPoints: [join(dir, 'worker.js')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'wasm-module',
        setup: (b) => b.onResolve({ filter: /\.wasm$/ }, () => ({ path: './sanitizer.wasm', external: true })),
      },
    ],
  });
  const wasm = readFileSync(join(scratch, 'node_modules/llm-response-sanitizer/pkg/llm_response_sanitizer_bg.wasm'));
  const mf = new Miniflare({
    compatibilityDate: '2025-01-01',
    modulesRoot: dir,
    modules: [
      { type: 'ESModule', path: join(dir, 'worker.mjs'), contents: out.outputFiles[0].text },
      { type: 'CompiledWasm', path: join(dir, 'sanitizer.wasm'), contents: wasm },
    ],
  });
  try {
    const res = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify(fixtures) });
    const body = await res.json();
    assert.deepEqual(body.corpus.bad, []);
    assert.ok(body.corpus.count >= 80);
    assert.deepEqual(body.x, { n: 7 });
    assert.equal(body.clean, 'b');
  } finally {
    await mf.dispose();
  }
});
