// The module under use from several sides at once: calls made from inside the service layer's logger and
// event dispatcher and from queryWithCorrection's onAttempt, many streams interleaved chunk by chunk, and
// worker threads each with their own module. Every call gets its own right answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import {
  LLMResponseProcessor,
  LlmJsonService,
  PartialJsonParser,
  StreamCleaner,
  clean,
  extract,
  parseAndRepair,
  queryWithCorrection,
} from 'llm-response-sanitizer';
import { repairFixtures } from './fixtures.mjs';

const turn = {
  type: 'object',
  properties: { chosenIndex: { type: 'integer' }, speech: { type: 'string' } },
  required: ['chosenIndex', 'speech'],
};

test('calls from inside a logger and an event dispatcher, while a response is being processed, get their own answers', async () => {
  const inner = [];
  const reenter = () => {
    inner.push(parseAndRepair("{'inner': [1, 2,]}"));
    inner.push(clean('<think>x</think> y '));
    inner.push(extract('{"chosenIndex": "3", "speech": "hi"}', turn).value);
    const p = new PartialJsonParser();
    p.push('{"a": [1');
    inner.push(p.finish());
  };
  const logger = { debug: reenter, info: reenter, warn: reenter, error: reenter };
  const safeEventDispatcher = { dispatch: reenter };
  const validator = {
    validate: (_id, v) => ({
      isValid: typeof v.chosenIndex === 'number' && typeof v.speech === 'string',
      errors: [{ message: 'wrong' }],
    }),
    isSchemaLoaded: () => true,
  };
  const engine = new LLMResponseProcessor({
    schemaValidator: validator,
    logger,
    safeEventDispatcher,
    llmJsonService: new LlmJsonService(),
  });
  const ours = new LLMResponseProcessor({ schema: turn, logger, safeEventDispatcher });
  for (const p of [engine, ours]) {
    const r = await p.processResponse("Sure: {'chosenIndex': 2, 'speech': 'Halt!', 'thoughts': 't',}", 'a');
    assert.deepEqual(r.action, { chosenIndex: 2, speech: 'Halt!' });
    await assert.rejects(p.processResponse('{"chosenIndex": "nine"}', 'a'), { name: 'LLMProcessingError' });
  }
  assert.ok(inner.length >= 8);
  for (let i = 0; i < inner.length; i += 4) {
    assert.deepEqual(inner.slice(i, i + 4), [{ inner: [1, 2] }, 'y', { chosenIndex: 3, speech: 'hi' }, { a: [1] }]);
  }
});

test('onAttempt may use the module while queryWithCorrection runs', async () => {
  const seen = [];
  const answers = ['{"chosenIndex": "x"}', "{'chosenIndex': 1, 'speech': 'ok',}"];
  const r = await queryWithCorrection({
    query: async () => answers.shift(),
    prompt: 'Your turn.',
    schema: turn,
    onAttempt: (entry) => {
      seen.push(entry.kind);
      const s = new StreamCleaner();
      seen.push(s.push('<think>a</think>') + s.push(' b ') + s.finish());
      seen.push(extract(JSON.stringify({ chosenIndex: 1, speech: entry.kind }), turn).ok);
    },
  });
  assert.deepEqual(r.value, { chosenIndex: 1, speech: 'ok' });
  assert.equal(r.attempts, 2);
  assert.deepEqual(
    seen.filter((x) => x === 'b'),
    ['b', 'b'],
  );
  assert.ok(seen.filter((x) => x === true).length >= 2);
});

test('a hundred streams interleaved chunk by chunk each end as their one-shot call does', () => {
  const fixtures = repairFixtures()
    .filter((f) => f.expected !== undefined)
    .slice(0, 50);
  const streams = fixtures.flatMap((f) => [
    { f, kind: 'partial', s: new PartialJsonParser(), at: 0 },
    { f, kind: 'clean', s: new StreamCleaner({ removeAssistantPrefix: true }), at: 0, out: '' },
  ]);
  for (let step = 0, live = streams.length; live > 0; step++) {
    live = 0;
    for (const x of streams) {
      if (x.at >= x.f.input.length) continue;
      live++;
      const chunk = x.f.input.slice(x.at, x.at + 1 + (step % 7));
      x.at += chunk.length;
      if (x.kind === 'partial') x.s.push(chunk);
      else x.out += x.s.push(chunk);
    }
  }
  for (const x of streams) {
    if (x.kind === 'partial') assert.deepEqual(x.s.finish(), parseAndRepair(x.f.input), x.f.name);
    else assert.equal(x.out + x.s.finish(), clean(x.f.input, { removeAssistantPrefix: true }), x.f.name);
  }
});

test('worker threads, each with its own module, repair the corpus alongside the main thread', async () => {
  const fixtures = repairFixtures().filter((f) => f.expected !== undefined);
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { parseAndRepair, clean } = require('llm-response-sanitizer');
    const out = workerData.map((f) => JSON.stringify(parseAndRepair(f.input)) + clean(f.input));
    parentPort.postMessage(out);`;
  const run = () =>
    new Promise((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: fixtures });
      w.once('message', resolve);
      w.once('error', reject);
    });
  const want = fixtures.map((f) => JSON.stringify(parseAndRepair(f.input)) + clean(f.input));
  const results = await Promise.all([run(), run(), run()]);
  for (const r of results) assert.deepEqual(r, want);
});
