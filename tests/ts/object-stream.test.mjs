// objectStream against local servers speaking OpenAI-style SSE (chat completions and the Responses API) and
// Anthropic-style SSE: odd chunking, reasoning deltas, tool-call deltas, early exit, abort, an error
// mid-stream, and the ways to read it (iteration, a ReadableStream, only the result).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { z } from 'zod';
import {
  objectStream,
  providerTextStream,
  partialJsonValues,
  extract,
  ProviderError,
  wasmMemorySize,
} from 'llm-response-sanitizer';

const Turn = z.object({ chosenIndex: z.number().int(), speech: z.string(), mood: z.enum(['calm', 'angry']) });
const answer =
  '<think>Draft: {"chosenIndex": 9, "speech": "no"}</think>\n```json\n{"chosenIndex": "2", "speech": "Halt! Who goes there? 🙂", "mood": "Angry",}\n```';

const openaiEvent = (delta) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta }] })}\n\n`;
const responsesEvent = (type, body) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
const anthropicEvent = (type, body) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;

/** The body each path streams, as one string, cut into pieces of `size` bytes (odd sizes split events, lines and characters). */
const bodies = {
  '/openai': () =>
    [
      openaiEvent({ role: 'assistant', reasoning_content: 'The guard is wary.' }),
      ...answer.match(/.{1,6}/gsu).map((c) => openaiEvent({ content: c })),
      'data: [DONE]\n\n',
    ].join(''),
  '/openai-tool': () =>
    [
      openaiEvent({ role: 'assistant', content: null }),
      openaiEvent({ tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'act', arguments: '' } }] }),
      ...["{'chosenIndex': 3, ", "'speech': 'Run', 'mood': 'calm'}"].map((a) =>
        openaiEvent({ tool_calls: [{ index: 0, function: { arguments: a } }] }),
      ),
      'data: [DONE]\n\n',
    ].join(''),
  '/anthropic': () =>
    [
      anthropicEvent('message_start', { message: { id: 'm', role: 'assistant', content: [] } }),
      anthropicEvent('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
      anthropicEvent('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Pick 2.' } }),
      anthropicEvent('content_block_stop', { index: 0 }),
      anthropicEvent('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      ...answer
        .match(/.{1,9}/gsu)
        .map((t) => anthropicEvent('content_block_delta', { index: 1, delta: { type: 'text_delta', text: t } })),
      anthropicEvent('message_stop', {}),
    ].join(''),
  '/responses': () =>
    [
      responsesEvent('response.created', {
        response: { id: 'r', object: 'response', status: 'in_progress', output: [] },
      }),
      responsesEvent('response.reasoning_summary_text.delta', { output_index: 0, delta: 'The guard is wary.' }),
      ...answer
        .match(/.{1,5}/gsu)
        .map((delta) => responsesEvent('response.output_text.delta', { output_index: 1, delta })),
      responsesEvent('response.completed', { response: { id: 'r', object: 'response', status: 'completed' } }),
    ].join(''),
  '/text': () => answer,
  '/fail': () =>
    `${openaiEvent({ content: '{"chosenIndex": 2' })}data: ${JSON.stringify({ error: { message: 'upstream died', type: 'server_error' } })}\n\n`,
};

let server, url;
let open = 0;
before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const size = Number(new URL(req.url, 'http://x').searchParams.get('size') ?? 7);
    open++;
    res.on('close', () => open--);
    if (path === '/endless') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(openaiEvent({ content: '"x", ' })), 5);
      res.write(openaiEvent({ content: '[' }));
      res.on('close', () => clearInterval(timer));
      return;
    }
    const body = Buffer.from(bodies[path](), 'utf8');
    res.writeHead(200, { 'content-type': path === '/text' ? 'text/plain; charset=utf-8' : 'text/event-stream' });
    let at = 0;
    const timer = setInterval(() => {
      if (at >= body.length) {
        clearInterval(timer);
        return res.end();
      }
      res.write(body.subarray(at, (at += size)));
    }, 1);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

const expected = { chosenIndex: 2, speech: 'Halt! Who goes there? 🙂', mood: 'angry' };

async function collect(stream) {
  const updates = [];
  for await (const u of stream) updates.push(structuredClone(u));
  return updates;
}

for (const path of ['/openai', '/responses', '/anthropic', '/text']) {
  test(`${path}: typed partial values as the text arrives, reasoning apart, the checked result at the end`, async () => {
    for (const size of [1, 7, 64]) {
      const stream = objectStream(await fetch(`${url}${path}?size=${size}`), { schema: Turn });
      const updates = await collect(stream);
      const last = updates.at(-1);
      assert.equal(last.done, true);
      assert.equal(last.result.ok, true, JSON.stringify(last.result.issues));
      assert.deepEqual(last.partial, expected);
      assert.deepEqual((await stream.result).value, expected);
      assert.equal(await stream.text, answer);
      const reasoning = await stream.reasoning;
      assert.match(reasoning, /Draft: \{"chosenIndex": 9/);
      if (path === '/openai' || path === '/responses') assert.match(reasoning, /^The guard is wary\./);
      if (path === '/anthropic') assert.match(reasoning, /^Pick 2\./);
      // Never the draft inside the reasoning; the speech grows; the enum is held until complete.
      const shown = updates.slice(0, -1).map((u) => u.partial);
      assert.ok(
        !shown.some((p) => p?.chosenIndex === 9 || p?.speech === 'no'),
        `${path} ${size}: the draft in the reasoning was shown`,
      );
      // The speech grows where the text arrives in pieces smaller than it (SSE deltas are; plain text in 64-byte reads is not).
      if (path !== '/text' || size < 20)
        assert.ok(
          shown.some(
            (p) => typeof p?.speech === 'string' && p.speech.length > 0 && p.speech.length < expected.speech.length,
          ),
          `${path} ${size}`,
        );
      assert.ok(!shown.some((p) => p?.mood !== undefined && p.mood !== 'Angry'), 'a partial enum string was shown');
      assert.deepEqual(last.result, extract(answer, Turn));
    }
  });
}

test('a tool call’s arguments instead of the text', async () => {
  const stream = objectStream(await fetch(`${url}/openai-tool?size=5`), { schema: Turn, tool: 'act' });
  const updates = await collect(stream);
  assert.deepEqual(updates.at(-1).partial, { chosenIndex: 3, speech: 'Run', mood: 'calm' });
});

test('only awaiting result reads the stream; a ReadableStream gives the same updates', async () => {
  const r = await objectStream(await fetch(`${url}/anthropic?size=3`), { schema: Turn }).result;
  assert.deepEqual(r.value, expected);
  const readable = objectStream(await fetch(`${url}/openai?size=11`), { schema: Turn }).toReadableStream();
  const reader = readable.getReader();
  let last;
  for (let s = await reader.read(); !s.done; s = await reader.read()) last = s.value;
  assert.deepEqual(last.partial, expected);
  const once = objectStream(await fetch(`${url}/text`));
  await collect(once);
  assert.throws(() => once[Symbol.asyncIterator](), /read once/);
});

test('an error event mid-stream rejects the iteration and the promises with the ProviderError', async () => {
  const stream = objectStream(await fetch(`${url}/fail?size=4`), { schema: Turn });
  await assert.rejects(collect(stream), (e) => e instanceof ProviderError && e.status === 500);
  await assert.rejects(stream.result, ProviderError);
  await assert.rejects(stream.text, ProviderError);
});

test('leaving early, cancelling the ReadableStream and aborting all end the request and free the parser', async () => {
  const closes = async () => {
    for (let i = 0; i < 200 && open > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(open, 0, 'the server is still streaming');
  };
  const before = wasmMemorySize();
  const stream = objectStream(await fetch(`${url}/endless`));
  let n = 0;
  for await (const _u of stream) if (++n === 5) break;
  await closes();
  await assert.rejects(stream.result, /left before its end/);

  // Right after the first update (the event the stream was told apart by).
  const first = objectStream(await fetch(`${url}/endless`))[Symbol.asyncIterator]();
  await first.next();
  await first.return();
  await closes();

  const readable = objectStream(await fetch(`${url}/endless`)).toReadableStream();
  const reader = readable.getReader();
  await reader.read();
  await reader.cancel();
  await closes();

  const controller = new AbortController();
  const aborted = objectStream(await fetch(`${url}/endless`), { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(collect(aborted), (e) => e.name === 'AbortError');
  await assert.rejects(aborted.result, (e) => e.name === 'AbortError');
  await closes();
  assert.ok(wasmMemorySize() - before < 1 << 20);
});

test('bad options are errors at the call', async () => {
  assert.throws(() => objectStream([], { format: 'xml' }), RangeError);
  assert.throws(() => objectStream([], { schema: 42 }), TypeError);
  assert.throws(() => objectStream([], { signal: {} }), TypeError);
  await assert.rejects(
    objectStream(['x'], { tool: true })[Symbol.asyncIterator]().next(),
    /tool is for an event stream/,
  );
});

test('an iterable of objects that are no provider’s events is a TypeError that says what to pass', async () => {
  // Some other library's token objects: their text is the way in.
  const parts = [
    { kind: 'token', value: '{"a": ' },
    { kind: 'token', value: '1}' },
  ];
  await assert.rejects(
    objectStream(parts).result,
    (e) =>
      e instanceof TypeError &&
      /not OpenAI's, Anthropic's, Gemini's, Ollama's, the AI SDK's or LangChain's events \(the first: \{"kind":"token","value":"\{\\"a\\": "\}\)/.test(
        e.message,
      ),
  );
  // Iterator results (`{value, done}`) are not Ollama's chunks, whose `done` comes with a message or a response.
  await assert.rejects(objectStream([{ value: '[1]', done: false }]).result, TypeError);
  // With `format`, the reader's own check speaks.
  await assert.rejects(objectStream(parts, { format: 'anthropic' }).result, (e) => e.code === 'bad_response');
  // Event objects of each provider, without a client.
  const chunk = (content) => ({ choices: [{ index: 0, delta: { content } }] });
  assert.deepEqual((await objectStream([chunk('[1, '), chunk('2]')]).result).value, [1, 2]);
  assert.deepEqual(
    (await objectStream([{ candidates: [{ content: { parts: [{ text: '[3]' }] } }] }]).result).value,
    [3],
  );
});

test('format sse reads server-sent events from any source, the provider told by the first event', async () => {
  const bodies = [
    openaiEvent({ content: '[1, ' }) + openaiEvent({ content: '2]' }),
    anthropicEvent('message_start', { message: {} }) +
      anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '[1, 2]' } }),
    responsesEvent('response.output_text.delta', { delta: '[1, 2]' }),
  ];
  for (const body of bodies) {
    // Text chunks and byte chunks, split inside events.
    const bytes = new TextEncoder().encode(body);
    for (const source of [body.match(/.{1,5}/gsu), [bytes.subarray(0, 9), bytes.subarray(9)]]) {
      assert.deepEqual((await objectStream(source, { format: 'sse' }).result).value, [1, 2]);
      let text = '';
      for await (const d of providerTextStream(source, { format: 'sse' })) text += d;
      assert.equal(text.replace(/\s/g, ''), '[1,2]');
    }
  }
  // Without the format, an iterable is plain text, and events in it say how to read them.
  await assert.rejects(objectStream([bodies[0]]).result, /server-sent events.*format: 'sse'/s);
  await assert.rejects(providerTextStream([], { format: 'xml' }).next(), RangeError);
});

test('a JSON body is read whole: a provider’s response gives its text or tool call, its error throws, other JSON is the text', async () => {
  const json = (value, status = 200) =>
    new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
  const answerText = "Sure: {'chosenIndex': 2, 'speech': 'Halt!', 'mood': 'calm',}";
  const want = { chosenIndex: 2, speech: 'Halt!', mood: 'calm' };
  const completion = { choices: [{ index: 0, message: { role: 'assistant', content: answerText } }] };
  assert.deepEqual((await objectStream(json(completion), { schema: Turn }).result).value, want);
  const message = {
    type: 'message',
    content: [
      { type: 'text', text: answerText },
      { type: 'tool_use', name: 'act', input: want },
    ],
  };
  assert.deepEqual((await objectStream(json(message), { schema: Turn }).result).value, want);
  assert.deepEqual((await objectStream(json(message), { schema: Turn, tool: 'act' }).result).value, want);
  assert.equal(await objectStream(json(message)).text, answerText);
  // An error body is the provider's error, not a value.
  await assert.rejects(
    objectStream(json({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }, 401)).result,
    (e) => e instanceof ProviderError && e.provider === 'openai' && /Incorrect API key/.test(e.message),
  );
  // JSON that is no provider's response is the text itself.
  assert.deepEqual((await objectStream(json(want), { schema: Turn }).result).value, want);
  assert.deepEqual((await objectStream(json([1, 2])).result).value, [1, 2]);
});

test('a client’s stream of events given to a text adapter is a TypeError that names the readers for it', async () => {
  const events = [{ choices: [{ index: 0, delta: { content: '[1]' } }] }];
  await assert.rejects(async () => {
    for await (const _ of partialJsonValues(events)) void _;
  }, /got object \(a provider's client's stream of events\? read it with objectStream or providerTextStream\)/);
  assert.deepEqual((await objectStream(events).result).value, [1]);
});

test('AI SDK parts: errors in both shapes, a tool input that came whole, the end at finish or abort', async () => {
  const text = async (parts, options) => {
    let out = '';
    for await (const d of providerTextStream(parts, options)) out += d;
    return out;
  };
  const start = { type: 'start' };
  await assert.rejects(
    text([start, { type: 'text-delta', id: 't', delta: '[' }, { type: 'error', errorText: 'Rate limit reached' }]),
    (e) => e instanceof ProviderError && e.provider === 'ai-sdk' && /ai-sdk: Rate limit reached/.test(e.message),
  );
  const cause = new Error('upstream closed');
  await assert.rejects(
    text([start, { type: 'error', error: cause }]),
    (e) => e instanceof ProviderError && e.cause === cause && /upstream closed/.test(e.message),
  );
  const whole = [
    start,
    { type: 'tool-input-available', toolCallId: 'c', toolName: 'act', input: { i: 1 } },
    { type: 'finish' },
  ];
  assert.equal(await text(whole, { tool: 'act' }), '{"i":1}');
  assert.equal(await text(whole, { tool: 'other' }), '');
  const ended = [
    start,
    { type: 'text-delta', id: 't', text: '[1]' },
    { type: 'abort' },
    { type: 'text-delta', id: 't', text: 'x' },
  ];
  assert.equal(await text(ended), '[1]');
  // Given as server-sent events without a Response, with format 'sse'.
  const sse = ended.map((p) => `data: ${JSON.stringify(p)}\n\n`).join('');
  assert.equal(await text([sse], { format: 'sse' }), '[1]');
});
