// A consumer in a project with no DOM and no Node types (`lib: ["ES2022"]` alone, as in a Worker or an
// embedded runtime): the published .d.ts must compile there, streams and all.
import {
  init,
  parseAndRepair,
  extract,
  clean,
  PartialJsonParser,
  createCleanStream,
  createPartialJsonStream,
  openAITextStream,
  type ExtractResult,
} from 'llm-response-sanitizer';

await init();
const v: unknown = parseAndRepair("{'a': 1,}");
const r: ExtractResult<{ a: number }> = extract<{ a: number }>('{"a": "1"}', {
  properties: { a: { type: 'integer' } },
});
const c: string = clean('<think>x</think>y');
const p = new PartialJsonParser<{ a: number }>();
const a: number | undefined = p.push('{"a": 1').value?.a;
void [v, r, c, a, createCleanStream, createPartialJsonStream, openAITextStream];
