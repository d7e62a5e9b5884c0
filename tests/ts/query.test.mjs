// queryWithCorrection driven as the EntityScout agent drives it, with the network parts against a real local
// HTTP server speaking the OpenAI chat-completions protocol (JSON and SSE), replaying malformed answers,
// schema failures, 429s, 503s, error events and dropped connections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  queryWithCorrection,
  isTransportError,
  createOpenAIQuery,
  SchemaValidationError,
  ProviderError,
  compileSchema,
} from 'llm-response-sanitizer';
import { startOpenAIServer } from '../../examples/entity-scout/openai-server.mjs';

const TURN = {
  type: 'object',
  properties: {
    chosenIndex: { type: 'integer', minimum: 1 },
    speech: { type: 'string', minLength: 1 },
    mood: { enum: ['calm', 'angry'] },
  },
  required: ['chosenIndex', 'speech', 'mood'],
  additionalProperties: false,
};
const GOOD = { chosenIndex: 2, speech: 'Sit by the fire.', mood: 'calm' };
const MESSY =
  '<think>They look calm.</think>Sure! Here is the JSON:\n```json\n{\'chosenIndex\': \'2\', "speech": "Sit by the fire.", "mood": "calm",}\n```';
// Three problems at once: a missing property, a wrong enum value, an extra property.
const WRONG = '{"chosenIndex": 2, "mood": "furious", "volume": 11}';
const fast = { initialDelayMs: 5, maxDelayMs: 40, jitter: false };

async function withServer(respond, fn) {
  const server = await startOpenAIServer(respond);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

test('a malformed first answer is repaired and coerced: one attempt, its repairs and coercions in the history', async () => {
  await withServer(
    () => ({ content: MESSY }),
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, apiKey: 'k', model: 'local' });
      const seen = [];
      const r = await queryWithCorrection({ query, prompt: 'Choose.', schema: TURN, onAttempt: (e) => seen.push(e) });
      assert.deepEqual(r.value, GOOD);
      assert.equal(r.attempts, 1);
      assert.equal(r.history.length, 1);
      assert.deepEqual(seen, r.history);
      const [h] = r.history;
      assert.equal(h.kind, 'answer');
      assert.equal(h.ok, true);
      assert.equal(h.response, MESSY);
      assert.deepEqual(h.repairs.map((x) => x.kind).sort(), ['single_quotes', 'single_quotes', 'trailing_comma']);
      assert.deepEqual(
        h.coercions.map((c) => [c.path, c.rule]),
        [['/chosenIndex', 'string_to_integer']],
      );
      assert.equal(server.requests[0].headers.authorization, 'Bearer k');
      assert.equal(server.requests[0].body.model, 'local');
      assert.equal(server.requests[0].prompt, 'Choose.');
    },
  );
});

test('a schema failure is fed back with every issue, the schema and the task; the corrected answer wins', async () => {
  await withServer(
    (_req, n) => ({ content: n === 0 ? WRONG : JSON.stringify(GOOD) }),
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const r = await queryWithCorrection({ query, prompt: 'Choose an option for the innkeeper.', schema: TURN });
      assert.deepEqual(r.value, GOOD);
      assert.equal(r.attempts, 2);
      assert.deepEqual(
        r.history.map((h) => [h.kind, h.attempt, h.ok]),
        [
          ['answer', 1, false],
          ['answer', 2, true],
        ],
      );
      const second = server.requests[1].prompt;
      assert.ok(
        second.startsWith('Choose an option for the innkeeper.'),
        'the task is repeated for a stateless endpoint',
      );
      assert.match(second, /missing required property "speech"/);
      assert.match(second, /\/mood: must be one of "calm", "angry"; received "furious"/);
      assert.match(second, /property "volume" is not allowed/);
      assert.ok(second.includes(JSON.stringify(TURN)), 'the schema is included');
      assert.ok(second.includes(WRONG), 'the rejected answer is quoted');
      assert.equal(r.history[1].prompt, second);
    },
  );
});

test('when every answer fails, SchemaValidationError carries the last issues, the honest attempt count and the history', async () => {
  let calls = 0;
  const query = async () => {
    calls++;
    return WRONG;
  };
  await assert.rejects(queryWithCorrection({ query, prompt: 'p', schema: TURN, maxRetries: 2 }), (e) => {
    assert.ok(e instanceof SchemaValidationError);
    assert.equal(e.name, 'SchemaValidationError');
    assert.equal(e.attempts, 3);
    assert.equal(e.history.length, 3);
    assert.equal(e.lastResponse, WRONG);
    assert.deepEqual(e.issues.map((i) => i.keyword).sort(), ['additionalProperties', 'enum', 'required']);
    assert.match(e.message, /after 3 attempts/);
    return true;
  });
  assert.equal(calls, 3);
  // maxRetries 0: one answer, no correction.
  calls = 0;
  await assert.rejects(
    queryWithCorrection({ query, prompt: 'p', schema: TURN, maxRetries: 0 }),
    (e) => e.attempts === 1,
  );
  assert.equal(calls, 1);
});

test('an answer with no JSON at all is corrected like any other failure', async () => {
  const prompts = [];
  const answers = ['I cannot decide right now, sorry.', JSON.stringify(GOOD)];
  const r = await queryWithCorrection({
    query: (p) => (prompts.push(p), answers[prompts.length - 1]),
    prompt: 'p',
    schema: TURN,
  });
  assert.equal(r.attempts, 2);
  assert.match(prompts[1], /No JSON value could be read/);
});

test('429 and 503 are retried with exponential backoff and Retry-After, never fed back, never counted as attempts', async () => {
  await withServer(
    (_req, n) =>
      n === 0
        ? { status: 429, error: 'slow down', headers: { 'retry-after-ms': '30' } }
        : n === 1
          ? { status: 503, error: 'overloaded' }
          : n === 2
            ? { status: 502 }
            : { content: MESSY },
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const r = await queryWithCorrection({ query, prompt: 'Choose.', schema: TURN, backoff: fast });
      assert.deepEqual(r.value, GOOD);
      assert.equal(r.attempts, 1, 'transport failures are not attempts');
      const kinds = r.history.map((h) => h.kind);
      assert.deepEqual(kinds, ['transport_error', 'transport_error', 'transport_error', 'answer']);
      // Retry-After (30 ms) beats the first backoff step (5 ms); then 10 and 20 ms.
      assert.deepEqual(
        r.history.slice(0, 3).map((h) => h.retryInMs),
        [30, 10, 20],
      );
      assert.deepEqual(
        r.history.slice(0, 3).map((h) => h.error.status),
        [429, 503, 502],
      );
      assert.ok(r.history[0].error instanceof ProviderError);
      assert.equal(r.history[0].error.retryAfterMs, 30);
      // The same prompt each time: a transport error is not the model's fault.
      assert.deepEqual(
        server.requests.map((q) => q.prompt),
        ['Choose.', 'Choose.', 'Choose.', 'Choose.'],
      );
    },
  );
});

test('transport retries are per answer, and when they run out the transport error itself rejects', async () => {
  await withServer(
    () => ({ status: 503, error: 'down' }),
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const seen = [];
      await assert.rejects(
        queryWithCorrection({
          query,
          prompt: 'p',
          schema: TURN,
          backoff: { ...fast, maxRetries: 2 },
          onAttempt: (e) => seen.push(e),
        }),
        (e) => e instanceof ProviderError && e.status === 503 && /HTTP 503.*down/.test(e.message),
      );
      assert.equal(server.requests.length, 3);
      assert.deepEqual(
        seen.map((h) => h.retryInMs),
        [5, 10, undefined],
      );
    },
  );
  // After a schema failure the transport count starts again.
  await withServer(
    (_req, n) => [{ status: 503 }, { content: WRONG }, { status: 429 }, { content: JSON.stringify(GOOD) }][n],
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const r = await queryWithCorrection({ query, prompt: 'p', schema: TURN, backoff: { ...fast, maxRetries: 1 } });
      assert.equal(r.attempts, 2);
      assert.deepEqual(
        r.history.map((h) => `${h.kind}:${h.attempt}`),
        ['transport_error:1', 'answer:1', 'transport_error:2', 'answer:2'],
      );
      assert.ok(!server.requests[2].prompt.includes('503') && !server.requests[2].prompt.includes('429'));
    },
  );
});

test('other HTTP errors (400, 401) end the loop at once', async () => {
  for (const status of [400, 401, 404]) {
    await withServer(
      () => ({ status, error: 'nope' }),
      async (server) => {
        const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
        await assert.rejects(
          queryWithCorrection({ query, prompt: 'p', schema: TURN, backoff: fast }),
          (e) => e instanceof ProviderError && e.status === status,
        );
        assert.equal(server.requests.length, 1);
      },
    );
  }
});

test('a dropped connection is a network error and is retried', async () => {
  await withServer(
    (_req, n) => (n === 0 ? { drop: true } : { content: JSON.stringify(GOOD) }),
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const r = await queryWithCorrection({ query, prompt: 'p', schema: TURN, backoff: fast });
      assert.equal(r.attempts, 1);
      assert.equal(r.history[0].kind, 'transport_error');
      assert.equal(r.history[0].error.name, 'TypeError');
      assert.ok(isTransportError(r.history[0].error));
    },
  );
});

test('streaming: deltas arrive as they are sent, an error event mid-stream is retried, a malformed streamed answer is repaired', async () => {
  await withServer(
    (_req, n) =>
      n === 0 ? { streamError: 'upstream died', after: '{"chosenIndex": 2, "spe' } : { content: MESSY, chunkSize: 3 },
    async (server) => {
      const deltas = [];
      const query = createOpenAIQuery({
        baseURL: server.url,
        model: 'local',
        stream: true,
        onDelta: (d) => deltas.push(d),
      });
      const r = await queryWithCorrection({ query, prompt: 'p', schema: TURN, backoff: fast });
      assert.deepEqual(r.value, GOOD);
      assert.equal(r.attempts, 1);
      assert.equal(r.history[0].kind, 'transport_error');
      assert.equal(r.history[0].error.status, 500);
      assert.match(r.history[0].error.message, /upstream died/);
      assert.equal(server.requests[1].body.stream, true);
      // The second stream's deltas, 3 characters each, make up the answer.
      const second = deltas.slice(deltas.length - Math.ceil(MESSY.length / 3));
      assert.equal(second.join(''), MESSY);
      assert.ok(second.every((d) => d.length <= 3));
    },
  );
});

test('an aborted signal rejects with an AbortError: before the start, during a backoff wait, during a hung call', async () => {
  let calls = 0;
  const pre = new AbortController();
  pre.abort();
  await assert.rejects(
    queryWithCorrection({ query: () => (calls++, '{}'), prompt: 'p', schema: TURN, signal: pre.signal }),
    { name: 'AbortError' },
  );
  assert.equal(calls, 0);

  await withServer(
    () => ({ status: 503 }),
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const c = new AbortController();
      const started = Date.now();
      const p = queryWithCorrection({
        query,
        prompt: 'p',
        schema: TURN,
        signal: c.signal,
        backoff: { initialDelayMs: 60_000, jitter: false },
        onAttempt: () => setTimeout(() => c.abort(), 10),
      });
      await assert.rejects(p, (e) => e.name === 'AbortError' && e instanceof DOMException);
      assert.ok(Date.now() - started < 5_000, 'the backoff wait was cut short');
    },
  );

  // A call that never answers: the signal is passed to fetch, and the loop rejects at once either way.
  await withServer(
    () => new Promise(() => {}),
    async (server) => {
      const query = createOpenAIQuery({ baseURL: server.url, model: 'local' });
      const c = new AbortController();
      setTimeout(() => c.abort(), 30);
      await assert.rejects(queryWithCorrection({ query, prompt: 'p', schema: TURN, signal: c.signal }), {
        name: 'AbortError',
      });
    },
  );
  const c = new AbortController();
  const never = (_p, ctx) => {
    assert.equal(ctx.signal, c.signal);
    return new Promise(() => {});
  };
  setTimeout(() => c.abort(new Error('user left')), 10);
  await assert.rejects(
    queryWithCorrection({ query: never, prompt: 'p', schema: TURN, signal: c.signal }),
    (e) => e.name === 'AbortError' && e.cause?.message === 'user left',
  );
});

test('query gets the attempt number, whether it is a correction, and the history so far', async () => {
  const contexts = [];
  await queryWithCorrection({
    query: (_p, ctx) => (contexts.push(ctx), contexts.length === 1 ? WRONG : JSON.stringify(GOOD)),
    prompt: 'p',
    schema: TURN,
  });
  assert.deepEqual(
    contexts.map((c) => [c.attempt, c.correction, c.history.length]),
    [
      [1, false, 0],
      [2, true, 1],
    ],
  );
});

test('a custom correction prompt and a compiled schema are used as given (and the compiled schema is not freed)', async () => {
  const schema = compileSchema(TURN);
  const prompts = [];
  const r = await queryWithCorrection({
    query: (p) => (prompts.push(p), prompts.length === 1 ? WRONG : JSON.stringify(GOOD)),
    prompt: 'p',
    schema,
    correctionPrompt: ({ issues, attempt }) => `fix ${issues.length} problems of answer ${attempt}`,
  });
  assert.equal(r.attempts, 2);
  assert.equal(prompts[1], 'fix 3 problems of answer 1');
  assert.equal(schema.validate(GOOD).valid, true);
  schema.free();
});

test('bad options and bad answers are typed errors; errors that are not transport errors are not retried', async () => {
  const ok = { query: () => '{}', prompt: 'p', schema: TURN };
  await assert.rejects(queryWithCorrection({ ...ok, query: undefined }), TypeError);
  await assert.rejects(queryWithCorrection({ ...ok, prompt: 42 }), TypeError);
  await assert.rejects(queryWithCorrection({ ...ok, maxRetries: -1 }), RangeError);
  await assert.rejects(queryWithCorrection({ ...ok, backoff: { initialDelayMs: Number.NaN } }), RangeError);
  await assert.rejects(queryWithCorrection({ ...ok, signal: {} }), TypeError);
  await assert.rejects(queryWithCorrection({ ...ok, schema: 'not a schema' }), TypeError);
  await assert.rejects(
    queryWithCorrection({ ...ok, query: () => ({ text: '{}' }) }),
    /must resolve to a string, got object/,
  );
  let calls = 0;
  const bug = new Error('bug in the caller');
  await assert.rejects(queryWithCorrection({ ...ok, query: () => (calls++, Promise.reject(bug)) }), (e) => e === bug);
  assert.equal(calls, 1);
});

test('isTransportError: statuses, network codes, fetch failures, and not the rest', () => {
  const withFields = (fields, base = new Error('x')) => Object.assign(base, fields);
  for (const status of [408, 429, 500, 502, 503, 529])
    assert.equal(isTransportError(withFields({ status })), true, `status ${status}`);
  for (const status of [400, 401, 403, 404, 422])
    assert.equal(isTransportError(withFields({ status })), false, `status ${status}`);
  assert.equal(isTransportError(withFields({ statusCode: 503 })), true);
  assert.equal(isTransportError(withFields({ response: { status: 429 } })), true);
  assert.equal(isTransportError(withFields({ code: 'ECONNRESET' })), true);
  assert.equal(
    isTransportError(new TypeError('fetch failed', { cause: withFields({ code: 'UND_ERR_SOCKET' }) })),
    true,
  );
  assert.equal(isTransportError(new TypeError('Failed to fetch')), true);
  assert.equal(isTransportError(new TypeError('x is not a function')), false);
  assert.equal(isTransportError(new DOMException('stop', 'AbortError')), false);
  assert.equal(isTransportError({ status: 503 }), false, 'only Errors');
  assert.equal(isTransportError(new SyntaxError('Unexpected token')), false);
});

test('check: problems the schema cannot express fail the answer and are fed back like schema issues', async () => {
  const prompts = [];
  const answers = ['{"from": 9, "to": 3}', '{"from": 3, "to": 9}'];
  const r = await queryWithCorrection({
    query: (p) => (prompts.push(p), answers[prompts.length - 1]),
    prompt: 'Give a range.',
    schema: {
      type: 'object',
      properties: { from: { type: 'integer' }, to: { type: 'integer' } },
      required: ['from', 'to'],
    },
    check: (v) => (v.to < v.from ? [{ path: '/to', message: `must not be below from (${v.from})` }] : []),
  });
  assert.deepEqual(r.value, { from: 3, to: 9 });
  assert.equal(r.attempts, 2);
  assert.deepEqual(
    r.history[0].issues.map((i) => [i.path, i.keyword]),
    [['/to', 'check']],
  );
  assert.match(prompts[1], /\/to: must not be below from \(9\) \(received integer 3\)/);
  await assert.rejects(
    queryWithCorrection({ query: () => '{}', prompt: 'p', schema: {}, check: () => 'bad' }),
    TypeError,
  );
  await assert.rejects(
    queryWithCorrection({ query: () => '{}', prompt: 'p', schema: {}, check: () => [{ path: 1 }] }),
    TypeError,
  );
});
