// The demo page in headless Chromium: it loads offline, repairs a pasted response, lists and highlights repairs.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { startServer } from '../../scripts/serve.mjs';
import { launch } from './browser.mjs';

let server, browser, base;
before(async () => {
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the demo repairs a pasted response and highlights each repair', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await page.textContent('#output'), /"chosenIndex": 3/);
  assert.match(await page.textContent('#reasoning'), /^\nThe goblin is wounded/);
  assert.match(await page.textContent('#cleaned'), /^Here is my action:\n```json/);

  await page.fill('#input', "Sure!\n{'name': 'Ada', 'active': True, tags: ['x',],");
  const out = JSON.parse(await page.textContent('#output'));
  assert.deepEqual(out, { name: 'Ada', active: true, tags: ['x'] });
  assert.equal(await page.textContent('#status'), 'repaired');
  const kinds = await page.$$eval('#repairs code', (els) => els.map((e) => e.textContent));
  for (const k of ['single_quotes', 'python_literal', 'unquoted_key', 'trailing_comma', 'unclosed_container']) assert.ok(kinds.includes(k), k);
  const marks = await page.$$eval('#highlighted mark', (els) => els.map((e) => e.textContent));
  assert.ok(marks.includes('T'), `a mark on True: ${marks}`);

  await page.fill('#input', '<THINKING>hmm</THINKING>\n\nAssistant:  Hello there!  ');
  assert.equal(await page.textContent('#cleaned'), 'Hello there!');
  assert.equal(await page.textContent('#reasoning'), 'hmm');

  await page.fill('#input', 'I cannot help with that.');
  assert.equal(await page.textContent('#status'), 'no_json');
  assert.match(await page.textContent('#output'), /JsonRepairError/);

  mkdirSync('target/screenshots', { recursive: true });
  await page.selectOption('#samples', '2');
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: 'target/screenshots/demo.png', fullPage: true });
  assert.deepEqual(errors, []);
});
