// A consumer of the published types: compiled by `tsc` against the package's own .d.ts (not the sources).
import {
  init,
  queryWithCorrection,
  isTransportError,
  SchemaValidationError,
  createOpenAIQuery,
  createAnthropicQuery,
  openAIText,
  openAIToolArguments,
  openAITextStream,
  anthropicText,
  anthropicToolInput,
  anthropicTextStream,
  serverSentEvents,
  ProviderError,
  type BackoffOptions,
  type QueryWithCorrectionOptions,
  type QueryWithCorrectionResult,
  type QueryContext,
  type QueryHistoryEntry,
  type CheckProblem,
  type CorrectionContext,
  type Provider,
  type OpenAIStreamOptions,
  type ServerSentEvent,
  parseAndRepair,
  repairJson,
  parseDetailed,
  repairKinds,
  LLMResponseSanitizer,
  JsonRepairError,
  type ParseResult,
  type RepairOptions,
  type RepairRecord,
  type JsonRepairErrorKind,
  clean,
  cleanDetailed,
  StreamCleaner,
  createCleanStream,
  cleanChunks,
  COMMON_THINK_TAGS,
  type CleanOptions,
  type CleanResult,
  type ThinkTag,
  PartialJsonParser,
  createPartialJsonStream,
  partialJsonValues,
  type PartialJsonOptions,
  type PartialJsonResult,
  type PartialJsonUpdate,
  extract,
  compileSchema,
  validate,
  buildCorrectionPrompt,
  standardIssues,
  type CompiledSchema,
  SchemaCompileError,
  type ExtractOptions,
  type ExtractResult,
  type CoercionRecord,
  type CoercionRule,
  type SchemaIssue,
  type SchemaOptions,
  type StandardIssue,
  type ValidationResult,
} from 'llm-response-sanitizer';

await init();
const options: RepairOptions = {
  maxDepth: 64,
  maxInputLength: 1_000_000,
  forbid: ['truncation'],
  allow: ['syntax'],
  strict: false,
};
const value: unknown = parseAndRepair('{"a": 1,}', options);
const text: string = repairJson('[1,]');
const detailed: ParseResult = parseDetailed('{a: 1}');
const status: 'valid' | 'repaired' = detailed.status;
const first: RepairRecord | undefined = detailed.repairs[0];
const where: number = (first?.position ?? 0) + detailed.span.start + detailed.span.end;
const sanitized: string = LLMResponseSanitizer.sanitize('{"a": 1}');
const codes: string[] = repairKinds().map((k) => k.kind);
try {
  parseAndRepair('nothing');
} catch (e) {
  if (e instanceof JsonRepairError) {
    const kind: JsonRepairErrorKind = e.kind;
    const n: string = e.name;
    const line: number = e.line + e.column + e.position;
    void [kind, n, line];
  }
}
// @ts-expect-error: the input must be a string
parseAndRepair(42);
// @ts-expect-error: status is a closed union
const wrong: ParseResult['status'] = 'failed';
void [value, text, status, where, sanitized, codes, wrong];

const cleanOptions: CleanOptions = {
  thinkTags: [...COMMON_THINK_TAGS, { start: '<plan>', end: '</plan>' }],
  openingTagGracePeriod: Infinity,
  responseStartTextToRemove: ['Narrator:'],
  removeTimestampPrefix: true,
  removeAssistantPrefix: true,
  trim: false,
};
const cleaned: string = clean('<think>x</think>y', cleanOptions);
const result: CleanResult = cleanDetailed('<think>x</think>y');
const thought: string | null = result.reasoning;
const tag: ThinkTag = COMMON_THINK_TAGS[0]!;
{
  using cleaner = new StreamCleaner({ expectOnlyClosingThinkTag: true });
  const streamed: string = cleaner.push('a</think>b') + cleaner.finish();
  const pending: string | null = cleaner.pendingReasoning;
  void [streamed, pending];
}
const piped: ReadableStream<string> = new ReadableStream<Uint8Array>().pipeThrough(
  createCleanStream({}, { onReasoning: (r: string) => void r }),
);
for await (const part of cleanChunks(['a', new Uint8Array([98])])) {
  const p: string = part;
  void p;
}
// @ts-expect-error: tag pairs are objects
clean('x', { thinkTags: [['<a>', '</a>']] });
void [cleaned, thought, tag, piped];

// Streaming JSON.
const partialOptions: PartialJsonOptions = { maxDepth: 100, schema: { properties: { mood: { enum: ['calm'] } } } };
{
  using parser = new PartialJsonParser(partialOptions);
  const step: PartialJsonResult = parser.push('{"mood": "ca');
  const partialValue: unknown = step.value;
  const whole: boolean = step.complete && parser.complete;
  const finished: unknown = parser.finish();
  void [partialValue, whole, finished, parser.error?.kind];
}
const detailedFinish: ParseResult = new PartialJsonParser().finishDetailed();
const jsonStream: TransformStream<string | ArrayBufferView | ArrayBuffer, PartialJsonUpdate> =
  createPartialJsonStream();
async function readUpdates(): Promise<void> {
  for await (const u of partialJsonValues(['{"a": 1}'])) {
    const done: boolean = u.done;
    void done;
  }
}
void [detailedFinish, jsonStream, readUpdates];
// @ts-expect-error: chunks are strings
new PartialJsonParser().push(1);

// Schema-guided extraction.
const schemaOptions: SchemaOptions = {
  defaultDraft: '7',
  remotes: { 'https://example.com/s.json': { type: 'string' } },
  assertFormat: true,
};
const compiledSchema: CompiledSchema = compileSchema(
  { type: 'object', properties: { n: { type: 'integer' } } },
  schemaOptions,
);
const rule: CoercionRule = 'string_to_integer';
const extractOptions: ExtractOptions = { forbidCoercions: [rule], coerce: true, maxDepth: 100 };
const extracted: ExtractResult = extract('{"n": "1"}', compiledSchema, extractOptions);
const coercion: CoercionRecord | undefined = extracted.coercions[0];
const issue: SchemaIssue | undefined = extracted.issues[0];
const checked: ValidationResult = validate({ n: 1 }, compiledSchema);
const standard: StandardIssue[] = standardIssues(checked.issues);
const prompt: string = buildCorrectionPrompt({ issues: extracted.issues, invalidOutput: '{}', schema: compiledSchema });
const standardResult = compiledSchema['~standard'].validate(1);
const compileFailed: boolean = (() => {
  try {
    compileSchema({ $ref: '#/x' });
    return false;
  } catch (e) {
    return e instanceof SchemaCompileError && e.code === 'unresolved_ref';
  }
})();
void [coercion, issue, standard, prompt, standardResult, compileFailed, extracted.span?.start, extracted.candidate];
compiledSchema.free();

// The query loop and the provider helpers.
async function queryLoop(signal: AbortSignal): Promise<void> {
  const backoff: BackoffOptions = { initialDelayMs: 100, maxDelayMs: 1_000, maxRetries: 2, jitter: false };
  const openai = createOpenAIQuery({
    baseURL: 'http://localhost:8080/v1',
    model: 'm',
    stream: true,
    onDelta: (d: string) => void d,
  });
  const anthropic = createAnthropicQuery({ model: 'claude', apiKey: 'k' });
  const options: QueryWithCorrectionOptions = {
    query: (p: string, context: QueryContext) =>
      context.attempt > 1 ? anthropic(p, context) : openai(p, { signal: context.signal }),
    prompt: 'p',
    schema: { type: 'object' },
    maxRetries: 1,
    signal,
    backoff,
    onAttempt: (entry: QueryHistoryEntry) => void (entry.kind === 'answer' ? entry.issues.length : entry.retryInMs),
    check: (value: unknown): CheckProblem[] => (value === null ? [{ path: '', message: 'null' }] : []),
    correctionPrompt: (c: CorrectionContext) => `${c.prompt} ${c.issues.length}`,
  };
  try {
    const result: QueryWithCorrectionResult = await queryWithCorrection(options);
    void [result.value, result.attempts, result.history.length];
  } catch (e) {
    if (e instanceof SchemaValidationError) void [e.issues, e.attempts, e.lastResponse];
    if (e instanceof ProviderError) void [e.status, e.retryAfterMs, e.code, e.provider satisfies Provider];
    void isTransportError(e);
  }
  const response = await fetch('http://localhost:8080/v1/chat/completions');
  for await (const delta of openAITextStream(response, { toolArguments: 'act' } satisfies OpenAIStreamOptions))
    void (delta satisfies string);
  for await (const delta of anthropicTextStream(response.body!, { toolInput: true })) void (delta satisfies string);
  for await (const event of serverSentEvents(['data: 1\n\n'])) void (event satisfies ServerSentEvent);
  const texts: string[] = [
    openAIText({}),
    openAIToolArguments({}, { name: 'f' }),
    anthropicText({}),
    anthropicToolInput({}),
  ];
  void texts;
}
void queryLoop;
