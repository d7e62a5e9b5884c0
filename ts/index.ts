/**
 * The public surface, listed one by one. The entries (`node.ts`, `browser.ts`) add `init` and re-export
 * everything here; the wasm door (`wasm.ts`) is internal.
 */
export { parseAndRepair, repairJson, parseDetailed, repairKinds, REPAIR_KINDS, REPAIR_CLASSES } from './repair.js';
export type { RepairOptions, RepairRecord, RepairKind, RepairClass, ParseResult } from './repair.js';
export { clean, cleanDetailed, StreamCleaner, COMMON_THINK_TAGS } from './clean.js';
export { wilmerCleanOptions } from './wilmer.js';
export type { WilmerEndpointConfig, WilmerWorkflowNodeConfig, WilmerCleanSettings } from './wilmer.js';
export type { CleanOptions, CleanResult, ThinkTag } from './clean.js';
export { createCleanStream, cleanChunks } from './streams.js';
export type { CleanStreamHooks, TextChunk } from './streams.js';
export { PartialJsonParser } from './partial.js';
export type { PartialJsonOptions, PartialJsonResult, DeepPartial } from './partial.js';
export { createPartialJsonStream, partialJsonValues } from './partial-streams.js';
export { objectStream, providerTextStream } from './object-stream.js';
export type {
  ObjectStream,
  ObjectStreamOptions,
  ObjectStreamUpdate,
  ProviderTextStreamOptions,
  StreamFormat,
} from './object-stream.js';
export type { PartialJsonUpdate } from './partial-streams.js';
export {
  compileSchema,
  validate,
  CompiledSchema,
  SchemaCompileError,
  standardIssues,
  ISSUE_KEYWORDS,
} from './schema.js';
export type {
  SchemaDraft,
  SchemaOptions,
  SchemaIssue,
  SchemaInput,
  IssueKeyword,
  ValidationResult,
  StandardIssue,
} from './schema.js';
export { isStandardSchema } from './standard.js';
export type {
  StandardSchema,
  StandardSchemaIssue,
  StandardResult,
  StandardJsonSchemaConverter,
  StandardPathSegment,
  InferOutput,
  JsonSchema,
} from './standard.js';
export { extract, extractAsync } from './extract.js';
export type {
  ExtractOptions,
  ExtractResult,
  ExtractSuccess,
  ExtractFailure,
  CoercionRecord,
  CoercionRule,
} from './extract.js';
export { buildCorrectionPrompt } from './correction.js';
export type { CorrectionPromptOptions } from './correction.js';
export { LLMResponseSanitizer } from './sanitizer.js';
export {
  LlmJsonService,
  LLMResponseProcessor,
  JsonProcessingError,
  LLMProcessingError,
  InMemoryMetricsCollector,
  safeDispatchError,
  SYSTEM_ERROR_EVENT,
  LLM_TURN_ACTION_RESPONSE_SCHEMA_ID,
} from './service.js';
export type {
  Logger,
  EventDispatcher,
  JsonProcessingStage,
  JsonProcessingErrorDetails,
  TurnNote,
  StageMetric,
  MetricsCollector,
  MetricsSummary,
  ParseAndRepairServiceOptions,
  SchemaValidatorLike,
  LLMResponseProcessorOptions,
  ProcessedResponse,
} from './service.js';
export { queryWithCorrection, isTransportError, SchemaValidationError } from './query.js';
export type {
  QueryWithCorrectionOptions,
  QueryWithCorrectionResult,
  QueryHistoryEntry,
  QueryContext,
  BackoffOptions,
  CorrectionContext,
  CheckProblem,
} from './query.js';
export {
  openAIText,
  openAIToolArguments,
  openAITextStream,
  anthropicText,
  anthropicToolInput,
  anthropicTextStream,
  geminiText,
  geminiFunctionArguments,
  geminiTextStream,
  ollamaText,
  ollamaToolArguments,
  ollamaTextStream,
  providerText,
  providerToolArguments,
  serverSentEvents,
  createOpenAIQuery,
  createAnthropicQuery,
  createGeminiQuery,
  ProviderError,
} from './providers.js';
export type {
  Provider,
  ServerSentEvent,
  ByteSource,
  ProviderStream,
  OpenAIStreamOptions,
  AnthropicStreamOptions,
  GeminiStreamOptions,
  OllamaStreamOptions,
  ProviderQueryOptions,
  OpenAIQueryOptions,
  FetchLike,
} from './providers.js';
export { JsonRepairError, ModuleTrapError } from './errors.js';
export type { JsonRepairErrorKind, JsonRepairErrorFields, ModuleTrapReason } from './errors.js';
export { isReady, wasmMemorySize } from './wasm.js';

/** Prepares the WebAssembly module. Idempotent: Node is ready on import; browsers fetch the `.wasm` once. */
export declare function init(
  source?: URL | string | Request | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): Promise<void>;

/*
 * Host types the declarations name. Browsers (the DOM lib), Node (@types/node) and Workers types declare
 * them in full; a project with `lib: ["ES2022"]` alone has none, and these empty declarations, which merge
 * with the full ones where those exist, let the package's types compile there too.
 */
declare global {
  interface URL {}
  interface Request {}
  interface Response {}
  interface AbortSignal {}
  // biome-ignore lint/suspicious/noExplicitAny: the same defaults as the DOM's declarations it merges with
  interface ReadableStream<R = any> {}
  // biome-ignore lint/suspicious/noExplicitAny: as above
  interface TransformStream<I = any, O = any> {}
  namespace WebAssembly {
    interface Module {}
  }
}
