// Provider helpers: text and tool-call arguments out of OpenAI-compatible chat completions and Anthropic
// messages, whole and as SSE streams, against recorded payloads and real local HTTP servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import {
  serverSentEvents,
  openAIText,
  openAIToolArguments,
  openAITextStream,
  anthropicText,
  anthropicToolInput,
  anthropicTextStream,
  createOpenAIQuery,
  createAnthropicQuery,
  geminiText,
  geminiFunctionArguments,
  geminiTextStream,
  ollamaText,
  ollamaToolArguments,
  ollamaTextStream,
  providerText,
  providerToolArguments,
  ProviderError,
  isTransportError,
  parseAndRepair,
} from 'llm-response-sanitizer';
import { startOpenAIServer } from '../../examples/entity-scout/openai-server.mjs';

async function all(iterable) {
  const out = [];
  for await (const x of iterable) out.push(x);
  return out;
}

const bytes = (s) => new TextEncoder().encode(s);

test('serverSentEvents follows the standard: line ends, comments, BOM, multi-line data, event and id fields', async () => {
  const body =
    '\uFEFF: hello\r\nevent: a\r\ndata: one\r\ndata:two\r\nid: 7\r\n\r\n\n\ndata\n\nevent: empty\n\ndata: x\rdata:  y\r\rdata: unfinished';
  assert.deepEqual(await all(serverSentEvents([body])), [
    { event: 'a', data: 'one\ntwo', id: '7' },
    { event: 'message', data: '', id: '7' },
    { event: 'message', data: 'x\n y', id: '7' },
  ]);
});

test('serverSentEvents drops one byte order mark, at the start only, however the bytes are split', async () => {
  // As EventSource does: a second mark, or one at the start of a later line, is part of that line's field name.
  const body = bytes('\uFEFF\uFEFFdata: 1\n\ndata: 2\n\n\uFEFFdata: 3\n\ndata: 4\n\n');
  for (let i = 0; i <= 6; i++) {
    const parts = [body.slice(0, i), body.slice(i)];
    assert.deepEqual(
      (await all(serverSentEvents(parts))).map((e) => e.data),
      ['2', '4'],
      `split at ${i}`,
    );
  }
  assert.deepEqual(
    (await all(serverSentEvents([bytes('\uFEFFdata: 1\n\n')]))).map((e) => e.data),
    ['1'],
  );
});

test('serverSentEvents gives the same events for every split of the bytes, multi-byte characters and CRLF included', async () => {
  const body = 'event: é\r\ndata: {"t":"naïve 🙂 café"}\r\n\r\ndata: 二\r\n\r\n';
  const whole = await all(serverSentEvents([bytes(body)]));
  assert.equal(whole.length, 2);
  const b = bytes(body);
  for (let i = 0; i <= b.length; i++) {
    for (const j of [i, Math.min(b.length, i + 1), Math.min(b.length, i + 3)]) {
      const parts = [b.slice(0, i), b.slice(i, j), b.slice(j)];
      assert.deepEqual(await all(serverSentEvents(parts)), whole, `split at ${i},${j}`);
    }
  }
  // As a ReadableStream and as a Response too.
  const stream = () => new ReadableStream({ start: (c) => (b.forEach((x) => c.enqueue(Uint8Array.of(x))), c.close()) });
  assert.deepEqual(await all(serverSentEvents(stream())), whole);
  assert.deepEqual(await all(serverSentEvents(new Response(stream()))), whole);
  await assert.rejects(all(serverSentEvents(42)), TypeError);
});

test('serverSentEvents is linear: a 4 MB event in 1-KB chunks and 100,000 small events', async () => {
  const big = `data: ${'x'.repeat(4_000_000)}\n\n`;
  const chunks = [];
  for (let i = 0; i < big.length; i += 1024) chunks.push(big.slice(i, i + 1024));
  const t = performance.now();
  const [ev] = await all(serverSentEvents(chunks));
  assert.equal(ev.data.length, 4_000_000);
  const many = await all(serverSentEvents(['data: a\n\n'.repeat(100_000)]));
  assert.equal(many.length, 100_000);
  assert.ok(performance.now() - t < 20_000);
});

const completion = (message) => ({
  id: 'c',
  object: 'chat.completion',
  choices: [{ index: 0, message, finish_reason: 'stop' }],
});

test('openAIText: string content, content parts, refusals and tool-only messages', () => {
  assert.equal(openAIText(completion({ role: 'assistant', content: '{"a":1}' })), '{"a":1}');
  assert.equal(
    openAIText(
      completion({
        role: 'assistant',
        content: [{ type: 'text', text: '{"a":' }, { type: 'image_url' }, { type: 'text', text: '1}' }],
      }),
    ),
    '{"a":1}',
  );
  assert.throws(
    () => openAIText(completion({ role: 'assistant', content: null, refusal: 'I will not.' })),
    (e) => e instanceof ProviderError && e.code === 'refusal',
  );
  assert.throws(
    () =>
      openAIText(
        completion({ role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: '{}' } }] }),
      ),
    (e) => e.code === 'no_text' && /openAIToolArguments/.test(e.message),
  );
  assert.throws(
    () => openAIText({ choices: [] }),
    (e) => e.code === 'bad_response',
  );
  assert.throws(() => openAIText('nope'), TypeError);
  assert.throws(
    () => openAIText({ error: { message: 'quota', type: 'insufficient_quota' } }),
    (e) => e.code === 'insufficient_quota',
  );
});

test('openAIToolArguments: the first call, a named call, the legacy function_call; the text is what the model wrote', () => {
  const msg = completion({
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: '1', type: 'function', function: { name: 'look', arguments: '{"dir": "north"}' } },
      { id: '2', type: 'function', function: { name: 'act', arguments: "{'chosenIndex': 2,}" } },
    ],
  });
  assert.equal(openAIToolArguments(msg), '{"dir": "north"}');
  assert.deepEqual(parseAndRepair(openAIToolArguments(msg, { name: 'act' })), { chosenIndex: 2 });
  assert.throws(
    () => openAIToolArguments(msg, { name: 'nope' }),
    (e) => e.code === 'no_tool_call',
  );
  assert.equal(
    openAIToolArguments(
      completion({ role: 'assistant', content: null, function_call: { name: 'f', arguments: '[1]' } }),
    ),
    '[1]',
  );
});

test('openAITextStream over a real server: text deltas, tool-call argument deltas, and errors', async () => {
  const text = '<think>hm</think>{"a": [1, 2, 3], "b": "naïve 🙂"}';
  const server = await startOpenAIServer((req) =>
    req.prompt === 'tool'
      ? { toolArguments: "{'x': 1,}", name: 'act', chunkSize: 2 }
      : req.prompt === 'fail'
        ? { streamError: 'boom', after: '{"a"' }
        : { content: text, chunkSize: 5 },
  );
  try {
    const post = (prompt) =>
      fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: prompt }] }),
      });
    const deltas = await all(openAITextStream(await post('text')));
    assert.equal(deltas.join(''), text);
    assert.ok(deltas.length >= 10);
    const args = await all(openAITextStream(await post('tool'), { toolArguments: 'act' }));
    assert.equal(args.join(''), "{'x': 1,}");
    assert.deepEqual(await all(openAITextStream(await post('tool'), { toolArguments: 'other' })), []);
    assert.deepEqual(await all(openAITextStream(await post('tool'))), [], 'no text in a tool call');
    await assert.rejects(
      all(openAITextStream(await post('fail'))),
      (e) => e instanceof ProviderError && e.status === 500 && isTransportError(e),
    );
    // The non-streaming forms of the same server.
    const json = async (prompt) =>
      (
        await fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prompt }] }),
        })
      ).json();
    assert.equal(openAIText(await json('text')), text);
    assert.equal(openAIToolArguments(await json('tool'), { name: 'act' }), "{'x': 1,}");
  } finally {
    await server.close();
  }
  await assert.rejects(all(openAITextStream(['data: {not json\n\n'])), (e) => e.code === 'bad_response');
});

const anthropicEvents = [
  ['message_start', { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [] } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Pick 2.' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Sure: {"chosen' } },
  ],
  ['ping', { type: 'ping' }],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Index": 2,}' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 1 }],
  [
    'content_block_start',
    { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 't', name: 'act', input: {} } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"speech": "Hel' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'lo"}' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 2 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' } }],
  ['message_stop', { type: 'message_stop' }],
];
const sse = (events) => events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');

test('anthropicText, anthropicToolInput and anthropicTextStream: thinking left out, tool input by name, error events', async () => {
  const message = {
    type: 'message',
    content: [
      { type: 'thinking', thinking: 'Pick 2.' },
      { type: 'text', text: 'Sure: {"chosen' },
      { type: 'text', text: 'Index": 2,}' },
      { type: 'tool_use', id: 't', name: 'act', input: { speech: 'Hello' } },
    ],
  };
  assert.deepEqual(parseAndRepair(anthropicText(message)), { chosenIndex: 2 });
  assert.equal(anthropicToolInput(message, { name: 'act' }), '{"speech":"Hello"}');
  assert.throws(
    () => anthropicToolInput(message, { name: 'x' }),
    (e) => e.code === 'no_tool_call',
  );
  assert.throws(
    () => anthropicText({ type: 'message', content: [] }),
    (e) => e.code === 'no_text',
  );
  assert.throws(
    () => anthropicText({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    (e) => e.status === 529 && isTransportError(e),
  );

  assert.equal((await all(anthropicTextStream([sse(anthropicEvents)]))).join(''), 'Sure: {"chosenIndex": 2,}');
  assert.equal(
    (await all(anthropicTextStream([sse(anthropicEvents)], { toolInput: true }))).join(''),
    '{"speech": "Hello"}',
  );
  assert.deepEqual(await all(anthropicTextStream([sse(anthropicEvents)], { toolInput: 'other' })), []);
  const failing = sse([
    anthropicEvents[0],
    ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
  ]);
  await assert.rejects(
    all(anthropicTextStream([failing])),
    (e) => e instanceof ProviderError && e.status === 529 && e.code === 'overloaded_error' && isTransportError(e),
  );
});

test('createAnthropicQuery against a local server speaking the messages protocol, streaming and not', async () => {
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const b = JSON.parse(body);
      seen.push({ headers: req.headers, body: b, url: req.url });
      if (seen.length === 1) {
        res.writeHead(529, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      } else if (b.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sse(anthropicEvents));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'message', content: [{ type: 'text', text: '{"chosenIndex": 2}' }] }));
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const baseURL = `http://127.0.0.1:${server.address().port}/v1`;
  try {
    const query = createAnthropicQuery({
      baseURL,
      apiKey: 'sk',
      model: 'claude',
      system: 'Answer in JSON.',
      maxTokens: 100,
    });
    await assert.rejects(
      query('p'),
      (e) =>
        e instanceof ProviderError &&
        e.status === 529 &&
        e.retryAfterMs === 0 &&
        e.code === 'overloaded_error' &&
        /Overloaded/.test(e.message),
    );
    assert.equal(await query('p'), '{"chosenIndex": 2}');
    assert.equal(seen[1].url, '/v1/messages');
    assert.equal(seen[1].headers['x-api-key'], 'sk');
    assert.equal(seen[1].headers['anthropic-version'], '2023-06-01');
    assert.deepEqual(seen[1].body, {
      model: 'claude',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'p' }],
      system: 'Answer in JSON.',
    });
    const deltas = [];
    const streaming = createAnthropicQuery({ baseURL, model: 'claude', stream: true, onDelta: (d) => deltas.push(d) });
    assert.equal(await streaming('p'), 'Sure: {"chosenIndex": 2,}');
    assert.deepEqual(deltas, ['Sure: {"chosen', 'Index": 2,}']);
  } finally {
    server.close();
  }
  assert.throws(() => createAnthropicQuery({}), TypeError);
  assert.throws(() => createOpenAIQuery({ model: '' }), TypeError);
});

test('createOpenAIQuery sends the system prompt, options and extra body fields, and reads JSON error bodies', async () => {
  const server = await startOpenAIServer((_req, n) =>
    n === 0 ? { status: 401, error: 'Incorrect API key provided' } : { content: 'ok' },
  );
  try {
    const query = createOpenAIQuery({
      baseURL: `${server.url}/`,
      model: 'm',
      system: 'sys',
      temperature: 0,
      maxTokens: 50,
      body: { response_format: { type: 'json_object' } },
      headers: { 'x-trace': '1' },
    });
    await assert.rejects(
      query('p'),
      (e) => e.status === 401 && /HTTP 401.*Incorrect API key/.test(e.message) && !isTransportError(e),
    );
    assert.equal(await query('p'), 'ok');
    assert.deepEqual(server.requests[1].body, {
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'p' },
      ],
      temperature: 0,
      max_tokens: 50,
      response_format: { type: 'json_object' },
    });
    assert.equal(server.requests[1].headers['x-trace'], '1');
  } finally {
    await server.close();
  }
});

test('reasoning deltas go to onReasoning, never into the text: reasoning_content, reasoning, and Anthropic thinking', async () => {
  const openai = (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
  const body = [
    openai({ role: 'assistant', reasoning_content: 'Think' }),
    openai({ reasoning_content: 'ing.' }),
    openai({ reasoning: ' More.' }),
    openai({ content: '{"a": ' }),
    openai({ content: '1}' }),
    'data: [DONE]\n\n',
  ];
  const thoughts = [];
  const text = await all(openAITextStream(body, { onReasoning: (d) => thoughts.push(d) }));
  assert.equal(text.join(''), '{"a": 1}');
  assert.deepEqual(thoughts, ['Think', 'ing.', ' More.']);
  assert.equal(
    (await all(openAITextStream(body))).join(''),
    '{"a": 1}',
    'without the option, reasoning is dropped as before',
  );
  const thinking = [];
  const answer = await all(anthropicTextStream([sse(anthropicEvents)], { onReasoning: (d) => thinking.push(d) }));
  assert.equal(answer.join(''), 'Sure: {"chosenIndex": 2,}');
  assert.deepEqual(thinking, ['Pick 2.']);
});

/** A Responses API response as `/responses` returns it: reasoning, a message, two function calls. */
const response = (output, extra = {}) => ({
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  error: null,
  output,
  ...extra,
});
const responseOutput = [
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Pick 2.' }] },
  {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    content: [
      { type: 'output_text', text: 'Sure: {"chosen', annotations: [] },
      { type: 'output_text', text: 'Index": 2,}', annotations: [] },
    ],
  },
  { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'look', arguments: '{"dir": "north"}' },
  { type: 'function_call', id: 'fc_2', call_id: 'c2', name: 'act', arguments: "{'chosenIndex': 2,}" },
];

test('openAIText and openAIToolArguments read Responses API responses: output_text parts, refusals, function calls, failures', () => {
  assert.equal(openAIText(response(responseOutput)), 'Sure: {"chosenIndex": 2,}');
  assert.equal(openAIToolArguments(response(responseOutput)), '{"dir": "north"}');
  assert.deepEqual(parseAndRepair(openAIToolArguments(response(responseOutput), { name: 'act' })), { chosenIndex: 2 });
  assert.throws(
    () => openAIToolArguments(response(responseOutput), { name: 'nope' }),
    (e) => e instanceof ProviderError && e.code === 'no_tool_call',
  );
  assert.throws(
    () =>
      openAIText(response([{ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] }])),
    (e) => e instanceof ProviderError && e.code === 'refusal' && /No\./.test(e.message),
  );
  assert.throws(
    () => openAIText(response(responseOutput.slice(2))),
    (e) => e.code === 'no_text' && /openAIToolArguments/.test(e.message),
  );
  assert.throws(
    () => openAIText(response([], { status: 'failed', error: { code: 'server_error', message: 'The model crashed' } })),
    (e) => e instanceof ProviderError && e.status === 500 && isTransportError(e) && /crashed/.test(e.message),
  );
  // A chat completion is still read as one, whatever else it holds.
  assert.equal(openAIText({ ...completion({ role: 'assistant', content: 'x' }), output: [] }), 'x');
});

/** The events of a streamed Responses API call, as `event:`/`data:` pairs. */
const responseEvent = (type, body = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 0, ...body })}\n\n`;
const responseEvents = (text, args) => [
  responseEvent('response.created', { response: response([], { status: 'in_progress' }) }),
  responseEvent('response.output_item.added', {
    output_index: 0,
    item: { type: 'reasoning', id: 'rs_1', summary: [] },
  }),
  responseEvent('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, delta: 'Pick ' }),
  responseEvent('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, delta: '2.' }),
  responseEvent('response.output_item.added', { output_index: 1, item: { type: 'message', id: 'msg_1', content: [] } }),
  ...text.map((delta) =>
    responseEvent('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta }),
  ),
  responseEvent('response.output_text.done', {
    item_id: 'msg_1',
    output_index: 1,
    content_index: 0,
    text: text.join(''),
  }),
  ...['look', 'act'].flatMap((name, k) => [
    responseEvent('response.output_item.added', {
      output_index: 2 + k,
      item: { type: 'function_call', id: `fc_${k}`, name, arguments: '' },
    }),
    ...args.map((delta) =>
      responseEvent('response.function_call_arguments.delta', {
        item_id: `fc_${k}`,
        output_index: 2 + k,
        delta: `${name}:${delta}`,
      }),
    ),
    responseEvent('response.output_item.done', {
      output_index: 2 + k,
      item: { type: 'function_call', id: `fc_${k}`, name, arguments: args.map((a) => `${name}:${a}`).join('') },
    }),
  ]),
  responseEvent('response.completed', { response: response(responseOutput) }),
];

test('openAITextStream reads a Responses API stream: text, reasoning summaries, a named call’s arguments, errors, refusals', async () => {
  const events = responseEvents(['Sure: {"chosen', 'Index": 2,}'], ['{"x"', ': 1}']);
  const thoughts = [];
  assert.equal(
    (await all(openAITextStream(events, { onReasoning: (d) => thoughts.push(d) }))).join(''),
    'Sure: {"chosenIndex": 2,}',
  );
  assert.deepEqual(thoughts, ['Pick ', '2.']);
  assert.deepEqual(await all(openAITextStream(events, { toolArguments: true })), ['look:{"x"', 'look:: 1}']);
  assert.deepEqual(await all(openAITextStream(events, { toolArguments: 'act' })), ['act:{"x"', 'act:: 1}']);
  assert.deepEqual(await all(openAITextStream(events, { toolArguments: 'other' })), []);
  // Every split of the bytes gives the same deltas.
  const body = bytes(events.join(''));
  for (const size of [1, 3, 50]) {
    const chunks = [];
    for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
    assert.equal((await all(openAITextStream(chunks))).join(''), 'Sure: {"chosenIndex": 2,}');
  }
  // The stream ends at response.completed (and response.incomplete): nothing after it is read.
  const after = [...events, responseEvent('response.output_text.delta', { delta: 'late' })];
  assert.equal((await all(openAITextStream(after))).join(''), 'Sure: {"chosenIndex": 2,}');
  const cut = [
    ...events.slice(0, 6),
    responseEvent('response.incomplete', { response: response([], { status: 'incomplete' }) }),
    responseEvent('response.output_text.delta', { delta: 'late' }),
  ];
  assert.equal((await all(openAITextStream(cut))).join(''), 'Sure: {"chosen');
  // A server that sends text and arguments only whole.
  const whole = [
    responseEvent('response.output_text.done', { output_index: 0, content_index: 0, text: '{"a": 1}' }),
    responseEvent('response.output_item.done', {
      output_index: 1,
      item: { type: 'function_call', name: 'act', arguments: '[1]' },
    }),
    responseEvent('response.completed'),
  ];
  assert.deepEqual(await all(openAITextStream(whole)), ['{"a": 1}']);
  assert.deepEqual(await all(openAITextStream(whole, { toolArguments: 'act' })), ['[1]']);
  // Errors: the documented `error` event, the one servers send (an `error` object), and response.failed.
  const begun = events.slice(0, 6);
  await assert.rejects(
    all(openAITextStream([...begun, responseEvent('error', { code: 'server_error', message: 'boom', param: null })])),
    (e) => e instanceof ProviderError && e.provider === 'openai' && e.status === 500 && /boom/.test(e.message),
  );
  await assert.rejects(
    all(
      openAITextStream([
        ...begun,
        responseEvent('error', { error: { type: 'invalid_request_error', message: 'bad' } }),
      ]),
    ),
    (e) => e.code === 'invalid_request_error' && /bad/.test(e.message),
  );
  await assert.rejects(
    all(
      openAITextStream([
        ...begun,
        responseEvent('response.failed', {
          response: response([], { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow down' } }),
        }),
      ]),
    ),
    (e) => e.status === 429 && isTransportError(e) && /slow down/.test(e.message),
  );
  // A refusal with no text is an error, not an empty answer; in a chat completion's stream too.
  await assert.rejects(
    all(
      openAITextStream([
        responseEvent('response.refusal.delta', { delta: 'I can' }),
        responseEvent('response.refusal.delta', { delta: 'not.' }),
        responseEvent('response.completed'),
      ]),
    ),
    (e) => e.code === 'refusal' && /I cannot\./.test(e.message),
  );
  await assert.rejects(
    all(
      openAITextStream([
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { refusal: 'No.' } }] })}\n\n`,
        'data: [DONE]\n\n',
      ]),
    ),
    (e) => e.code === 'refusal',
  );
});

test('createOpenAIQuery with api responses: the request /responses takes, its answer and its stream', async () => {
  const requests = [];
  const reply = (body, type) => new Response(body, { status: 200, headers: { 'content-type': type } });
  const fetchLike = async (url, init) => {
    const body = JSON.parse(init.body);
    requests.push({ url, body });
    if (body.stream === true) return reply(responseEvents(['{"a"', ': 1}'], []).join(''), 'text/event-stream');
    return reply(JSON.stringify(response(responseOutput)), 'application/json');
  };
  const options = {
    baseURL: 'http://h/v1',
    model: 'm',
    system: 'sys',
    maxTokens: 50,
    api: 'responses',
    fetch: fetchLike,
  };
  assert.equal(await createOpenAIQuery(options)('p'), 'Sure: {"chosenIndex": 2,}');
  assert.deepEqual(requests[0], {
    url: 'http://h/v1/responses',
    body: { model: 'm', input: 'p', instructions: 'sys', max_output_tokens: 50 },
  });
  const deltas = [];
  assert.equal(await createOpenAIQuery({ ...options, stream: true, onDelta: (d) => deltas.push(d) })('p'), '{"a": 1}');
  assert.deepEqual(deltas, ['{"a"', ': 1}']);
  assert.throws(() => createOpenAIQuery({ model: 'm', api: 'completions' }), RangeError);
});

test('Gemini: text parts without thoughts, function calls, blocks as refusals, Google error objects with their status', async () => {
  const candidate = (parts, extra = {}) => ({ content: { role: 'model', parts }, index: 0, ...extra });
  const generated = (candidates, extra = {}) => ({ candidates, modelVersion: 'm', ...extra });
  const both = generated([
    candidate([
      { text: 'Hm.', thought: true },
      { text: 'Sure: {"a":' },
      { text: ' 1,}' },
      { functionCall: { name: 'act', args: { x: 1 } } },
    ]),
  ]);
  assert.equal(geminiText(both), 'Sure: {"a": 1,}');
  assert.equal(geminiFunctionArguments(both), '{"x":1}');
  assert.equal(geminiFunctionArguments(both, { name: 'act' }), '{"x":1}');
  assert.throws(
    () => geminiFunctionArguments(both, { name: 'other' }),
    (e) => e.code === 'no_tool_call',
  );
  assert.equal(
    geminiText(generated([candidate([{ text: 'one' }]), { ...candidate([{ text: 'two' }]), index: 1 }]), {
      candidate: 1,
    }),
    'two',
  );
  assert.throws(
    () => geminiText(generated([candidate([{ functionCall: { name: 'act', args: {} } }])])),
    (e) =>
      e instanceof ProviderError &&
      e.provider === 'gemini' &&
      e.code === 'no_text' &&
      /geminiFunctionArguments/.test(e.message),
  );
  assert.throws(
    () => geminiText(generated([{ finishReason: 'SAFETY', index: 0 }])),
    (e) => e.code === 'refusal' && /SAFETY/.test(e.message),
  );
  assert.throws(
    () => geminiText({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }),
    (e) => e.code === 'refusal' && /prompt was blocked \(PROHIBITED_CONTENT\)/.test(e.message),
  );
  assert.throws(
    () => geminiText({ candidates: [] }),
    (e) => e.code === 'bad_response',
  );
  assert.throws(() => geminiText(null), TypeError);
  // The stream: every split of its bytes; an error event; a block with no text.
  const events = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('');
  const body = bytes(
    events([
      generated([candidate([{ text: 'Pick 2.', thought: true }])]),
      generated([candidate([{ text: '{"chosenIndex"' }])]),
      generated([candidate([{ text: ': 2, "note": "é🙂"}' }], { finishReason: 'STOP' })]),
      { usageMetadata: { totalTokenCount: 9 } },
    ]),
  );
  for (const size of [1, 5, 64]) {
    const chunks = [];
    for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
    const thoughts = [];
    const text = (await all(geminiTextStream(chunks, { onReasoning: (t) => thoughts.push(t) }))).join('');
    assert.equal(text, '{"chosenIndex": 2, "note": "é🙂"}');
    assert.deepEqual(thoughts, ['Pick 2.']);
  }
  await assert.rejects(
    all(
      geminiTextStream([
        events([
          generated([candidate([{ text: '{' }])]),
          { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } },
        ]),
      ]),
    ),
    (e) => e.status === 429 && e.code === 'RESOURCE_EXHAUSTED' && isTransportError(e) && /Quota/.test(e.message),
  );
  await assert.rejects(
    all(geminiTextStream([events([generated([candidate([], { finishReason: 'RECITATION' })])])])),
    (e) => e.code === 'refusal' && /RECITATION/.test(e.message),
  );
  // With text before it, a stop by a filter is the end of the text, not an error.
  assert.deepEqual(
    await all(geminiTextStream([events([generated([candidate([{ text: '[1' }], { finishReason: 'SAFETY' })])])])),
    ['[1'],
  );
  assert.deepEqual(
    await all(
      geminiTextStream([events([generated([candidate([{ functionCall: { name: 'act', args: { x: [1] } } }])])])], {
        functionCall: 'act',
      }),
    ),
    ['{"x":[1]}'],
  );
});

test('an Anthropic stream refused before any text is a refusal', async () => {
  const refused = [
    ['message_start', { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [] } }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'refusal' } }],
    ['message_stop', { type: 'message_stop' }],
  ];
  await assert.rejects(
    all(anthropicTextStream([sse(refused)])),
    (e) => e instanceof ProviderError && e.provider === 'anthropic' && e.code === 'refusal',
  );
});

test('a stream of another provider’s or library’s events is a bad_response, never an empty answer', async () => {
  const chat = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '{"a": 1}' } }] })}\n\ndata: [DONE]\n\n`;
  const foreign = `data: ${JSON.stringify({ type: 'text-delta', id: 't', text: '{"a": 1}' })}\n\n`;
  const gemini = `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: '{"a": 1}' }] } }] })}\n\n`;
  const bad = (provider) => (e) =>
    e instanceof ProviderError &&
    e.provider === provider &&
    e.code === 'bad_response' &&
    /the first: \{/.test(e.message);
  await assert.rejects(all(openAITextStream([foreign])), bad('openai'));
  await assert.rejects(all(openAITextStream([gemini])), bad('openai'));
  await assert.rejects(all(anthropicTextStream([chat])), bad('anthropic'));
  await assert.rejects(all(geminiTextStream([chat])), bad('gemini'));
  await assert.rejects(all(geminiTextStream([{ type: 'message_start', message: {} }])), bad('gemini'));
  // Each reader's own events, and a stream with no events at all, are fine.
  assert.deepEqual(await all(openAITextStream([chat])), ['{"a": 1}']);
  assert.deepEqual(await all(geminiTextStream([gemini])), ['{"a": 1}']);
  assert.deepEqual(await all(anthropicTextStream([''])), []);
});

test('Ollama: newline-delimited JSON in any split, thinking apart, the end at done, error lines, tool calls', async () => {
  const line = (o) => `${JSON.stringify({ model: 'm', created_at: 't', ...o })}\n`;
  const body = bytes(
    [
      line({ message: { role: 'assistant', content: '', thinking: 'Hm, ' }, done: false }),
      line({ message: { role: 'assistant', content: '', thinking: 'two.' }, done: false }),
      line({ message: { role: 'assistant', content: '{"n": 2, ' }, done: false }),
      '\r\n',
      line({ message: { role: 'assistant', content: '"s": "naïve 🙂"}' }, done: false }).replace('\n', '\r\n'),
      line({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' }),
      line({ message: { role: 'assistant', content: 'after the end' }, done: false }),
    ].join(''),
  );
  for (const size of [1, 2, 7, 1000]) {
    const chunks = [];
    for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
    const thoughts = [];
    const text = (await all(ollamaTextStream(chunks, { onReasoning: (t) => thoughts.push(t) }))).join('');
    assert.equal(text, '{"n": 2, "s": "naïve 🙂"}', `chunks of ${size}`);
    assert.equal(thoughts.join(''), 'Hm, two.');
  }
  // The last line may lack its newline; /api/generate writes `response`.
  assert.deepEqual(
    await all(ollamaTextStream([`${line({ response: '[1', done: false })}{"response": "]", "done": true}`])),
    ['[1', ']'],
  );
  await assert.rejects(
    all(
      ollamaTextStream([line({ response: '[', done: false }), '{"error": "model runner has unexpectedly stopped"}\n']),
    ),
    (e) => e instanceof ProviderError && e.provider === 'ollama' && /unexpectedly stopped/.test(e.message),
  );
  await assert.rejects(
    all(ollamaTextStream(['{"response": "[", "done": false}\nnot json\n'])),
    (e) => e.code === 'bad_response',
  );
  await assert.rejects(
    all(ollamaTextStream([`data: ${JSON.stringify({ choices: [] })}\n\n`])),
    (e) => e.code === 'bad_response',
  );
  const calls = line({
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'look', arguments: { dir: 'n' } } },
        { function: { name: 'act', arguments: { i: 2 } } },
      ],
    },
    done: true,
  });
  assert.deepEqual(await all(ollamaTextStream([calls], { toolCall: 'act' })), ['{"i":2}']);
  assert.deepEqual(await all(ollamaTextStream([calls], { toolCall: true })), ['{"dir":"n"}']);
  // Whole responses.
  const whole = JSON.parse(calls);
  assert.equal(ollamaToolArguments(whole, { name: 'act' }), '{"i":2}');
  assert.throws(
    () => ollamaText(whole),
    (e) => e.code === 'no_text' && /ollamaToolArguments/.test(e.message),
  );
  assert.equal(ollamaText({ response: '{"a": 1}', done: true }), '{"a": 1}');
  assert.equal(ollamaText({ message: { role: 'assistant', content: '' }, done: true }), '');
  assert.throws(
    () => ollamaText({ error: 'model "x" not found, try pulling it first' }),
    (e) => e instanceof ProviderError && /not found/.test(e.message),
  );
});

test('an HTTP error body whose error is a string (Ollama, some OpenAI-compatible servers) is in the message', async () => {
  const fetchLike = async () =>
    Response.json({ error: "model 'qwen9' not found, try pulling it first" }, { status: 404 });
  await assert.rejects(
    createOpenAIQuery({ model: 'qwen9', fetch: fetchLike })('p'),
    (e) => e instanceof ProviderError && e.status === 404 && /HTTP 404.*model 'qwen9' not found/.test(e.message),
  );
});

test('providerText tells each provider’s whole response by its shape', () => {
  const text = 'Sure: {"a": 1,}';
  assert.equal(providerText(completion({ role: 'assistant', content: text })), text);
  assert.equal(
    providerText(response([{ type: 'message', content: [{ type: 'output_text', text }] }])),
    text,
    'Responses API',
  );
  assert.equal(providerText({ type: 'message', role: 'assistant', content: [{ type: 'text', text }] }), text);
  assert.equal(providerText({ candidates: [{ content: { parts: [{ text }] }, index: 0 }] }), text);
  assert.equal(providerText({ model: 'm', message: { role: 'assistant', content: text }, done: true }), text);
  assert.equal(providerText({ model: 'm', response: text, done: true }), text);
  // Errors in each provider's shape are that provider's ProviderError.
  const fails = (value, provider, status) => () =>
    assert.throws(
      () => providerText(value),
      (e) => e instanceof ProviderError && e.provider === provider && e.status === status,
    );
  fails({ error: { message: 'slow', type: 'rate_limit_exceeded' } }, 'openai', 429)();
  fails({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }, 'anthropic', 529)();
  fails({ error: { code: 503, message: 'down', status: 'UNAVAILABLE' } }, 'gemini', 503)();
  fails({ error: 'model not found' }, 'ollama', undefined)();
  for (const bad of [null, 'text', [], { text }])
    assert.throws(
      () => providerText(bad),
      (e) => e instanceof TypeError && /not a response of OpenAI/.test(e.message),
    );
});

test('providerToolArguments reads each provider’s tool call by its shape', () => {
  const fn = { name: 'act', arguments: '{"i": 1}' };
  assert.equal(
    providerToolArguments(completion({ role: 'assistant', content: null, tool_calls: [{ function: fn }] })),
    '{"i": 1}',
  );
  assert.equal(providerToolArguments(response([{ type: 'function_call', ...fn }]), { name: 'act' }), '{"i": 1}');
  assert.equal(
    providerToolArguments({ type: 'message', content: [{ type: 'tool_use', name: 'act', input: { i: 1 } }] }),
    '{"i":1}',
  );
  assert.equal(
    providerToolArguments({
      candidates: [{ content: { parts: [{ functionCall: { name: 'act', args: { i: 1 } } }] } }],
    }),
    '{"i":1}',
  );
  assert.equal(
    providerToolArguments({
      message: { content: '', tool_calls: [{ function: { name: 'act', arguments: { i: 1 } } }] },
      done: true,
    }),
    '{"i":1}',
  );
  assert.throws(
    () => providerToolArguments({ candidates: [] }, { name: 'x' }),
    (e) => e.code === 'no_tool_call',
  );
  assert.throws(() => providerToolArguments({}), TypeError);
});

test('content parts in a chat stream (Mistral’s reasoning models): text parts are the text, thinking parts the reasoning', async () => {
  const chunk = (content) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content } }] })}\n\n`;
  const body = [
    chunk([{ type: 'thinking', thinking: [{ type: 'text', text: 'They want ' }] }]),
    chunk([{ type: 'thinking', thinking: [{ type: 'text', text: 'a list.' }] }]),
    chunk([{ type: 'text', text: '[1, ' }]),
    chunk('2'),
    chunk([{ type: 'text', text: ']' }, { type: 'image_url' }]),
    'data: [DONE]\n\n',
  ];
  const thoughts = [];
  assert.equal((await all(openAITextStream(body, { onReasoning: (t) => thoughts.push(t) }))).join(''), '[1, 2]');
  assert.equal(thoughts.join(''), 'They want a list.');
  // The whole message of such a model: its text parts, the thinking left out.
  const message = {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: [{ type: 'text', text: 'Hm.' }] },
      { type: 'text', text: '{"a": 1}' },
    ],
  };
  assert.equal(openAIText(completion(message)), '{"a": 1}');
});
