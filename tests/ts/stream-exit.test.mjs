// Leaving a provider stream early must end the request: breaking out of the loop (or an error in it) cancels
// the response body, and the server sees its connection close at once, not when it finishes streaming.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { openAITextStream, anthropicTextStream, serverSentEvents } from 'llm-response-sanitizer';

let server, url;
/** When each request's connection closed, by request number; the server streams for at most 10 s. */
const closed = new Map();
let requests = 0;

before(async () => {
  server = createServer((req, res) => {
    const n = ++requests;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const started = Date.now();
    const anthropic = req.url.includes('messages');
    // After `[DONE]` the server keeps the connection open and goes on writing: the reader must not wait for it.
    if (req.url.includes('done'))
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x' } }] })}\n\ndata: [DONE]\n\n`);
    const timer = setInterval(() => {
      if (Date.now() - started > 10_000) return res.end();
      res.write(
        anthropic
          ? `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } })}\n\n`
          : `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x' } }] })}\n\n`,
      );
    }, 5);
    res.on('close', () => {
      clearInterval(timer);
      closed.set(n, Date.now());
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${server.address().port}`;
});

after(() => server.close());

/** Opens a stream, reads three items through `read`, leaves the loop, and returns how long the server took to see the connection close. */
async function leaveEarly(path, read, how) {
  const response = await fetch(url + path);
  const n = requests;
  let seen = 0;
  const left = Date.now();
  try {
    for await (const item of read(response)) {
      void item;
      if (++seen === 3) {
        if (how === 'throw') throw new Error('consumer failed');
        break;
      }
    }
  } catch (e) {
    if (e.message !== 'consumer failed') throw e;
  }
  for (let i = 0; i < 200 && !closed.has(n); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closed.has(n), `${path}: the server was still streaming 2 s after the loop was left`);
  return closed.get(n) - left;
}

for (const [name, path, read] of [
  ['openAITextStream(response)', '/v1/chat/completions', (r) => openAITextStream(r)],
  ['anthropicTextStream(response)', '/v1/messages', (r) => anthropicTextStream(r)],
  ['serverSentEvents(response)', '/v1/chat/completions', (r) => serverSentEvents(r)],
  ['serverSentEvents(response.body)', '/v1/chat/completions', (r) => serverSentEvents(r.body)],
]) {
  test(`${name}: break and a throw in the loop both end the request`, async () => {
    for (const how of ['break', 'throw']) {
      const ms = await leaveEarly(path, read, how);
      assert.ok(ms < 1_000, `${how}: the connection closed ${ms} ms after the loop was left`);
    }
  });
}

test('openAITextStream and createOpenAIQuery end the request at [DONE], even when the server keeps writing', async () => {
  const { createOpenAIQuery } = await import('llm-response-sanitizer');
  const response = await fetch(`${url}/v1/done/chat/completions`);
  const n = requests;
  let text = '';
  for await (const d of openAITextStream(response)) text += d;
  assert.equal(text, 'x');
  for (let i = 0; i < 200 && !closed.has(n); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closed.has(n), 'the server was still streaming after [DONE]');
  const query = createOpenAIQuery({ baseURL: `${url}/v1/done`, model: 'm', stream: true });
  assert.equal(await query('hi'), 'x');
  const m = requests;
  for (let i = 0; i < 200 && !closed.has(m); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closed.has(m), 'the query left the server streaming after [DONE]');
});
