// The providers' own npm clients (openai, @anthropic-ai/sdk, @google/genai, ollama) against a local server
// that speaks each protocol: their stream objects go straight into objectStream and the provider readers, and
// their whole responses into openAIText, anthropicText and geminiText, as a user of those clients writes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import { streamText } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { AIMessageChunk } from '@langchain/core/messages';
import { z } from 'zod';
import {
  objectStream,
  extract,
  openAIText,
  openAIToolArguments,
  openAITextStream,
  anthropicText,
  anthropicTextStream,
  geminiText,
  geminiFunctionArguments,
  geminiTextStream,
  parseAndRepair,
  ProviderError,
  createGeminiQuery,
  queryWithCorrection,
  ollamaText,
  ollamaToolArguments,
  ollamaTextStream,
} from 'llm-response-sanitizer';

const Turn = z.object({ chosenIndex: z.number().int(), speech: z.string(), mood: z.enum(['calm', 'angry']) });
const answer =
  '<think>Draft: {"chosenIndex": 9}</think>\n```json\n{"chosenIndex": "2", "speech": "Halt — who goes there? 🙂", "mood": "Angry",}\n```';
const expected = { chosenIndex: 2, speech: 'Halt — who goes there? 🙂', mood: 'angry' };
const pieces = answer.match(/.{1,4}/gsu);
const thought = 'The guard is wary.';
const args = "{'chosenIndex': 3, 'speech': 'Run', 'mood': 'calm',}";

const sse = (events) =>
  events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('');

/** Each route: the whole JSON answer, and the event stream. */
const routes = {
  '/v1/chat/completions': {
    json: () => ({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
    }),
    stream: () =>
      `${sse(
        [{ role: 'assistant', reasoning_content: thought }, ...pieces.map((content) => ({ content }))].map((delta) => [
          '',
          { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta }] },
        ]),
      )}data: [DONE]\n\n`,
  },
  '/v1/responses': {
    json: () => ({
      id: 'r',
      object: 'response',
      status: 'completed',
      model: 'm',
      output: [
        {
          type: 'message',
          id: 'msg',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: answer, annotations: [] }],
        },
        { type: 'function_call', id: 'fc', call_id: 'call', name: 'act', arguments: args, status: 'completed' },
      ],
    }),
    stream: () =>
      sse(
        [
          { type: 'response.created', response: { id: 'r', object: 'response', status: 'in_progress', output: [] } },
          {
            type: 'response.reasoning_summary_text.delta',
            item_id: 'rs',
            output_index: 0,
            summary_index: 0,
            delta: thought,
          },
          ...pieces.map((delta) => ({
            type: 'response.output_text.delta',
            item_id: 'msg',
            output_index: 1,
            content_index: 0,
            delta,
          })),
          { type: 'response.output_text.done', item_id: 'msg', output_index: 1, content_index: 0, text: answer },
          {
            type: 'response.output_item.added',
            output_index: 2,
            item: { type: 'function_call', id: 'fc', call_id: 'call', name: 'act', arguments: '' },
          },
          ...args.match(/.{1,7}/gsu).map((delta) => ({
            type: 'response.function_call_arguments.delta',
            item_id: 'fc',
            output_index: 2,
            delta,
          })),
          { type: 'response.completed', response: { id: 'r', object: 'response', status: 'completed', output: [] } },
        ].map((e, k) => [e.type, { ...e, sequence_number: k }]),
      ),
  },
  '/v1/messages': {
    json: () => ({
      id: 'm',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [
        { type: 'thinking', thinking: thought, signature: 's' },
        { type: 'text', text: answer },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
    stream: () =>
      sse(
        [
          {
            type: 'message_start',
            message: {
              id: 'm',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [],
              usage: { input_tokens: 1, output_tokens: 0 },
            },
          },
          { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: thought } },
          { type: 'content_block_stop', index: 0 },
          { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
          ...pieces.map((text) => ({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } })),
          { type: 'content_block_stop', index: 1 },
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 9 },
          },
          { type: 'message_stop' },
        ].map((e) => [e.type, e]),
      ),
  },
  '/v1beta/models/m:generateContent': {
    json: () => ({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: thought, thought: true },
              { text: answer },
              { functionCall: { name: 'act', args: { chosenIndex: 3 } } },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      modelVersion: 'm',
    }),
  },
  '/v1beta/models/m:streamGenerateContent': {
    stream: () =>
      sse(
        [[{ text: thought, thought: true }], ...pieces.map((text) => [{ text }])].map((parts, k) => [
          '',
          {
            candidates: [
              { content: { role: 'model', parts }, index: 0, ...(k === pieces.length ? { finishReason: 'STOP' } : {}) },
            ],
            modelVersion: 'm',
          },
        ]),
      ),
  },
  '/api/chat': {
    json: () => ({
      model: 'm',
      created_at: '2026-01-01T00:00:00Z',
      message: {
        role: 'assistant',
        content: answer,
        thinking: thought,
        tool_calls: [{ function: { name: 'act', arguments: { chosenIndex: 3 } } }],
      },
      done: true,
      done_reason: 'stop',
    }),
    // Newline-delimited JSON, as Ollama streams unless told not to.
    ndjson: () =>
      [
        { message: { role: 'assistant', content: '', thinking: thought }, done: false },
        ...pieces.map((content) => ({ message: { role: 'assistant', content }, done: false })),
        { message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', eval_count: 9 },
      ]
        .map((chunk) => `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', ...chunk })}\n`)
        .join(''),
  },
  '/api/generate': {
    ndjson: () =>
      [...pieces.map((response) => ({ response, done: false })), { response: '', done: true, done_reason: 'stop' }]
        .map((chunk) => `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', ...chunk })}\n`)
        .join(''),
  },
  '/v1beta/models/blocked:streamGenerateContent': {
    stream: () => sse([['', { promptFeedback: { blockReason: 'SAFETY' } }]]),
  },
};

let server;
let url;
const requests = [];
before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const path = new URL(req.url, 'http://x').pathname;
      requests.push({
        path,
        query: new URL(req.url, 'http://x').search,
        headers: req.headers,
        body: body === '' ? undefined : JSON.parse(body),
      });
      const route = routes[path];
      if (route === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
      }
      const asked = JSON.parse(body);
      // Ollama streams unless `stream` is false; the others stream when it is true.
      const ndjson = route.ndjson !== undefined && asked.stream !== false;
      const streaming = ndjson || path.endsWith(':streamGenerateContent') || asked.stream === true;
      if (!streaming) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(route.json()));
      }
      // In pieces of 64 bytes: events, lines and characters split across reads.
      res.writeHead(200, { 'content-type': ndjson ? 'application/x-ndjson' : 'text/event-stream' });
      const bytes = Buffer.from(ndjson ? route.ndjson() : route.stream(), 'utf8');
      let at = 0;
      const timer = setInterval(() => {
        if (at >= bytes.length) {
          clearInterval(timer);
          return res.end();
        }
        res.write(bytes.subarray(at, (at += 64)));
      }, 0);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

const openai = () => new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
const ollama = () => new Ollama({ host: url });
const gemini = () => new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: url, apiVersion: 'v1beta' } });
const messages = [{ role: 'user', content: 'Who goes there?' }];

/** The stream each client returns for the same question. */
const clientStreams = {
  'openai chat.completions': () => openai().chat.completions.create({ model: 'm', messages, stream: true }),
  'openai responses': () => openai().responses.create({ model: 'm', input: 'Who goes there?', stream: true }),
  'anthropic messages': () => anthropic().messages.create({ model: 'm', max_tokens: 100, messages, stream: true }),
  'google genai': () => gemini().models.generateContentStream({ model: 'm', contents: 'Who goes there?' }),
  'ollama chat': () => ollama().chat({ model: 'm', messages, stream: true, think: true }),
  'ollama generate': () => ollama().generate({ model: 'm', prompt: 'Who goes there?', stream: true }),
  'fetch of ollama /api/chat (application/x-ndjson)': () =>
    fetch(`${url}/api/chat`, { method: 'POST', body: JSON.stringify({ model: 'm', messages }) }),
};

for (const [name, open] of Object.entries(clientStreams)) {
  test(`objectStream reads the ${name} client's stream: partial values, reasoning apart, the checked result`, async () => {
    const stream = objectStream(await open(), { schema: Turn });
    const shown = [];
    for await (const { partial, done } of stream) if (!done) shown.push(structuredClone(partial));
    assert.deepEqual((await stream.result).value, expected);
    assert.equal(await stream.text, answer);
    // Ollama's generate sends no thinking here; every other stream does.
    const thoughts = name === 'ollama generate' ? '' : 'The guard is wary.\n\n';
    assert.equal(await stream.reasoning, `${thoughts}Draft: {"chosenIndex": 9}`);
    assert.ok(
      shown.some(
        (p) => typeof p?.speech === 'string' && p.speech.length > 0 && p.speech.length < expected.speech.length,
      ),
      'the speech grows as it arrives',
    );
    assert.ok(!shown.some((p) => p?.chosenIndex === 9), 'the draft in the reasoning was shown');
    assert.deepEqual(await stream.result, extract(answer, Turn));
  });
}

test('the text readers take the clients’ streams too, and their whole responses', async () => {
  const text = async (deltas) => {
    let all = '';
    for await (const d of deltas) all += d;
    return all;
  };
  assert.equal(await text(openAITextStream(await clientStreams['openai chat.completions']())), answer);
  assert.equal(await text(openAITextStream(await clientStreams['openai responses']())), answer);
  assert.equal(await text(anthropicTextStream(await clientStreams['anthropic messages']())), answer);
  const thoughts = [];
  assert.equal(
    await text(geminiTextStream(await clientStreams['google genai'](), { onReasoning: (t) => thoughts.push(t) })),
    answer,
  );
  assert.deepEqual(thoughts, [thought]);
  // A function call's arguments from the Responses API client's stream.
  const called = await text(openAITextStream(await clientStreams['openai responses'](), { toolArguments: 'act' }));
  assert.deepEqual(parseAndRepair(called), { chosenIndex: 3, speech: 'Run', mood: 'calm' });

  assert.equal(openAIText(await openai().chat.completions.create({ model: 'm', messages })), answer);
  const response = await openai().responses.create({ model: 'm', input: 'Who goes there?' });
  assert.equal(openAIText(response), answer);
  assert.equal(openAIText(response), response.output_text, 'the text the client itself gives');
  assert.equal(openAIToolArguments(response, { name: 'act' }), args);
  assert.equal(anthropicText(await anthropic().messages.create({ model: 'm', max_tokens: 100, messages })), answer);
  assert.equal(await text(ollamaTextStream(await clientStreams['ollama chat']())), answer);
  assert.equal(
    await text(ollamaTextStream(await clientStreams['fetch of ollama /api/chat (application/x-ndjson)']())),
    answer,
  );
  const chat = await ollama().chat({ model: 'm', messages, stream: false });
  assert.equal(ollamaText(chat), answer);
  assert.equal(ollamaToolArguments(chat, { name: 'act' }), '{"chosenIndex":3}');
  const generated = await gemini().models.generateContent({ model: 'm', contents: 'Who goes there?' });
  assert.equal(geminiText(generated), answer);
  assert.equal(geminiFunctionArguments(generated), '{"chosenIndex":3}');
});

test('a blocked Gemini prompt is a refusal, not an empty answer; the requests went where each client sends them', async () => {
  const blocked = gemini().models.generateContentStream({ model: 'blocked', contents: 'x' });
  await assert.rejects(
    objectStream(await blocked, { schema: Turn }).result,
    (e) => e instanceof ProviderError && e.provider === 'gemini' && e.code === 'refusal' && /SAFETY/.test(e.message),
  );
  const paths = new Set(requests.map((r) => r.path));
  for (const path of Object.keys(routes)) assert.ok(paths.has(path), `${path} was asked`);
  assert.ok(requests.some((r) => r.path.endsWith(':streamGenerateContent') && r.query === '?alt=sse'));
});

test('createGeminiQuery asks generateContent and streamGenerateContent as the Gemini API takes them', async () => {
  const options = {
    baseURL: `${url}/v1beta/`,
    model: 'm',
    apiKey: 'k',
    system: 'Answer as the guard.',
    temperature: 0,
    maxTokens: 300,
    body: { generationConfig: { responseMimeType: 'application/json' } },
  };
  const from = requests.length;
  assert.equal(await createGeminiQuery(options)('Who goes there?'), answer);
  const deltas = [];
  assert.equal(
    await createGeminiQuery({ ...options, stream: true, onDelta: (d) => deltas.push(d) })('Who goes there?'),
    answer,
  );
  assert.equal(deltas.join(''), answer);
  const [whole, streamed] = requests.slice(from);
  assert.equal(whole.path, '/v1beta/models/m:generateContent');
  assert.equal(streamed.path, '/v1beta/models/m:streamGenerateContent');
  assert.equal(streamed.query, '?alt=sse');
  assert.equal(whole.headers['x-goog-api-key'], 'k');
  for (const r of [whole, streamed])
    assert.deepEqual(r.body, {
      contents: [{ role: 'user', parts: [{ text: 'Who goes there?' }] }],
      systemInstruction: { parts: [{ text: 'Answer as the guard.' }] },
      generationConfig: { temperature: 0, maxOutputTokens: 300, responseMimeType: 'application/json' },
    });
  // The self-correcting loop on top of it.
  const { value, attempts } = await queryWithCorrection({
    query: createGeminiQuery(options),
    prompt: 'Who goes there?',
    schema: Turn,
  });
  assert.deepEqual(value, expected);
  assert.equal(attempts, 1);
});

/** A model for the AI SDK's streamText: reasoning, the answer in pieces, then a tool call's input in deltas. */
const aiModel = () =>
  new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: thought },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 't' },
        ...pieces.map((delta) => ({ type: 'text-delta', id: 't', delta })),
        { type: 'text-end', id: 't' },
        { type: 'tool-input-start', id: 'c1', toolName: 'act' },
        ...args.match(/.{1,6}/gsu).map((delta) => ({ type: 'tool-input-delta', id: 'c1', delta })),
        { type: 'tool-input-end', id: 'c1' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'act', input: args },
        {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
        },
      ]),
    }),
  });

test("the AI SDK's streams: fullStream, the UI message stream and its Response, text and a tool call's input", async () => {
  const sources = {
    fullStream: () => streamText({ model: aiModel(), prompt: 'x' }).fullStream,
    'toUIMessageStream()': () => streamText({ model: aiModel(), prompt: 'x' }).toUIMessageStream(),
    'toUIMessageStreamResponse()': () => streamText({ model: aiModel(), prompt: 'x' }).toUIMessageStreamResponse(),
  };
  for (const [name, open] of Object.entries(sources)) {
    const stream = objectStream(open(), { schema: Turn });
    const shown = [];
    for await (const { partial, done } of stream) if (!done) shown.push(structuredClone(partial));
    assert.deepEqual((await stream.result).value, expected, name);
    assert.equal(await stream.text, answer, name);
    assert.equal(await stream.reasoning, `${thought}\n\nDraft: {"chosenIndex": 9}`, name);
    assert.ok(
      shown.some((p) => typeof p?.speech === 'string' && p.speech.length < expected.speech.length),
      name,
    );
    assert.ok(!shown.some((p) => p?.chosenIndex === 9), `${name}: the draft in the reasoning was shown`);
    const called = objectStream(open(), { schema: Turn, tool: 'act' });
    assert.deepEqual((await called.result).value, { chosenIndex: 3, speech: 'Run', mood: 'calm' }, `${name}, tool`);
  }
});

test("a LangChain chat model's stream: AIMessageChunks, their content blocks, reasoning and tool call chunks", async () => {
  // A chat model's own stream: one chunk per character of the answer.
  const model = new FakeListChatModel({ responses: [answer] });
  const stream = objectStream(await model.stream('Who goes there?'), { schema: Turn });
  let updates = 0;
  for await (const { done } of stream) if (!done) updates++;
  assert.deepEqual((await stream.result).value, expected);
  assert.equal(await stream.text, answer);
  assert.ok(updates > 10);
  // Chunks as reasoning models and tool calls write them, built with LangChain's own class.
  const chunks = () => [
    new AIMessageChunk({ content: '', additional_kwargs: { reasoning_content: 'Hm, ' } }),
    new AIMessageChunk({ content: [{ type: 'reasoning', reasoning: 'two.' }] }),
    ...pieces.map((text) => new AIMessageChunk({ content: [{ type: 'text', text }] })),
    new AIMessageChunk({
      content: '',
      tool_call_chunks: [{ name: 'act', args: "{'chosenIndex': 3, ", id: 'c', index: 0 }],
    }),
    new AIMessageChunk({ content: '', tool_call_chunks: [{ args: "'speech': 'Run', 'mood': 'calm'}", index: 0 }] }),
  ];
  const blocks = objectStream(chunks(), { schema: Turn });
  assert.deepEqual((await blocks.result).value, expected);
  assert.equal(await blocks.reasoning, 'Hm, two.\n\nDraft: {"chosenIndex": 9}');
  const called = objectStream(chunks(), { schema: Turn, tool: 'act' });
  assert.deepEqual((await called.result).value, { chosenIndex: 3, speech: 'Run', mood: 'calm' });
});
