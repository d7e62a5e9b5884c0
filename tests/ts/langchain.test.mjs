// The README's LangChain.js recipe, run against the real @langchain/core with its fake chat model: an output
// parser that reads a messy answer through extract, and fails with LangChain's own exception type, which its
// retry and fixing parsers understand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { BaseOutputParser, OutputParserException } from '@langchain/core/output_parsers';
import { z } from 'zod';
import { extractAsync, compileSchema } from 'llm-response-sanitizer';

// README: "LangChain.js"
class SanitizingParser extends BaseOutputParser {
  lc_namespace = ['llm-response-sanitizer'];

  constructor(schema) {
    super();
    this.schema = schema;
  }

  async parse(text) {
    const r = await extractAsync(text, this.schema);
    if (r.ok) return r.value;
    throw new OutputParserException(
      `no valid object: ${r.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`,
      text,
    );
  }

  getFormatInstructions() {
    return `Reply with one JSON value matching this JSON Schema:\n${JSON.stringify(compileSchema(this.schema).jsonSchema)}`;
  }
}

const Turn = z.object({ chosenIndex: z.number().int(), speech: z.string() });

test('a chat model piped into the parser gives the typed value out of a messy answer', async () => {
  const model = new FakeListChatModel({
    responses: ["<think>Index 2.</think>Sure!\n```json\n{'chosenIndex': '2', 'speech': 'Hi',}\n```"],
  });
  const chain = model.pipe(new SanitizingParser(Turn));
  assert.deepEqual(await chain.invoke('Pick.'), { chosenIndex: 2, speech: 'Hi' });
});

test('a wrong answer is an OutputParserException naming each issue, and the format instructions carry the schema', async () => {
  const chain = new FakeListChatModel({ responses: ['{"chosenIndex": "x"}'] }).pipe(new SanitizingParser(Turn));
  await assert.rejects(
    chain.invoke('Pick.'),
    (e) => e instanceof OutputParserException && /\/chosenIndex/.test(e.message) && /\/speech/.test(e.message),
  );
  assert.match(new SanitizingParser(Turn).getFormatInstructions(), /"required":\["chosenIndex","speech"\]/);
});
