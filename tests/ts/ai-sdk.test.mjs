// The README's AI SDK recipes, run against the real `ai` package with its mock models: a repair hook for
// generateObject, a structured output for generateText, partial objects from streamText, and reasoning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateObject, generateText, streamText, Output } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { z } from 'zod';
import {
  extract,
  extractAsync,
  partialJsonValues,
  cleanDetailed,
  cleanChunks,
  COMMON_THINK_TAGS,
} from 'llm-response-sanitizer';

globalThis.AI_SDK_LOG_WARNINGS = false;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const stop = { unified: 'stop', raw: 'stop' };
/** A model that answers `text` in one piece. */
const answering = (text) =>
  new MockLanguageModelV4({
    doGenerate: { content: [{ type: 'text', text }], finishReason: stop, usage, warnings: [] },
  });
/** A model that streams `chunks`. */
const streaming = (chunks) =>
  new MockLanguageModelV4({
    doStream: {
      stream: convertArrayToReadableStream([
        { type: 'text-start', id: 't' },
        ...chunks.map((delta) => ({ type: 'text-delta', id: 't', delta })),
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: stop, usage },
      ]),
    },
  });

const Turn = z.object({ chosenIndex: z.number().int(), speech: z.string() });
const messy = "<think>The user wants index 2.</think>Sure! ```json\n{'chosenIndex': '2', 'speech': 'Hi',}\n```";

test('generateObject fails on a messy answer by itself, and succeeds with the repairText hook', async () => {
  await assert.rejects(
    generateObject({ model: answering(messy), schema: Turn, prompt: 'Pick.' }),
    (e) => e.name === 'AI_NoObjectGeneratedError',
  );
  // README: "AI SDK: repair what generateObject could not parse"
  const { object } = await generateObject({
    model: answering(messy),
    schema: Turn,
    prompt: 'Pick.',
    repairText: async ({ text }) => {
      const r = extract(text, Turn);
      return r.ok ? JSON.stringify(r.value) : null;
    },
  });
  assert.deepEqual(object, { chosenIndex: 2, speech: 'Hi' });
});

test('generateText with an output that reads through extract', async () => {
  // README: "generateText with a tolerant structured output"
  const tolerant = (schema) => ({
    ...Output.object({ schema }),
    async parseCompleteOutput({ text }) {
      const r = await extractAsync(text, schema);
      if (!r.ok) throw new Error(`no valid object: ${r.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`);
      return r.value;
    },
  });
  const { output } = await generateText({ model: answering(messy), output: tolerant(Turn), prompt: 'Pick.' });
  assert.deepEqual(output, { chosenIndex: 2, speech: 'Hi' });
  await assert.rejects(
    generateText({ model: answering('{"chosenIndex": "x"}'), output: tolerant(Turn), prompt: 'Pick.' }),
    /chosenIndex/,
  );
});

test('streamText: typed partial objects from textStream, reasoning never shown as the value', async () => {
  const chunks = ['<think>draft: {"chosenIndex": 9}', '</think>\n{"chosenIndex": 1', ', "speech": "He', 'llo"}'];
  // README: "AI SDK: partial objects while streamText runs"
  const result = streamText({ model: streaming(chunks), prompt: 'Pick.' });
  const seen = [];
  let checked;
  for await (const { value, result: final } of partialJsonValues(result.textStream, { schema: Turn })) {
    seen.push(JSON.stringify(value));
    if (final) checked = final.ok ? final.value : final.issues;
  }
  assert.deepEqual(checked, { chosenIndex: 1, speech: 'Hello' });
  assert.ok(!seen.some((s) => s?.includes('9')), seen.join('\n'));
  assert.ok(seen.includes('{"chosenIndex":1,"speech":"He"}'), seen.join('\n'));
});

test('reasoning: the answer and the reasoning apart, one-shot and streamed', async () => {
  // README: "AI SDK: reasoning in the text"
  const { text } = await generateText({
    model: answering('<thinking>Weigh both.</thinking>\nThe answer is B.'),
    prompt: 'Which?',
  });
  const { text: answer, reasoning } = cleanDetailed(text, { thinkTags: COMMON_THINK_TAGS });
  assert.equal(answer, 'The answer is B.');
  assert.equal(reasoning, 'Weigh both.');
  const streamed = [];
  for await (const piece of cleanChunks(
    streamText({ model: streaming(['<think>Weigh', ' both.</th', 'ink>\nThe answer', ' is B.']), prompt: 'Which?' })
      .textStream,
  ))
    streamed.push(piece);
  assert.equal(streamed.join(''), 'The answer is B.');
});
