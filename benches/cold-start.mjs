// One cold start, run by bench.mjs in a new process per measurement: imports a library and makes its first
// call, and prints how long each took in ms as JSON. `node benches/cold-start.mjs <ours|ours-cjs|jsonrepair>`.
import { createRequire } from 'node:module';

const input = `Here it is:\n\`\`\`json\n{"name": "Ada — “the first”", 'tags': ["x", "y",], ok: True,}\n\`\`\``;
const expected = { name: 'Ada — “the first”', tags: ['x', 'y'], ok: true };
const which = process.argv[2];
const now = () => Number(process.hrtime.bigint()) / 1e6;

const t0 = now();
let call;
if (which === 'ours') {
  const { parseAndRepair } = await import('llm-response-sanitizer');
  call = () => parseAndRepair(input);
} else if (which === 'ours-cjs') {
  const { parseAndRepair } = createRequire(import.meta.url)('llm-response-sanitizer');
  call = () => parseAndRepair(input);
} else if (which === 'jsonrepair') {
  // What users of jsonrepair write around it for a fenced response.
  const { jsonrepair } = await import('jsonrepair');
  call = () => JSON.parse(jsonrepair(/```(?:json)?\n([\s\S]*?)```/.exec(input)?.[1] ?? input));
} else {
  throw new Error(`cold-start: unknown library ${which}`);
}
const t1 = now();
const value = call();
const t2 = now();
if (JSON.stringify(value) !== JSON.stringify(expected))
  throw new Error(`cold-start: ${which} returned ${JSON.stringify(value)}`);
process.stdout.write(`${JSON.stringify({ import: t1 - t0, call: t2 - t1 })}\n`);
