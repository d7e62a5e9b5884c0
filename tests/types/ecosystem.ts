// Type tests for the published .d.ts with schema libraries: this file fails to compile when a zod schema's
// output type is not inferred, when `ok` does not narrow, or when a typo'd repair kind, class or issue
// keyword compiles. `@ts-expect-error` lines fail the build if the error they expect goes away.
import { z } from 'zod';
import { type } from 'arktype';
import type OpenAI from 'openai';
import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type { Ollama } from 'ollama';
import {
  extract,
  extractAsync,
  compileSchema,
  validate,
  queryWithCorrection,
  PartialJsonParser,
  createPartialJsonStream,
  objectStream,
  openAITextStream,
  geminiTextStream,
  type ObjectStreamUpdate,
  parseDetailed,
  repairKinds,
  REPAIR_KINDS,
  ISSUE_KEYWORDS,
  type CompiledSchema,
  type DeepPartial,
  type ExtractResult,
  type IssueKeyword,
  type RepairKind,
  type RepairClass,
  type StandardSchema,
  type InferOutput,
} from 'llm-response-sanitizer';

/** True when A and B are the same type (not merely assignable). */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

const Turn = z.object({
  chosenIndex: z.number().int(),
  speech: z.string(),
  mood: z.enum(['calm', 'angry']).default('calm'),
});
type TurnOut = z.output<typeof Turn>;

// extract: the value's type is zod's output, once `ok` is checked.
const r = extract('{"chosenIndex": 1, "speech": "hi"}', Turn);
assertType<Equal<typeof r, ExtractResult<TurnOut>>>();
if (r.ok) {
  assertType<Equal<typeof r.value, TurnOut>>();
  const mood: 'calm' | 'angry' = r.value.mood;
  const start: number = r.span.start + r.candidate;
  void [mood, start];
} else {
  assertType<Equal<typeof r.value, unknown>>();
  const keyword: IssueKeyword = r.issues[0].keyword;
  void keyword;
  // @ts-expect-error: on failure the value is not typed
  void r.value.speech;
}
// @ts-expect-error: before checking ok, the value is not typed
void r.value.speech;

// Every entry point infers from the library's schema.
const compiled = compileSchema(Turn);
assertType<Equal<typeof compiled, CompiledSchema<TurnOut>>>();
const fromCompiled = extract('{}', compiled);
assertType<Equal<typeof fromCompiled, ExtractResult<TurnOut>>>();
const checked = validate({}, Turn);
if (checked.valid) assertType<Equal<typeof checked.value, TurnOut>>();
async function asynchronous(): Promise<void> {
  const a = await extractAsync('{}', Turn);
  assertType<Equal<typeof a, ExtractResult<TurnOut>>>();
  const q = await queryWithCorrection({
    prompt: 'p',
    schema: Turn,
    query: async () => '{}',
    check: (v) => (v.speech === '' ? [{ path: '/speech', message: 'empty' }] : []),
  });
  assertType<Equal<typeof q.value, TurnOut>>();
}
void asynchronous;
const parser = new PartialJsonParser({ schema: Turn });
const partial = parser.push('{"speech": "h').value;
assertType<Equal<typeof partial, DeepPartial<TurnOut> | undefined>>();
const speech: string | undefined = partial?.speech;
void speech;
const stream = createPartialJsonStream({ schema: Turn });
void stream;
async function fromProvider(response: Response): Promise<void> {
  const objects = objectStream(response, { schema: Turn, signal: AbortSignal.timeout(1000) });
  for await (const { partial, result } of objects) {
    assertType<Equal<typeof partial, DeepPartial<TurnOut> | undefined>>();
    if (result?.ok) assertType<Equal<typeof result.value, TurnOut>>();
  }
  const r = await objects.result;
  if (r.ok) assertType<Equal<typeof r.value, TurnOut>>();
  const readable: ReadableStream<ObjectStreamUpdate<TurnOut>> = objects.toReadableStream();
  void readable;
}
void fromProvider;
// The providers' clients' streams go in as they are, typed by the schema.
async function fromClients(openai: OpenAI, anthropic: Anthropic, gemini: GoogleGenAI, ollama: Ollama): Promise<void> {
  const messages = [{ role: 'user' as const, content: 'x' }];
  const chat = await openai.chat.completions.create({ model: 'm', messages, stream: true });
  const responses = await openai.responses.create({ model: 'm', input: 'x', stream: true });
  const claude = await anthropic.messages.create({ model: 'm', max_tokens: 9, messages, stream: true });
  const genai = await gemini.models.generateContentStream({ model: 'm', contents: 'x' });
  const local = await ollama.chat({ model: 'm', messages, stream: true });
  for (const source of [chat, responses, claude, genai, local]) {
    const r = await objectStream(source, { schema: Turn }).result;
    if (r.ok) assertType<Equal<typeof r.value, TurnOut>>();
  }
  for await (const delta of openAITextStream(responses)) assertType<Equal<typeof delta, string>>();
  for await (const delta of geminiTextStream(genai, { functionCall: 'act' })) assertType<Equal<typeof delta, string>>();
}
void fromClients;

// arktype (a function carrying ~standard) infers too; InferOutput reads any Standard Schema.
const Ark = type({ count: 'number', name: 'string' });
const ark = extract('{}', Ark);
if (ark.ok) assertType<Equal<typeof ark.value, { count: number; name: string }>>();
assertType<Equal<InferOutput<StandardSchema<unknown, { a: 1 }>>, { a: 1 }>>();

// A JSON Schema takes the type the caller names, or unknown.
const named = extract<{ n: number }>('{"n": 1}', { properties: { n: { type: 'integer' } } });
if (named.ok) assertType<Equal<typeof named.value, { n: number }>>();
const anonymous = extract('{}', { type: 'object' });
if (anonymous.ok) assertType<Equal<typeof anonymous.value, unknown>>();

// Closed vocabularies: a typo is a compile error, not a silent miss.
const kind: RepairKind = REPAIR_KINDS[0];
const klass: RepairClass = repairKinds()[0]!.class;
const keywordList: readonly IssueKeyword[] = ISSUE_KEYWORDS;
void [kind, klass, keywordList];
// @ts-expect-error: no such repair kind
const typo: RepairKind = 'trailing_coma';
// @ts-expect-error: no such repair kind or class to forbid
parseDetailed('{}', { forbid: ['trailng_comma'] });
// @ts-expect-error: no such class
parseDetailed('{}', { allow: ['quote'] });
const report = parseDetailed('{"a": 1,}');
// @ts-expect-error: the comparison can never be true
if (report.repairs[0]?.kind === 'trailing_coma') void 0;
// @ts-expect-error: the comparison can never be true
if (r.issues[0]?.keyword === 'requird') void 0;
void typo;

// Not a schema: a number, a string, a class instance with no ~standard.
// @ts-expect-error: a number is no schema
extract('{}', 42);
// @ts-expect-error: JSON text is no schema
extract('{}', '{"type": "object"}');
