// The service layer (SPEC §6) driven as the Living Narrative Engine drives it: LlmJsonService and
// LLMResponseProcessor with a logger, an event dispatcher (sometimes a broken one) and a metrics collector.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  LlmJsonService,
  LLMResponseProcessor,
  JsonProcessingError,
  LLMProcessingError,
  InMemoryMetricsCollector,
  SYSTEM_ERROR_EVENT,
  compileSchema,
} from 'llm-response-sanitizer';

const turnSchema = JSON.parse(
  readFileSync(new URL('../fixtures/extract/turn-action.schema.json', import.meta.url), 'utf8'),
);

function recorder() {
  const events = [];
  const logs = [];
  const logger = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((level) => [
      level,
      (message, context) => logs.push({ level, message, context }),
    ]),
  );
  return { events, logs, logger, dispatcher: { dispatch: (name, payload) => events.push({ name, payload }) } };
}

test('LlmJsonService.clean takes the JSON out of prefixes, fences and think blocks', () => {
  const s = new LlmJsonService();
  assert.equal(s.clean('Sure, here is the JSON:\n```json\n{"a": 1}\n```\nHope it helps!'), '{"a": 1}');
  assert.equal(s.clean('<think>maybe {"a": 0}</think>{"a": 2}'), '{"a": 2}');
  assert.equal(s.clean('  no json here  '), 'no json here');
  assert.equal(s.clean('<think>only thinking</think>'), '');
  // The engine hands anything but a string back as it is.
  assert.equal(s.clean(42), 42);
});

test('LlmJsonService.parseAndRepair parses strictly first, repairs otherwise, and reports each stage', async () => {
  const s = new LlmJsonService();
  const metrics = new InMemoryMetricsCollector();
  assert.deepEqual(await s.parseAndRepair('```json\n{"a": [1, 2]}\n```', { metricsCollector: metrics }), { a: [1, 2] });
  const { logger, logs } = recorder();
  assert.deepEqual(await s.parseAndRepair("Sure: {'a': True, b: [1, 2,],}", { logger, metricsCollector: metrics }), {
    a: true,
    b: [1, 2],
  });
  assert.ok(logs.some((l) => l.level === 'warn' && /Initial JSON.parse failed/.test(l.message)));
  const summary = metrics.summary();
  assert.equal(summary.repairRate, 0.5);
  assert.ok(
    summary.repairKinds.single_quotes >= 1 && summary.repairKinds.trailing_comma >= 1,
    JSON.stringify(summary.repairKinds),
  );
  assert.equal(summary.stages.clean.count, 2);
  await assert.rejects(s.parseAndRepair(null), TypeError);
});

test('LlmJsonService.parseAndRepair: empty after cleaning, and no JSON at all, are JsonProcessingErrors with an event', async () => {
  const s = new LlmJsonService();
  const { events, logger, dispatcher } = recorder();
  await assert.rejects(
    s.parseAndRepair('<think>hmm</think>   ', { logger, dispatcher }),
    (e) =>
      e instanceof JsonProcessingError &&
      e.name === 'JsonProcessingError' &&
      e.stage === 'initial_clean' &&
      e.attemptedJsonString === '<think>hmm</think>   ',
  );
  await assert.rejects(s.parseAndRepair('I cannot answer that.', { logger, dispatcher }), (e) => {
    assert.ok(e instanceof JsonProcessingError);
    assert.equal(e.stage, 'final_parse_after_repair');
    assert.equal(e.attemptedJsonString, 'I cannot answer that.');
    assert.ok(e.initialParseError instanceof SyntaxError);
    assert.equal(e.originalError.name, 'JsonRepairError');
    assert.equal(e.originalError.kind, 'no_json');
    return true;
  });
  assert.deepEqual(
    events.map((e) => e.name),
    [SYSTEM_ERROR_EVENT, SYSTEM_ERROR_EVENT],
  );
  assert.equal(events[1].payload.details.cleanedJsonPreview, 'I cannot answer that.');
  assert.equal(events[1].payload.details.repairAndParseError.name, 'JsonRepairError');
});

test('LLMResponseProcessor returns the turn action with think blocks stripped and coercions applied', async () => {
  const metrics = new InMemoryMetricsCollector();
  const { events, logger, dispatcher } = recorder();
  const p = new LLMResponseProcessor({
    schema: turnSchema,
    logger,
    safeEventDispatcher: dispatcher,
    metricsCollector: metrics,
  });
  const raw = `<think>Option {"chosenIndex": 9} is not offered.</think>
Here is my turn:
\`\`\`json
{"chosenIndex": "2", "speech": "Hold the gate!", "thoughts": "They are tired.", "notes": [{"text": "Torches moved east", "subject": "north gate", "subjectType": "location"},],}
\`\`\``;
  const r = await p.processResponse(raw, 'actor-1');
  assert.equal(r.success, true);
  assert.deepEqual(r.action, { chosenIndex: 2, speech: 'Hold the gate!' });
  assert.deepEqual(r.extractedData, {
    thoughts: 'They are tired.',
    notes: [{ text: 'Torches moved east', subject: 'north gate', subjectType: 'location' }],
  });
  assert.deepEqual(
    r.coercions.map((c) => [c.path, c.rule]),
    [['/chosenIndex', 'string_to_integer']],
  );
  assert.ok(r.repairs.some((x) => x.kind === 'trailing_comma'));
  // Without notes, extractedData has no notes key.
  const plain = await p.processResponse('{"chosenIndex": 1, "speech": "Hi", "thoughts": "ok"}', 'actor-1');
  assert.deepEqual(plain.extractedData, { thoughts: 'ok' });
  assert.deepEqual(events, []);
  const summary = metrics.summary();
  assert.equal(summary.responses, 2);
  assert.equal(summary.successRate, 1);
  assert.equal(summary.coercionRules.string_to_integer, 1);
});

test('LLMResponseProcessor: every validation issue is in details.validationErrors, after the error event', async () => {
  const metrics = new InMemoryMetricsCollector();
  const { events, logger, dispatcher } = recorder();
  const p = new LLMResponseProcessor({
    schema: compileSchema(turnSchema),
    logger,
    safeEventDispatcher: dispatcher,
    metricsCollector: metrics,
  });
  await assert.rejects(
    p.processResponse('{"chosenIndex": 0, "speech": {"text": "hi"}, "extra": true}', 'actor-2'),
    (e) => {
      assert.ok(e instanceof LLMProcessingError);
      assert.equal(e.name, 'LLMProcessingError');
      const keywords = e.details.validationErrors.map((i) => `${i.path} ${i.keyword}`).sort();
      assert.deepEqual(keywords, [
        '/chosenIndex minimum',
        '/extra additionalProperties',
        '/speech type',
        '/thoughts required',
      ]);
      return true;
    },
  );
  assert.equal(events.length, 1);
  assert.equal(events[0].name, SYSTEM_ERROR_EVENT);
  assert.equal(events[0].payload.message, 'LLMResponseProcessor: schema invalid for actor actor-2');
  assert.equal(events[0].payload.details.errors.length, 4);
  assert.deepEqual(events[0].payload.details.parsed, { chosenIndex: 0, speech: { text: 'hi' }, extra: true });
  await assert.rejects(p.processResponse(undefined, 'actor-3'), LLMProcessingError);
  await assert.rejects(p.processResponse('nothing here', 'actor-3'), LLMProcessingError);
  const summary = metrics.summary();
  assert.equal(summary.successRate, 0);
  assert.ok(summary.issueKeywords.required >= 1 && summary.issueKeywords.additionalProperties >= 1);
  // One response failed validation, one had no JSON (it ends at repair, never reaching validation); the
  // non-string one failed before any stage.
  assert.equal(summary.stages.validate.failed, 1);
  assert.equal(summary.stages.repair.failed, 1);
  assert.equal(summary.responses, 2);
});

test('a dispatcher that throws or rejects never breaks processing; the failure is logged', async () => {
  for (const dispatch of [
    () => {
      throw new Error('bus down');
    },
    () => Promise.reject(new Error('bus down')),
  ]) {
    const { logs, logger } = recorder();
    const p = new LLMResponseProcessor({ schema: turnSchema, logger, safeEventDispatcher: { dispatch } });
    await assert.rejects(p.processResponse('{"chosenIndex": 1}', 'a'), LLMProcessingError);
    await new Promise((r) => setTimeout(r, 0));
    assert.ok(
      logs.some((l) => l.level === 'error' && /dispatching/.test(l.message)),
      JSON.stringify(logs),
    );
  }
  // No dispatcher at all: logged too.
  const { logs, logger } = recorder();
  await assert.rejects(
    new LLMResponseProcessor({ schema: turnSchema, logger }).processResponse('{}', 'a'),
    LLMProcessingError,
  );
  assert.ok(logs.some((l) => l.level === 'error'));
});

test('LLMResponseProcessor with an engine schemaValidator and schemaId uses the given LlmJsonService', async () => {
  const seen = [];
  const schemaValidator = {
    validate(schemaId, data) {
      seen.push(schemaId);
      return data.ok === true
        ? { isValid: true, errors: null }
        : { isValid: false, errors: [{ keyword: 'const', instancePath: '/ok' }] };
    },
    isSchemaLoaded: (id) => id === 'my-schema',
  };
  const metrics = new InMemoryMetricsCollector();
  const { logger, dispatcher } = recorder();
  const deps = {
    schemaValidator,
    schemaId: 'my-schema',
    logger,
    safeEventDispatcher: dispatcher,
    llmJsonService: new LlmJsonService(),
  };
  const p = new LLMResponseProcessor({ ...deps, metricsCollector: metrics });
  const r = await p.processResponse("Sure! {'ok': True,}", 'x');
  // Not a turn action: the generic result, everything enumerable.
  assert.deepEqual(r, { success: true, value: { ok: true }, coercions: [], repairs: [] });
  await assert.rejects(
    p.processResponse('{"ok": false}', 'x'),
    (e) => e instanceof LLMProcessingError && e.details.validationErrors[0].keyword === 'const',
  );
  await assert.rejects(
    p.processResponse('no json', 'x'),
    (e) => e instanceof LLMProcessingError && e.details.originalError instanceof JsonProcessingError,
  );
  assert.deepEqual(seen, ['my-schema', 'my-schema']);
  assert.equal(metrics.summary().issueKeywords.const, 1);
  // Three responses: one repaired and valid, one invalid, one without JSON. A failed strict parse before a
  // repair is not a failed response.
  assert.equal(metrics.summary().responses, 3);
  assert.equal(metrics.summary().successRate, 1 / 3);
  assert.throws(() => new LLMResponseProcessor({}), TypeError);
  assert.throws(() => new LLMResponseProcessor({ ...deps, schemaId: 'other' }), /^Error: Schema other not loaded$/);
});

test('InMemoryMetricsCollector summarizes p50/p95 per stage', () => {
  const m = new InMemoryMetricsCollector();
  for (let i = 1; i <= 100; i++) m.record({ stage: 'parse', outcome: 'ok', durationMs: i });
  const s = m.summary();
  assert.equal(s.stages.parse.p50, 50);
  assert.equal(s.stages.parse.p95, 95);
  m.reset();
  assert.equal(m.summary().responses, 0);
});
