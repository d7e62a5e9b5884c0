// The Living Narrative Engine's public contract for LlmJsonService, LLMResponseProcessor and their errors
// (seed 004), checked the way an engine that swaps this package in would notice a difference: the
// constructor's checks, the exact result shape, the events' messages and keys, the error classes' fields.
// Our own cases; the engine's suite itself is run against a re-export outside CI (see CONTRIBUTING.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LlmJsonService,
  LLMResponseProcessor,
  LLMProcessingError,
  JsonProcessingError,
  LLM_TURN_ACTION_RESPONSE_SCHEMA_ID,
  SYSTEM_ERROR_EVENT,
} from 'llm-response-sanitizer';

/** A logger and a dispatcher that record every call with all its arguments. */
function spies() {
  const calls = { debug: [], info: [], warn: [], error: [], dispatch: [], validate: [], loaded: [] };
  const logger = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((m) => [m, (...args) => calls[m].push(args)]),
  );
  const safeEventDispatcher = { dispatch: (...args) => (calls.dispatch.push(args), true) };
  return { calls, logger, safeEventDispatcher };
}

function validator(calls, verdict = () => ({ isValid: true, errors: [] }), loaded = true) {
  return {
    validate: (id, data) => (calls.validate.push([id, data]), verdict(data)),
    isSchemaLoaded: (id) => (calls.loaded.push(id), loaded),
  };
}

function engine(overrides = {}) {
  const s = spies();
  const deps = {
    schemaValidator: validator(s.calls, overrides.verdict),
    logger: s.logger,
    safeEventDispatcher: s.safeEventDispatcher,
    llmJsonService: new LlmJsonService(),
    ...overrides.deps,
  };
  return { ...s, deps, processor: new LLMResponseProcessor(deps) };
}

test("the processor checks its four dependencies with the engine's messages, and that the schema is loaded", () => {
  const { calls, deps } = engine();
  assert.deepEqual(calls.loaded, [LLM_TURN_ACTION_RESPONSE_SCHEMA_ID]);
  assert.equal(LLM_TURN_ACTION_RESPONSE_SCHEMA_ID, 'llmTurnActionResponseSchema/v5');
  const without = (key, value) => () => new LLMResponseProcessor({ ...deps, [key]: value });
  assert.throws(without('schemaValidator', undefined), {
    message: 'LLMResponseProcessor needs a valid ISchemaValidator',
  });
  assert.throws(without('schemaValidator', { validate() {} }), {
    message: 'LLMResponseProcessor needs a valid ISchemaValidator',
  });
  assert.throws(without('logger', undefined), { message: 'LLMResponseProcessor needs a valid ILogger' });
  assert.throws(without('safeEventDispatcher', {}), {
    message: 'LLMResponseProcessor requires a valid ISafeEventDispatcher',
  });
  assert.throws(without('llmJsonService', { clean() {} }), {
    message: 'LLMResponseProcessor requires a valid LlmJsonService',
  });
  assert.throws(without('schemaValidator', validator(spies().calls, undefined, false)), {
    message: `Schema ${LLM_TURN_ACTION_RESPONSE_SCHEMA_ID} not loaded`,
  });
  // Our own form needs none of them.
  assert.doesNotThrow(() => new LLMResponseProcessor({ schema: { type: 'object' } }));
});

test('a turn action comes back as exactly {success, action, extractedData}, notes and the ledger only when present', async () => {
  const { processor, calls } = engine();
  const ledger = { settled_conclusions: ['the bridge is out'], open_questions: ['who cut it?', 'when?'] };
  const sent = {
    chosenIndex: 3,
    speech: 'We go round by the ford.',
    thoughts: 'Longer, but dry.',
    notes: [{ text: 'Ropes frayed', subject: 'bridge' }],
    cognitive_ledger: ledger,
    mood: 'tired',
  };
  const result = await processor.processResponse(JSON.stringify(sent), 'ranger-7');
  assert.deepStrictEqual(
    { ...result },
    {
      success: true,
      action: { chosenIndex: 3, speech: 'We go round by the ford.' },
      extractedData: {
        thoughts: 'Longer, but dry.',
        notes: [{ text: 'Ropes frayed', subject: 'bridge' }],
        cognitiveLedger: ledger,
      },
    },
  );
  // Ours on top, not enumerable: the whole value, the coercions and the repairs.
  assert.deepEqual(result.value, sent);
  assert.deepEqual([result.coercions, result.repairs], [[], []]);
  assert.deepEqual(calls.validate, [[LLM_TURN_ACTION_RESPONSE_SCHEMA_ID, sent]]);
  assert.deepEqual(calls.info.at(-1), [
    'LLMResponseProcessor: cognitive_ledger extracted for actor ranger-7',
    { settled_conclusions_count: 1, open_questions_count: 2 },
  ]);
  assert.deepEqual(calls.dispatch, []);

  const bare = await processor.processResponse('{"chosenIndex": 0, "speech": "", "thoughts": "…"}', 'ranger-7');
  assert.deepStrictEqual(
    { ...bare },
    { success: true, action: { chosenIndex: 0, speech: '' }, extractedData: { thoughts: '…' } },
  );
  assert.match(calls.info.at(-1)[0], /NO cognitive_ledger/);
});

test('the injected service is called with (raw, {logger}) alone, and its failure is dispatched before the throw', async () => {
  const seen = [];
  const boom = Object.assign(new Error('tokenizer exploded'), { stack: 'Error: tokenizer exploded\n    at here' });
  const { processor, calls, logger } = engine({
    deps: {
      llmJsonService: {
        parseAndRepair: async (...args) => {
          seen.push(args);
          throw boom;
        },
      },
    },
  });
  await assert.rejects(processor.processResponse('{"x": 1}', 'npc-2'), (e) => {
    assert.ok(e instanceof LLMProcessingError);
    assert.equal(e.name, 'LLMProcessingError');
    assert.equal(e.message, 'LLMResponseProcessor: JSON could not be parsed for actor npc-2: tokenizer exploded');
    // The event was already out when the error was thrown.
    assert.equal(calls.dispatch.length, 1);
    return true;
  });
  assert.deepEqual(seen, [['{"x": 1}', { logger }]]);
  assert.deepStrictEqual(calls.dispatch[0], [
    SYSTEM_ERROR_EVENT,
    {
      message: 'LLMResponseProcessor: JSON could not be parsed for actor npc-2: tokenizer exploded',
      details: { actorId: 'npc-2', rawResponse: '{"x": 1}', error: 'tokenizer exploded', stack: boom.stack },
    },
  ]);
});

test("a schema failure: the engine's event {errors, parsed} and an error with details.validationErrors", async () => {
  const errors = [{ instancePath: '/chosenIndex', message: 'must be integer' }];
  const { processor, calls } = engine({ verdict: () => ({ isValid: false, errors }) });
  await assert.rejects(
    processor.processResponse('{"chosenIndex": "two", "speech": "a", "thoughts": "b"}', 'bard'),
    (e) => {
      assert.equal(e.message, 'LLM response JSON schema validation failed for actor bard.');
      assert.deepEqual(e.details, { validationErrors: errors });
      return true;
    },
  );
  assert.deepStrictEqual(calls.dispatch, [
    [
      SYSTEM_ERROR_EVENT,
      {
        message: 'LLMResponseProcessor: schema invalid for actor bard',
        details: { errors, parsed: { chosenIndex: 'two', speech: 'a', thoughts: 'b' } },
      },
    ],
  ]);
});

test("not a string, and no JSON at all, are LLMProcessingErrors with the engine's wording", async () => {
  const { processor } = engine();
  for (const raw of [null, undefined, 7]) {
    await assert.rejects(processor.processResponse(raw, 'a1'), {
      name: 'LLMProcessingError',
      message: 'LLM response must be a JSON string for actor a1.',
    });
  }
  await assert.rejects(processor.processResponse('I would rather not say.', 'a1'), {
    name: 'LLMProcessingError',
    message: /^LLMResponseProcessor: JSON could not be parsed for actor a1: /,
  });
});

test('LlmJsonService: a non-string is a TypeError, reported as the event when there is a dispatcher, else logged', async () => {
  const service = new LlmJsonService();
  const { calls, logger, safeEventDispatcher } = spies();
  await assert.rejects(
    service.parseAndRepair(12, { logger, dispatcher: safeEventDispatcher }),
    (e) => e instanceof TypeError && e.message === "Input 'jsonString' must be a string.",
  );
  assert.deepStrictEqual(calls.dispatch, [
    [
      SYSTEM_ERROR_EVENT,
      { message: "parseAndRepair: Input 'jsonString' must be a string. Received type: number", details: {} },
    ],
  ]);
  assert.deepEqual(calls.error, []);
  await assert.rejects(service.parseAndRepair(Symbol('s'), { logger }), TypeError);
  assert.deepStrictEqual(calls.error, [["parseAndRepair: Input 'jsonString' must be a string. Received type: symbol"]]);
  // clean() hands back what is not a string.
  const box = { a: 1 };
  assert.equal(service.clean(box), box);
  assert.equal(service.clean(null), null);
});

test("LlmJsonService: a lead-in alone or an empty fence cleans to '', which is an initial_clean error", async () => {
  const service = new LlmJsonService();
  for (const raw of [
    'Sure, here is the JSON:',
    'The JSON response is:\n',
    '```json\n \n```',
    "Here's the JSON:\n```\n```",
    '  ``````  ',
    '<think>a plan</think>```JSON\n```',
  ]) {
    assert.equal(service.clean(raw), '', JSON.stringify(raw));
    const { calls, logger, safeEventDispatcher } = spies();
    await assert.rejects(service.parseAndRepair(raw, { logger, dispatcher: safeEventDispatcher }), (e) => {
      assert.ok(e instanceof JsonProcessingError);
      assert.equal(e.message, 'Cleaned JSON string is null or empty, cannot parse.');
      assert.equal(e.stage, 'initial_clean');
      assert.equal(e.attemptedJsonString, raw);
      return true;
    });
    assert.deepStrictEqual(calls.dispatch, [
      [
        SYSTEM_ERROR_EVENT,
        {
          message: 'parseAndRepair: Cleaned JSON string is null or empty, cannot parse.',
          details: { originalInput: raw },
        },
      ],
    ]);
  }
  // A lead-in before a bare scalar still gives the scalar; prose that names no JSON stays.
  assert.deepEqual(await service.parseAndRepair('Here is the JSON: 42'), 42);
  assert.equal(service.clean('Note: nothing to report'), 'Note: nothing to report');
});

test('LlmJsonService: strict parse, then repair, logged as the engine logs them; a failure carries both errors', async () => {
  const service = new LlmJsonService();
  const { calls, logger, safeEventDispatcher } = spies();
  const fenced = 'Here is the JSON:\n```json\n{"door": "oak"}\n```';
  assert.deepEqual(await service.parseAndRepair(fenced, { logger }), { door: 'oak' });
  assert.equal(calls.debug[0][0], 'parseAndRepair: Successfully parsed JSON on first attempt after cleaning.');
  assert.deepEqual(calls.debug[0][1], { inputLength: fenced.length, cleanedLength: '{"door": "oak"}'.length });

  assert.deepEqual(
    await service.parseAndRepair("{'lamp': True, 'oil': [1, 2,],}", { logger, dispatcher: safeEventDispatcher }),
    { lamp: true, oil: [1, 2] },
  );
  const [warning, context] = calls.warn[0];
  assert.match(warning, /^parseAndRepair: Initial JSON\.parse failed after cleaning\. Attempting repair\. Error: /);
  assert.equal(context.error.name, 'SyntaxError');
  assert.equal(context.cleanedJsonPreview, "{'lamp': True, 'oil': [1, 2,],}");
  assert.equal(calls.debug[1][0], 'parseAndRepairJson: Successfully parsed JSON after repair.');
  assert.deepEqual(calls.dispatch, []);

  const long = `Answer: ${'é'.repeat(120)}`;
  await assert.rejects(service.parseAndRepair(long, { logger, dispatcher: safeEventDispatcher }), (e) => {
    assert.equal(e.stage, 'final_parse_after_repair');
    assert.match(e.message, /^Failed to parse JSON even after repair attempt\. Repair\/Parse Error: /);
    assert.equal(e.originalError.name, 'JsonRepairError');
    assert.ok(e.initialParseError instanceof SyntaxError);
    assert.equal(e.attemptedJsonString, long);
    assert.match(e.stack, /\nCaused by: JsonRepairError/);
    assert.match(e.stack, /\nInitial parse error: SyntaxError/);
    return true;
  });
  const [name, { message, details }] = calls.dispatch[0];
  assert.equal(name, SYSTEM_ERROR_EVENT);
  assert.match(message, /^parseAndRepairJson: Failed to parse JSON even after repair attempt\./);
  assert.deepEqual(Object.keys(details), [
    'cleanedJsonStringLength',
    'cleanedJsonPreview',
    'initialParseError',
    'repairAndParseError',
  ]);
  assert.equal(details.cleanedJsonPreview, `${long.slice(0, 100)}...`);
  assert.deepEqual(Object.keys(details.repairAndParseError), ['message', 'name']);
  assert.deepEqual(calls.error, []);
});

test('JsonProcessingError and LLMProcessingError are built as the engine builds them', () => {
  const cause = new Error('inner');
  const e = new JsonProcessingError('outer', { stage: 'custom_stage', originalError: cause, attemptedJsonString: '{' });
  assert.ok(e instanceof Error);
  assert.deepEqual(
    [e.name, e.message, e.stage, e.originalError, e.attemptedJsonString, e.initialParseError],
    ['JsonProcessingError', 'outer', 'custom_stage', cause, '{', undefined],
  );
  assert.equal(e.cause, cause);
  assert.match(e.stack, /Caused by: Error: inner/);
  const bare = new JsonProcessingError('no details');
  assert.equal(bare.stage, undefined);
  const p = new LLMProcessingError('failed', { validationErrors: [1] });
  assert.deepEqual([p.name, p.message, p.details], ['LLMProcessingError', 'failed', { validationErrors: [1] }]);
});
