// Streams a chat completion from any OpenAI-compatible endpoint and shows the JSON answer growing:
// SSE events → text deltas (openAITextStream) → StreamCleaner (think blocks, `Assistant:`) → PartialJsonParser.
//
//   OPENAI_BASE_URL=http://localhost:8080/v1 OPENAI_API_KEY=… MODEL=… node examples/openai-stream.mjs "prompt"
//
// Each line of output is the partial value after a chunk, as JSON; the last line is the finished value
// (what parseAndRepair gives for the whole answer).
import { StreamCleaner, PartialJsonParser, openAITextStream } from 'llm-response-sanitizer';

const base = (process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/$/, '');
const prompt =
  process.argv[2] ??
  'You are a game master. Answer with JSON {"chosenIndex": number, "speech": string, "mood": "calm"|"angry"}.';

const response = await fetch(`${base}/chat/completions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY ?? ''}` },
  body: JSON.stringify({
    model: process.env.MODEL ?? 'gpt-4o-mini',
    stream: true,
    messages: [{ role: 'user', content: prompt }],
  }),
});
if (!response.ok || response.body === null) {
  console.error(`request failed: ${response.status} ${response.statusText}`);
  process.exit(1);
}

const cleaner = new StreamCleaner({ removeAssistantPrefix: true });
// With the schema, `mood` shows only once it is a whole word.
const parser = new PartialJsonParser({ schema: { properties: { mood: { enum: ['calm', 'angry'] } } } });
try {
  let shown = '';
  const show = (value) => {
    const line = JSON.stringify(value);
    if (line !== undefined && line !== shown) console.log((shown = line));
  };
  for await (const delta of openAITextStream(response)) {
    const text = cleaner.push(delta);
    if (text !== '') show(parser.push(text).value);
  }
  show(parser.push(cleaner.finish()).value);
  console.log(JSON.stringify(parser.finish()));
} finally {
  cleaner.free();
  parser.free();
}
