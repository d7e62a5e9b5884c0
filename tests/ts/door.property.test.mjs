// Properties of the public API under random chunkings of hostile text (fast-check): nothing but a typed error
// ever escapes, streaming ends exactly where the one-shot call does, and every partial value is a
// prefix-consistent view of the final one. A short budget here; FUZZ_RUNS raises it for a long run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mentionsReasoning } from './fixtures.mjs';
import { cutAt, piece, text, chunked, outcomeWith, oneShotsOf } from './door-text.mjs';
import {
  PartialJsonParser,
  StreamCleaner,
  parseAndRepair,
  parseDetailed,
  repairJson,
  clean,
  cleanDetailed,
  JsonRepairError,
  partialJsonValues,
  createCleanStream,
  createPartialJsonStream,
  COMMON_THINK_TAGS,
  compileSchema,
  extract,
  repairKinds,
} from 'llm-response-sanitizer';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

/**
 * The same as UTF-8 bytes cut at those places (inside multi-byte characters too), with the text the bytes
 * decode to (lone surrogates become U+FFFD). A text that starts like server-sent events is left out: the
 * stream adapters refuse it, and that case has its own test.
 */
const byteChunked = chunked
  .map(([t, cuts]) => {
    const bytes = new TextEncoder().encode(t);
    return { chunks: cutAt(bytes, cuts), decoded: new TextDecoder().decode(bytes) };
  })
  .filter(({ decoded }) => !/^\ufeff?[\t\n\r ]*(data|event):/.test(decoded));

/** The one-shot outcome: the value as JSON text, or the error's kind. A non-typed error fails the property. */
const outcome = outcomeWith(JsonRepairError);
const oneShot = oneShotsOf({ parseAndRepair, repairJson, parseDetailed, JsonRepairError });

/** The last value of a stream of partial updates, as {@link outcome} gives a one-shot call's. */
async function lastOutcome(updates) {
  try {
    let value;
    for await (const u of updates) value = u.value;
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof JsonRepairError)) throw e;
    return `error ${e.kind}`;
  }
}

/** Whether `partial` is consistent with `final`: every string shown is a prefix of the final one, every key shown is there. */
function consistent(partial, final) {
  if (partial === undefined) return true;
  if (typeof partial === 'string') return typeof final === 'string' && final.startsWith(partial);
  if (partial === null || typeof partial !== 'object')
    return Object.is(partial, final) || (typeof final === 'number' && typeof partial === 'number');
  if (Array.isArray(partial))
    return (
      Array.isArray(final) &&
      partial.length <= final.length &&
      partial.every((v, i) => i === partial.length - 1 || consistent(v, final[i]))
    );
  return (
    final !== null &&
    typeof final === 'object' &&
    !Array.isArray(final) &&
    Object.keys(partial).every((k) => Object.hasOwn(final, k))
  );
}

test('PartialJsonParser: any chunking of any text ends as parseAndRepair does, and nothing untyped escapes', () => {
  fc.assert(
    fc.property(chunked, ([t, cuts]) => {
      const want = outcome(() => parseAndRepair(t));
      const p = new PartialJsonParser();
      const got = outcome(() => {
        for (const c of cutAt(t, cuts)) p.push(c);
        return p.finish();
      });
      p.free();
      assert.equal(got, want);
    }),
    { numRuns: RUNS },
  );
});

test('parseAndRepair, repairJson and parseDetailed agree on every text, whatever its script (each result crosses in its own form)', () => {
  fc.assert(
    fc.property(text, (t) => {
      // In Node, parseAndRepair's value after text beyond Latin-1 comes back as UTF-16 when dense in such
      // characters and as Latin-1 with escapes otherwise, after Latin-1 text as Latin-1; repairJson's and
      // parseDetailed's text as UTF-16 after text beyond Latin-1, else as Latin-1 or UTF-16 as it fits, and
      // parseDetailed's repairs as numbers read from memory: one value, or one error.
      oneShot(t);
    }),
    { numRuns: RUNS },
  );
});

test('PartialJsonParser: partial values shown while a stream grows agree with the final value (when it did not move)', () => {
  fc.assert(
    fc.property(chunked, ([t, cuts]) => {
      let final;
      try {
        final = parseAndRepair(t);
      } catch {
        return;
      }
      // A whole text that is a JSON scalar (`"{"`) is that scalar, which no stream can know before its end.
      if (final === null || typeof final !== 'object') {
        try {
          JSON.parse(t);
          return;
        } catch {
          // not valid JSON: the partial values must agree
        }
      }
      const p = new PartialJsonParser({ snapshots: true });
      const pieces = cutAt(t, cuts);
      const shown = pieces.map((c) => p.push(c).value);
      p.free();
      // The JSON moved when the stream showed a value before the final JSON had begun: an earlier candidate
      // that only the end of the text ruled out (`true[truex[]` is `[]`, as the one-shot locator decides).
      const first = shown.findIndex((v) => v !== undefined);
      const shownFrom = pieces.slice(0, first + 1).reduce((n, c) => n + c.length, 0);
      const moved = first >= 0 && parseDetailed(t).span.start >= shownFrom;
      // The last shown value before the end is a view of the final one unless the JSON moved or was re-read.
      const last = shown.at(-1);
      if (
        last !== undefined &&
        !moved &&
        !consistent(last, final) &&
        !mentionsReasoning(t) &&
        !/<\/?think|<\/?reasoning|```|~~~|,\s*[{["]/i.test(t)
      ) {
        assert.fail(`shown ${JSON.stringify(last)} is not a view of ${JSON.stringify(final)}`);
      }
    }),
    { numRuns: RUNS },
  );
});

test('PartialJsonParser with snapshots: after every chunk the snapshot is the live value, and no snapshot handed out changes', () => {
  fc.assert(
    fc.property(chunked, ([t, cuts]) => {
      const live = new PartialJsonParser();
      const snap = new PartialJsonParser({ snapshots: true });
      const handed = [];
      try {
        for (const c of cutAt(t, cuts)) {
          const a = JSON.stringify(live.push(c).value);
          const b = snap.push(c).value;
          assert.equal(JSON.stringify(b), a);
          handed.push([b, a]);
        }
      } catch (e) {
        if (!(e instanceof JsonRepairError)) throw e;
      } finally {
        live.free();
        snap.free();
      }
      for (const [v, json] of handed) assert.equal(JSON.stringify(v), json);
    }),
    { numRuns: RUNS },
  );
});

test("StreamCleaner: any chunking equals clean(), and its reasoning cleanDetailed()'s, for the default and the common-tags options", () => {
  const options = fc.constantFrom(
    undefined,
    { thinkTags: COMMON_THINK_TAGS },
    { expectOnlyClosingThinkTag: true },
    { removeTimestampPrefix: true, removeAssistantPrefix: true, trim: false },
    { thinkOnly: true, graceIncludesLeadingWhitespace: true, openingTagGracePeriod: 3 },
    {
      expectOnlyClosingThinkTag: true,
      keepTextWithoutClosingTag: true,
      responseStartTextToRemove: ['[', ''],
      responseStartTextToRemoveEndpointWide: [' Assistant: ', '{'],
    },
  );
  fc.assert(
    fc.property(chunked, options, ([t, cuts], o) => {
      const s = new StreamCleaner(o);
      const streamed =
        cutAt(t, cuts)
          .map((c) => s.push(c))
          .join('') + s.finish();
      s.free();
      assert.equal(streamed, clean(t, o));
      // cleanDetailed slices the reasoning from `t` where it can: it must still be the core's text.
      assert.deepEqual(cleanDetailed(t, o), { text: streamed, reasoning: s.reasoning });
    }),
    { numRuns: RUNS },
  );
});

test('createCleanStream over bytes split anywhere (inside UTF-8 sequences too) equals clean() of the decoded text', async () => {
  await fc.assert(
    fc.asyncProperty(byteChunked, async ({ chunks, decoded }) => {
      const out = new Blob(chunks).stream().pipeThrough(createCleanStream({ removeAssistantPrefix: true }));
      let got = '';
      for await (const c of out) got += c;
      assert.equal(got, clean(decoded, { removeAssistantPrefix: true }));
    }),
    { numRuns: Math.ceil(RUNS / 2) },
  );
});

test('regression: a byte order mark after a character split between the first chunks is kept (found by the property above under Node 26)', async () => {
  // Node 24 to 26's own streaming decoder dropped it: U+FFFD split after its first byte, then U+FEFF.
  const chunks = [Uint8Array.of(0xef), Uint8Array.of(0xbf, 0xbd, 0xef, 0xbb, 0xbf, 0xef, 0xbf, 0xbd)];
  const decoded = new TextDecoder().decode(new Uint8Array([...chunks[0], ...chunks[1]]));
  assert.equal(decoded, '\ufffd\ufeff\ufffd');
  let got = '';
  for await (const c of new Blob(chunks).stream().pipeThrough(createCleanStream())) got += c;
  assert.equal(got, clean(decoded));
  // One at the very start, whole or split, leaves the text after it intact (`clean` drops the mark itself as
  // leading space, so this checks the decoding around it, not who dropped it).
  for (const split of [
    [Uint8Array.of(0xef, 0xbb, 0xbf, 0x68, 0x69)],
    [Uint8Array.of(0xef), Uint8Array.of(0xbb, 0xbf, 0x68, 0x69)],
  ]) {
    got = '';
    for await (const c of new Blob(split).stream().pipeThrough(createCleanStream({ trim: false }))) got += c;
    assert.equal(got, 'hi');
  }
});

test('createPartialJsonStream over bytes split anywhere ends as parseAndRepair does', async () => {
  await fc.assert(
    fc.asyncProperty(byteChunked, async ({ chunks, decoded }) => {
      const got = await lastOutcome(new Blob(chunks).stream().pipeThrough(createPartialJsonStream()));
      assert.equal(
        got,
        outcome(() => parseAndRepair(decoded)),
      );
    }),
    { numRuns: Math.ceil(RUNS / 3) },
  );
});

test('partialJsonValues over bytes split anywhere (inside UTF-8 sequences too) ends as parseAndRepair does', async () => {
  await fc.assert(
    fc.asyncProperty(byteChunked, async ({ chunks, decoded }) => {
      const got = await lastOutcome(partialJsonValues(chunks));
      assert.equal(
        got,
        outcome(() => parseAndRepair(decoded)),
      );
    }),
    { numRuns: Math.ceil(RUNS / 2) },
  );
});

test('serverSentEvents, openAITextStream and anthropicTextStream: any cut of the bytes gives the same events and text', async () => {
  const { serverSentEvents, openAITextStream, anthropicTextStream } = await import('llm-response-sanitizer');
  const delta = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(delta, fc.boolean()), { minLength: 1, maxLength: 8 }),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.uniqueArray(fc.nat(), { maxLength: 10 }),
      async (parts, eol, cuts) => {
        const deltas = parts.map(([d]) => d);
        const openai = `${deltas.map((d) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: d } }] })}${eol}${eol}`).join('')}data: [DONE]${eol}${eol}`;
        // Anthropic's events, with thinking deltas (reported through onReasoning) among the text ones.
        const event = (type, body) => `event: ${type}${eol}data: ${JSON.stringify({ type, ...body })}${eol}${eol}`;
        const anthropic = [
          event('message_start', { message: { id: 'm', content: [] } }),
          event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
          ...parts.map(([d, thinking]) =>
            event('content_block_delta', {
              index: 0,
              delta: thinking ? { type: 'thinking_delta', thinking: d } : { type: 'text_delta', text: d },
            }),
          ),
          event('content_block_stop', { index: 0 }),
          event('message_stop', {}),
        ].join('');
        const split = (body) => {
          const bytes = new TextEncoder().encode(body);
          return cutAt(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          );
        };
        const events = [];
        for await (const e of serverSentEvents(split(openai))) events.push(e.data);
        assert.equal(events.length, deltas.length + 1);
        let text = '';
        for await (const d of openAITextStream(split(openai))) text += d;
        // JSON.stringify of a lone surrogate escapes it, so the text comes back exactly.
        assert.equal(text, deltas.join(''));
        let said = '';
        let thought = '';
        for await (const d of anthropicTextStream(split(anthropic), { onReasoning: (t) => (thought += t) })) said += d;
        assert.equal(said, parts.map(([d, t]) => (t ? '' : d)).join(''));
        assert.equal(thought, parts.map(([d, t]) => (t ? d : '')).join(''));
      },
    ),
    { numRuns: Math.ceil(RUNS / 3) },
  );
});

test('serverSentEvents over malformed streams: the provider streams end or throw a ProviderError, the same for every cut', async () => {
  const { openAITextStream, anthropicTextStream, ProviderError } = await import('llm-response-sanitizer');
  // Lines a broken or hostile server sends: fields with any value, comments, bare names, JSON that is not an event.
  const line = fc.oneof(
    text.map((t) => `data: ${t}`),
    text.map((t) => `data:${t}`),
    fc.constantFrom(
      'data: [DONE]',
      'data: {}',
      'data: null',
      'data: {"choices":[{"delta":{"content":"a"}}]}',
      'data: {"choices":[{"delta":{"content":1}}]}',
      'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}',
      'data: {"type":"error","error":{"type":"overloaded_error","message":"busy"}}',
      'data: {"error":{"message":"bad","code":"x"}}',
      'event: message_stop',
      'event: error',
      ': keep-alive',
      'id: 7',
      'retry: 10',
      'data',
      '',
    ),
    text,
  );
  const run = async (stream) => {
    let out = '';
    try {
      for await (const d of stream) out += d;
      return `text ${JSON.stringify(out)}`;
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      return `error ${e.message} after ${JSON.stringify(out)}`;
    }
  };
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { maxLength: 12 }),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.uniqueArray(fc.nat(), { maxLength: 10 }),
      async (lines, eol, cuts) => {
        const bytes = new TextEncoder().encode(lines.join(eol) + eol);
        const chunks = cutAt(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        );
        assert.equal(await run(openAITextStream(chunks)), await run(openAITextStream([bytes])));
        assert.equal(await run(anthropicTextStream(chunks)), await run(anthropicTextStream([bytes])));
      },
    ),
    { numRuns: Math.ceil(RUNS / 3) },
  );
});

test('hostile arguments to every exported function and constructor: only TypeError, RangeError or a typed error', async () => {
  const api = await import('llm-response-sanitizer');
  const hostile = [
    undefined,
    null,
    42,
    10n,
    Symbol('s'),
    () => '{}',
    [],
    [1, '{"a":1}'],
    { toString: () => '{"a": 1}' },
    {
      get length() {
        throw new Error('getter ran');
      },
    },
    new Proxy(
      {},
      {
        get() {
          throw new Error('proxy trap ran');
        },
      },
    ),
    new String('{"a": 1}'),
    Object.create(null),
  ];
  // The caller's own getter or trap may throw through us: that error is theirs. Anything else must be typed.
  const theirs = (e) => e instanceof Error && (e.message === 'getter ran' || e.message === 'proxy trap ran');
  const typed = (e) =>
    theirs(e) ||
    e instanceof TypeError ||
    e instanceof RangeError ||
    (e instanceof Error &&
      ['JsonRepairError', 'SchemaCompileError', 'JsonProcessingError', 'LLMProcessingError', 'ProviderError'].includes(
        e.name,
      ));
  const describe = (x) => {
    try {
      return typeof x === 'symbol'
        ? 'a symbol'
        : typeof x === 'bigint'
          ? 'a bigint'
          : Object.prototype.toString.call(x);
    } catch {
      return 'a throwing proxy';
    }
  };
  const calls = [
    (x) => api.parseAndRepair(x),
    (x) => api.repairJson(x),
    (x) => api.parseDetailed(x),
    (x) => api.parseAndRepair('{"a": 1,}', x),
    (x) => api.clean(x),
    (x) => api.clean('x', x),
    (x) => api.cleanDetailed(x),
    (x) => new api.StreamCleaner(x),
    (x) => new api.StreamCleaner().push(x),
    (x) => new api.PartialJsonParser(x),
    (x) => new api.PartialJsonParser().push(x),
    (x) => api.extract(x, { type: 'object' }),
    (x) => api.extract('{"a": 1}', x),
    (x) => api.extract('{"a": 1}', { type: 'object' }, x),
    (x) => api.compileSchema(x),
    (x) => api.validate({}, x),
    (x) => api.buildCorrectionPrompt(x),
    (x) => api.LLMResponseSanitizer.sanitize(x),
  ];
  let count = 0;
  for (const call of calls) {
    for (const x of hostile) {
      try {
        call(x);
      } catch (e) {
        assert.ok(typed(e), `${call} with ${describe(x)}: ${e?.name}: ${e?.message}`);
      }
      count++;
    }
  }
  // After all of that the module still works.
  assert.deepEqual(api.parseAndRepair("{'ok': True,}"), { ok: true });
  assert.ok(count > 200);
});

test('hostile arguments at random (fast-check): any value, wrong-typed options, calls after free and finish; only typed errors, and the module keeps working', async () => {
  const api = await import('llm-response-sanitizer');
  // Option names the API reads, given values of every type.
  const optionNames = [
    'maxDepth',
    'maxInputLength',
    'repairKinds',
    'forbid',
    'allow',
    'strict',
    'thinkTags',
    'startThinkTag',
    'endThinkTag',
    'thinkOnly',
    'trim',
    'removeAssistantPrefix',
    'removeTimestampPrefix',
    'openingTagGracePeriod',
    'expectOnlyClosingThinkTag',
    'keepTextWithoutClosingTag',
    'responseStartTextToRemove',
    'schema',
    'coerce',
    'coercionRules',
    'forbidCoercions',
    'assertFormat',
    'defaultDraft',
    'maxIssues',
    'maxSchemaLength',
    'remotes',
    'format',
    'signal',
    'reasoningFirst',
    'tool',
    'types',
    'maxRetries',
    'onAttempt',
    'check',
    'correctionPrompt',
    'backoff',
    'issueKeywords',
    'maxExcerptLength',
    '__proto__',
    'constructor',
  ];
  let toStringCalls = 0;
  const value = fc.oneof(
    {
      arbitrary: fc.anything({
        withBigInt: true,
        withBoxedValues: true,
        withNullPrototype: true,
        withMap: true,
        withSet: true,
        withTypedArray: true,
        withSparseArray: true,
        withDate: true,
      }),
      weight: 3,
    },
    { arbitrary: text, weight: 2 },
    {
      arbitrary: text.map((t) => ({
        toString() {
          toStringCalls++;
          return t;
        },
        valueOf() {
          toStringCalls++;
          return t;
        },
      })),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom(
        Symbol('s'),
        () => '{}',
        async () => '{}',
        new Proxy(
          {},
          {
            get() {
              throw new Error('proxy trap ran');
            },
          },
        ),
        {
          get length() {
            throw new Error('getter ran');
          },
        },
        Promise.resolve('{}'),
        new Uint8Array([123, 125]),
        new AbortController().signal,
        { type: 'object' },
        { type: 'array', items: { type: 'string' } },
        { $ref: '#' },
        { '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } },
      ),
      weight: 1,
    },
  );
  const options = fc.oneof(value, fc.dictionary(fc.constantFrom(...optionNames), value, { maxKeys: 4 }));
  const drain = async (iterable, limit = 200) => {
    let n = 0;
    for await (const _ of iterable) if (++n >= limit) break;
  };
  const calls = {
    parseAndRepair: (a, b) => api.parseAndRepair(a, b),
    repairJson: (a, b) => api.repairJson(a, b),
    parseDetailed: (a, b) => api.parseDetailed(a, b),
    clean: (a, b) => api.clean(a, b),
    cleanDetailed: (a, b) => api.cleanDetailed(a, b),
    extract: (a, b, c) => api.extract(a, b, c),
    extractAsync: (a, b, c) => api.extractAsync(a, b, c),
    compileSchema: (a, b) => api.compileSchema(a, b),
    validate: (a, b, c) => api.validate(a, b, c),
    standardIssues: (a) => api.standardIssues(a),
    isStandardSchema: (a) => api.isStandardSchema(a),
    buildCorrectionPrompt: (a) => api.buildCorrectionPrompt(a),
    sanitize: (a) => api.LLMResponseSanitizer.sanitize(a),
    wilmerCleanOptions: (a, b) => api.wilmerCleanOptions(a, b),
    openAIText: (a, b) => api.openAIText(a, b),
    openAIToolArguments: (a, b) => api.openAIToolArguments(a, b),
    anthropicText: (a) => api.anthropicText(a),
    anthropicToolInput: (a, b) => api.anthropicToolInput(a, b),
    isTransportError: (a) => api.isTransportError(a),
    openAITextStream: (a, b) => drain(api.openAITextStream(a, b)),
    anthropicTextStream: (a, b) => drain(api.anthropicTextStream(a, b)),
    serverSentEvents: (a, b) => drain(api.serverSentEvents(a, b)),
    partialJsonValues: (a, b) => drain(api.partialJsonValues(a, b)),
    cleanChunks: (a, b, c) => drain(api.cleanChunks(a, b, c)),
    createCleanStream: (a, b) => api.createCleanStream(a, b),
    createPartialJsonStream: (a) => api.createPartialJsonStream(a),
    objectStream: async (a, b) => {
      const s = api.objectStream(a, b);
      await drain(s);
      await s.result;
    },
    LlmJsonService: async (a, b) => {
      const s = new api.LlmJsonService(a);
      s.clean(b);
      await s.parseAndRepair(b, a);
    },
    LLMResponseProcessor: async (a, b, c) => {
      const p = new api.LLMResponseProcessor(a);
      await p.processResponse(b, c);
    },
    queryWithCorrection: (a, b) => api.queryWithCorrection(a, b),
    createOpenAIQuery: (a) => api.createOpenAIQuery(a),
    createAnthropicQuery: (a) => api.createAnthropicQuery(a),
  };
  // A parser or cleaner driven through any sequence of calls, before and after finish() and free().
  const parserOp = fc.oneof(
    fc.tuple(fc.constant('push'), fc.oneof(text, value)),
    fc.constantFrom(
      ['finish'],
      ['finishDetailed'],
      ['finishExtract'],
      ['finishBoth'],
      ['free'],
      ['value'],
      ['complete'],
      ['error'],
    ),
  );
  const cleanerOp = fc.oneof(
    fc.tuple(fc.constant('push'), fc.oneof(text, value)),
    fc.constantFrom(['flush'], ['finish'], ['free'], ['reasoning'], ['pendingReasoning']),
  );
  const theirs = (e) => e instanceof Error && ['getter ran', 'proxy trap ran'].includes(e.message);
  const typed = (e) =>
    theirs(e) ||
    e instanceof TypeError ||
    e instanceof RangeError ||
    (e instanceof Error &&
      [
        'JsonRepairError',
        'SchemaCompileError',
        'SchemaValidationError',
        'JsonProcessingError',
        'LLMProcessingError',
        'ProviderError',
        'AbortError',
      ].includes(e.name));
  const attempt = async (what, fn) => {
    try {
      await fn();
    } catch (e) {
      assert.ok(typed(e), `${what}: ${e?.name}: ${e?.message}`);
    }
  };
  const apply = (target, [op, arg]) => (typeof target[op] === 'function' ? target[op](arg) : target[op]);
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.tuple(fc.constantFrom(...Object.keys(calls)), value, options, options),
        fc.tuple(fc.constant('PartialJsonParser'), options, fc.array(parserOp, { maxLength: 8 })),
        fc.tuple(fc.constant('StreamCleaner'), options, fc.array(cleanerOp, { maxLength: 8 })),
      ),
      async ([name, a, b, c]) => {
        if (name === 'PartialJsonParser' || name === 'StreamCleaner') {
          let target;
          await attempt(`new ${name}`, () => {
            target = name === 'PartialJsonParser' ? new api.PartialJsonParser(a) : new api.StreamCleaner(a);
          });
          if (target !== undefined) for (const op of b) await attempt(`${name}.${op[0]}`, () => apply(target, op));
        } else {
          await attempt(name, () => calls[name](a, b, c));
        }
        // Whatever happened, the module still answers.
        assert.deepEqual(api.parseAndRepair("{'ok': True,}"), { ok: true });
        assert.equal(api.clean('<think>x</think>y'), 'y');
      },
    ),
    { numRuns: Math.ceil(RUNS / 5) },
  );
  assert.ok(toStringCalls >= 0);
});

test('extract: a text none of whose candidates could be read says why, in the words of a JsonRepairError', () => {
  // The message is composed on the TypeScript side from the error the core sends (`unread`): it must never be
  // left empty, and a forbidden repair is named and described as `parseAndRepair`'s error names it.
  const kinds = repairKinds();
  const named = new Map(kinds.map((k) => [k.kind, k.description]));
  const schema = compileSchema({});
  try {
    fc.assert(
      fc.property(
        text,
        fc.subarray(kinds.map((k) => k.kind)),
        fc.integer({ min: 1, max: 6 }),
        (t, forbid, maxDepth) => {
          const r = extract(t, schema, { forbid, maxDepth });
          for (const issue of r.issues) assert.ok(issue.message.length > 0, `an empty ${issue.keyword} message`);
          const unread = r.issues.find((i) => i.message.startsWith('no candidate could be read: '));
          if (unread === undefined) return;
          assert.equal(r.value, undefined);
          assert.match(unread.message, / \(at line \d+, column \d+, index \d+\)$/);
          const repair = /forbid: ([a-z_]+) \((.+?)\) \(at line/.exec(unread.message);
          if (unread.message.includes('forbid: ')) assert.equal(named.get(repair?.[1]), repair?.[2]);
        },
      ),
      { numRuns: RUNS },
    );
  } finally {
    schema.free();
  }
});
