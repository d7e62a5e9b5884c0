// The demo page in headless Chromium, served by scripts/serve.mjs (what `npm start` runs) with no network:
// paste a response, check the repaired JSON and the marks, the cleaned text, the schema editor with issues,
// coercions and the correction prompt, and the stream replay; screenshots of every view.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { startServer } from '../../scripts/serve.mjs';
import { launch } from './browser.mjs';

let server, browser, base, page;
const errors = [];
const shots = 'target/screenshots';

before(async () => {
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // Offline: any request that is not to the local server fails the test.
  await page.route('**/*', (route) =>
    route.request().url().startsWith(base)
      ? route.continue()
      : (errors.push(`external request ${route.request().url()}`), route.abort()),
  );
  await page.goto(base);
  await page.waitForSelector('body[data-ready="true"]');
  mkdirSync(shots, { recursive: true });
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the first sample is repaired, its repairs listed and marked; clicking a repair marks it', async () => {
  const first = JSON.parse(await page.textContent('#output'));
  assert.equal(first.chosenIndex, '3');
  assert.deepEqual(first.notes, [{ text: 'Goblin flees at low HP', subject: 'goblin' }]);
  assert.equal(await page.textContent('#status'), 'repaired');
  const kinds = await page.$$eval('#repairs code', (els) => els.map((e) => e.textContent));
  for (const k of ['reasoning_removed', 'code_fence', 'trailing_comma'])
    assert.ok(kinds.includes(k), `${k} in ${kinds}`);
  await page.click('#repairs li:last-child');
  assert.equal(await page.$$eval('#highlighted mark.active', (m) => m.length), 1);
  assert.equal(await page.$$eval('#repairs li.active', (m) => m.length), 1);
  await page.screenshot({ path: `${shots}/demo-json.png` });
});

test('a pasted response: value, status, repair kinds and a mark on each repaired place', async () => {
  const pasted = "Sure!\n{'name': 'Ada', 'active': True, tags: ['x',], mood: “calm”, # note\n 'n': 1,";
  await page.fill('#input', pasted);
  assert.deepEqual(JSON.parse(await page.textContent('#output')), {
    name: 'Ada',
    active: true,
    tags: ['x'],
    mood: 'calm',
    n: 1,
  });
  assert.equal(await page.textContent('#status'), 'repaired');
  const kinds = await page.$$eval('#repairs code', (els) => els.map((e) => e.textContent));
  for (const k of [
    'single_quotes',
    'python_literal',
    'unquoted_key',
    'trailing_comma',
    'curly_quotes',
    'comment',
    'unclosed_container',
  ])
    assert.ok(kinds.includes(k), k);
  const marks = await page.$$eval('#highlighted mark', (els) => els.map((e) => e.textContent));
  assert.ok(marks.includes('T'), `a mark on True: ${marks}`);
  assert.ok(marks.includes('#'), `a mark on the comment: ${marks}`);
  assert.equal(await page.textContent('#input-stats'), `${pasted.length} characters, 3 lines`);

  await page.fill('#input', 'I cannot help with that.');
  assert.equal(await page.textContent('#status'), 'no_json');
  assert.match(await page.textContent('#output'), /JsonRepairError/);
});

test('the cleaned-text view: reasoning and prefix removed, options applied', async () => {
  await page.fill('#input', '<THINKING>hmm</THINKING>\n\nAssistant:  Hello there!  ');
  await page.click('#tab-clean');
  assert.equal(await page.isVisible('#panel-clean'), true);
  assert.equal(await page.isVisible('#panel-json'), false);
  assert.equal(await page.textContent('#cleaned'), 'Hello there!');
  assert.equal(await page.textContent('#reasoning'), 'hmm');
  await page.uncheck('#opt-assistant');
  assert.equal(await page.textContent('#cleaned'), 'Assistant:  Hello there!');
  await page.uncheck('#opt-common-tags');
  assert.match(await page.textContent('#cleaned'), /^<THINKING>hmm/);
  await page.check('#opt-assistant');
  await page.check('#opt-common-tags');
  await page.screenshot({ path: `${shots}/demo-clean.png` });
});

test('the schema editor: coercions on a valid turn; every issue and the correction prompt on a wrong one', async () => {
  await page.selectOption('#samples', '0');
  await page.click('#tab-schema');
  assert.equal(await page.textContent('#schema-badge'), 'valid');
  assert.equal(JSON.parse(await page.textContent('#extracted')).chosenIndex, 3);
  const coercion = await page.$$eval('#coercions tbody tr', (rows) =>
    rows.map((r) => [...r.cells].map((c) => c.textContent)),
  );
  assert.deepEqual(coercion, [['/chosenIndex', '"3"', '3', 'string_to_integer']]);
  assert.match(await page.textContent('#correction'), /nothing would be sent/);
  await page.uncheck('#opt-coerce');
  assert.equal(await page.textContent('#schema-badge'), '1 issue');
  await page.check('#opt-coerce');

  await page.selectOption('#samples', '4');
  assert.equal(await page.textContent('#schema-badge'), '4 issues');
  const issues = await page.$$eval('#issues tbody tr', (rows) =>
    rows.map((r) => `${r.cells[0].textContent} ${r.cells[1].textContent}`),
  );
  assert.deepEqual(issues.sort(), [
    '/chosenIndex minimum',
    '/mood additionalProperties',
    '/speech minLength',
    '/thoughts required',
  ]);
  const prompt = await page.textContent('#correction');
  assert.match(prompt, /missing required property "thoughts"/);
  assert.match(prompt, /property "mood" is not allowed/);
  assert.match(prompt, /Reply with only the corrected JSON value/);
  await page.screenshot({ path: `${shots}/demo-schema.png`, fullPage: true });

  await page.fill('#schema', '{"type": "object",');
  assert.equal(await page.textContent('#schema-badge'), 'schema error');
  assert.match(await page.textContent('#schema-error'), /SyntaxError/);
  await page.fill('#schema', '{"$ref": "#/nowhere"}');
  assert.match(await page.textContent('#schema-error'), /SchemaCompileError/);
});

test('the stream replay: the partial value grows chunk by chunk and ends as parseAndRepair of the whole', async () => {
  await page.selectOption('#samples', '0');
  await page.click('#tab-stream');
  await page.fill('#chunk-size', '9');
  // Step by hand: the speech grows by prefixes.
  const speeches = [];
  for (let i = 0; i < 40; i++) {
    await page.click('#step');
    const v = await page.textContent('#stream-value');
    const speech = v === '' || v === '—' ? undefined : JSON.parse(v)?.speech;
    if (speech !== undefined && speech !== speeches.at(-1)) speeches.push(speech);
  }
  assert.ok(speeches.length >= 2, `the speech grew: ${JSON.stringify(speeches)}`);
  assert.ok(speeches.every((s, i) => i === 0 || s.startsWith(speeches[i - 1])));
  assert.doesNotMatch(
    await page.textContent('#stream-text'),
    /goblin is wounded/,
    'the think block never reaches the cleaned stream',
  );
  await page.screenshot({ path: `${shots}/demo-stream-partial.png` });
  // Then play the rest at full speed.
  await page.fill('#speed', '0');
  await page.click('#play');
  await page.waitForSelector('body[data-replay="done"]');
  const final = JSON.parse(await page.textContent('#stream-value'));
  assert.deepEqual(final, {
    chosenIndex: '3',
    speech: "You'll regret crossing me, goblin!",
    thoughts: "It's wounded, press the advantage.",
    notes: [{ text: 'Goblin flees at low HP', subject: 'goblin' }],
  });
  assert.match(await page.textContent('#stream-status'), /equals parseAndRepair\(\) of the whole response/);
  assert.equal(await page.$eval('#stream-progress', (p) => p.value), 1);
  await page.screenshot({ path: `${shots}/demo-stream.png` });
  // Reset empties it.
  await page.click('#reset');
  assert.equal(await page.textContent('#stream-value'), '');
});

test('no errors in the page and no request left the machine', () => {
  assert.deepEqual(errors, []);
});
