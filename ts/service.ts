/**
 * The service layer, shaped like the Living Narrative Engine's `LlmJsonService` and
 * `LLMResponseProcessor` so an engine can switch to this package without rewriting its callers:
 * same names, same constructor options, same error classes and fields, same error event. What it does
 * better: think blocks are stripped, schema coercions are applied, every validation issue is reported (not
 * the first), and each stage reports metrics.
 */
import { clean as cleanText } from './clean.js';
import { parseDetailed } from './repair.js';
import { extractAsync } from './extract.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from './schema.js';
import { assertString } from './errors.js';
import type { SchemaIssue } from './schema.js';
import type { ParseResult, RepairRecord } from './repair.js';
import type { CoercionRecord } from './extract.js';

/** The logger the engines pass around; every method is optional. */
export interface Logger {
  debug?(message: string, context?: unknown): void;
  info?(message: string, context?: unknown): void;
  warn?(message: string, context?: unknown): void;
  error?(message: string, context?: unknown): void;
}

/** An event bus: `dispatch(eventName, payload)`. It may throw or reject; the service never lets that escape. */
export interface EventDispatcher {
  dispatch(eventName: string, payload: unknown): unknown;
}

/** The event the service dispatches on every failure: `{message, details}`. */
export const SYSTEM_ERROR_EVENT = 'core:system_error_occurred';

/** The stage a `JsonProcessingError` comes from. */
export type JsonProcessingStage = 'initial_clean' | 'initial_parse' | 'repair';

/** JSON could not be obtained from an LLM response (the Living Narrative Engine's error, with its fields). */
export class JsonProcessingError extends Error {
  override readonly name = 'JsonProcessingError';
  readonly stage: JsonProcessingStage;
  /** The error of the last attempt (for `repair`, the repairer's `JsonRepairError`). */
  readonly originalError: unknown;
  /** The `JSON.parse` error of the cleaned text, when parsing was tried. */
  readonly initialParseError: unknown;
  /** The cleaned text that was parsed. */
  readonly attemptedJsonString: string | undefined;

  constructor(message: string, fields: { stage: JsonProcessingStage; originalError?: unknown; initialParseError?: unknown; attemptedJsonString?: string }) {
    super(message, { cause: fields.originalError });
    this.stage = fields.stage;
    this.originalError = fields.originalError;
    this.initialParseError = fields.initialParseError;
    this.attemptedJsonString = fields.attemptedJsonString;
  }
}

/** Processing an LLM response failed; `details` says why (`validationErrors` for schema failures). */
export class LLMProcessingError extends Error {
  override readonly name = 'LLMProcessingError';
  readonly details: Readonly<Record<string, unknown>>;

  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, { cause: details.originalError });
    this.details = details;
  }
}

/** Dispatches the error event; a dispatcher that throws or rejects is logged, never propagated. */
export function safeDispatchError(dispatcher: EventDispatcher | undefined, message: string, details: Record<string, unknown>, logger?: Logger): void {
  if (!dispatcher || typeof dispatcher.dispatch !== 'function') {
    logger?.error?.(`${message} (no event dispatcher)`, details);
    return;
  }
  try {
    const result = dispatcher.dispatch(SYSTEM_ERROR_EVENT, { message, details });
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      (result as Promise<unknown>).then(undefined, (e: unknown) => logger?.error?.(`dispatching '${SYSTEM_ERROR_EVENT}' failed`, e));
    }
  } catch (e) {
    logger?.error?.(`dispatching '${SYSTEM_ERROR_EVENT}' failed`, e);
  }
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * One stage of processing one response, as a metrics collector receives it. With a JSON Schema,
 * `LLMResponseProcessor` reads, repairs, coerces and validates in one call: its `repair` metric carries that
 * call's duration and its `validate` metric the issues and coercions.
 */
export interface StageMetric {
  readonly stage: 'clean' | 'parse' | 'repair' | 'validate' | 'extract';
  readonly outcome: 'ok' | 'repaired' | 'failed';
  readonly durationMs: number;
  readonly actorId?: string;
  readonly inputLength?: number;
  readonly outputLength?: number;
  /** For `repair`: the repair kinds applied. */
  readonly repairKinds?: readonly string[];
  /** For `validate`: the keywords of the issues (empty when valid). */
  readonly issueKeywords?: readonly string[];
  /** For `validate`: the coercion rules applied. */
  readonly coercionRules?: readonly string[];
}

/** Receives one state object per stage. */
export interface MetricsCollector {
  record(metric: StageMetric): void;
}

/** What an `InMemoryMetricsCollector` has seen. */
export interface MetricsSummary {
  /**
   * Responses that ended: at `extract` (a success), or at a failed `clean`, `repair` or `validate` (a
   * failed strict `parse` is not an end: the repair follows).
   */
  readonly responses: number;
  readonly successRate: number;
  /** Share of parsed responses that needed repair. */
  readonly repairRate: number;
  readonly repairKinds: Readonly<Record<string, number>>;
  readonly issueKeywords: Readonly<Record<string, number>>;
  readonly coercionRules: Readonly<Record<string, number>>;
  /** Per stage: how many, and the p50/p95 durations in milliseconds. */
  readonly stages: Readonly<Record<string, { count: number; failed: number; p50: number; p95: number }>>;
}

/** A collector that keeps every metric in memory and summarizes them. */
export class InMemoryMetricsCollector implements MetricsCollector {
  readonly #metrics: StageMetric[] = [];

  record(metric: StageMetric): void {
    this.#metrics.push(metric);
  }

  get metrics(): readonly StageMetric[] {
    return this.#metrics;
  }

  reset(): void {
    this.#metrics.length = 0;
  }

  summary(): MetricsSummary {
    const count = (out: Record<string, number>, keys: readonly string[] | undefined) => {
      for (const k of keys ?? []) out[k] = (out[k] ?? 0) + 1;
    };
    const repairKinds: Record<string, number> = {};
    const issueKeywords: Record<string, number> = {};
    const coercionRules: Record<string, number> = {};
    const durations: Record<string, number[]> = {};
    const failedBy: Record<string, number> = {};
    let succeeded = 0;
    let failed = 0;
    let parsed = 0;
    let repaired = 0;
    for (const m of this.#metrics) {
      (durations[m.stage] ??= []).push(m.durationMs);
      if (m.outcome === 'failed') {
        failedBy[m.stage] = (failedBy[m.stage] ?? 0) + 1;
        // A failed strict parse is followed by the repair; any other failed stage ends its response.
        if (m.stage !== 'parse') failed++;
      }
      if (m.stage === 'extract' && m.outcome !== 'failed') succeeded++;
      if (m.stage === 'repair' && m.outcome !== 'failed') {
        parsed++;
        if (m.outcome === 'repaired') repaired++;
      }
      count(repairKinds, m.repairKinds);
      count(issueKeywords, m.issueKeywords);
      count(coercionRules, m.coercionRules);
    }
    const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
    const stages: Record<string, { count: number; failed: number; p50: number; p95: number }> = {};
    for (const [stage, list] of Object.entries(durations)) {
      const sorted = [...list].sort((a, b) => a - b);
      stages[stage] = { count: sorted.length, failed: failedBy[stage] ?? 0, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
    }
    const responses = succeeded + failed;
    return {
      responses,
      successRate: responses === 0 ? 0 : succeeded / responses,
      repairRate: parsed === 0 ? 0 : repaired / parsed,
      repairKinds,
      issueKeywords,
      coercionRules,
      stages,
    };
  }
}

/** Options of `LlmJsonService.parseAndRepair`. */
export interface ParseAndRepairServiceOptions {
  logger?: Logger;
  dispatcher?: EventDispatcher;
  /** Receives the `clean`, `parse` and `repair` stages. */
  metricsCollector?: MetricsCollector;
  actorId?: string;
}

/** Cleaning, parsing and repairing the JSON of an LLM response, as the Living Narrative Engine's `LlmJsonService`. */
export class LlmJsonService {
  /**
   * The JSON part of a response: reasoning blocks removed, then the text of the JSON value the locator finds
   * (past conversational prefixes such as "Sure, here is the JSON:" and out of code fences); the cleaned text,
   * trimmed, when there is none.
   */
  clean(raw: string): string {
    assertString(raw, 'LlmJsonService.clean');
    return this.#read(raw).cleaned;
  }

  /**
   * Cleans `raw` by reading its JSON (the locator finds it by reading it), and keeps what the reading gave, so
   * that `parseAndRepair` never repairs twice: the value or the repairer's error.
   */
  #read(raw: string): { cleaned: string; result?: ParseResult; error?: unknown } {
    const text = cleanText(raw).trim();
    try {
      const result = parseDetailed(text);
      const { start, end } = result.span;
      return { cleaned: end > start ? text.slice(start, end) : text, result };
    } catch (error) {
      // No JSON value: the cleaned text is what there is.
      return { cleaned: text, error };
    }
  }

  /**
   * The value of the JSON in `raw`: strict `JSON.parse` of the cleaned text first, then what the repairer read.
   * The `clean` metric carries the time of locating and reading the JSON; `repair` only what follows.
   *
   * @throws {TypeError} when `raw` is not a string.
   * @throws {JsonProcessingError} `initial_clean` when nothing is left after cleaning, `repair` when no JSON
   * could be read; an error event is dispatched first.
   */
  async parseAndRepair(raw: string, options: ParseAndRepairServiceOptions = {}): Promise<unknown> {
    const { logger, dispatcher, metricsCollector, actorId } = options;
    assertString(raw, 'LlmJsonService.parseAndRepair');
    let t = now();
    const { cleaned, result, error: repairError } = this.#read(raw);
    metricsCollector?.record({ stage: 'clean', outcome: cleaned ? 'ok' : 'failed', durationMs: now() - t, actorId, inputLength: raw.length, outputLength: cleaned.length });
    if (!cleaned) {
      const error = new JsonProcessingError('the response is empty after cleaning', { stage: 'initial_clean', attemptedJsonString: cleaned });
      safeDispatchError(dispatcher, error.message, { stage: error.stage, rawResponse: raw, actorId }, logger);
      throw error;
    }
    t = now();
    let initialParseError: unknown;
    try {
      const value: unknown = JSON.parse(cleaned);
      metricsCollector?.record({ stage: 'parse', outcome: 'ok', durationMs: now() - t, actorId, inputLength: cleaned.length });
      metricsCollector?.record({ stage: 'repair', outcome: 'ok', durationMs: 0, actorId, repairKinds: [] });
      return value;
    } catch (e) {
      initialParseError = e;
      metricsCollector?.record({ stage: 'parse', outcome: 'failed', durationMs: now() - t, actorId, inputLength: cleaned.length });
      logger?.warn?.('initial JSON.parse failed; repairing', { error: String(e) });
    }
    t = now();
    if (result) {
      const kinds = result.repairs.map((r: RepairRecord) => r.kind);
      metricsCollector?.record({ stage: 'repair', outcome: 'repaired', durationMs: now() - t, actorId, inputLength: raw.length, outputLength: result.json.length, repairKinds: kinds });
      logger?.debug?.('repaired the JSON', { repairs: kinds });
      return result.value;
    }
    metricsCollector?.record({ stage: 'repair', outcome: 'failed', durationMs: now() - t, actorId, inputLength: raw.length });
    const error = new JsonProcessingError(`no JSON could be read from the response: ${(repairError as Error)?.message ?? String(repairError)}`, {
      stage: 'repair',
      originalError: repairError,
      initialParseError,
      attemptedJsonString: cleaned,
    });
    safeDispatchError(dispatcher, error.message, { stage: error.stage, rawResponse: raw, actorId, error: String(repairError) }, logger);
    throw error;
  }
}

/** A validator in the shape of the engines' `ISchemaValidator`. */
export interface SchemaValidatorLike {
  validate(schemaId: string, data: unknown): { isValid: boolean; errors?: readonly unknown[] | null };
}

/** Options of `LLMResponseProcessor`: a JSON Schema (`schema`), or an engine's `schemaValidator` with `schemaId`. */
export interface LLMResponseProcessorOptions {
  /** A JSON Schema, a Standard Schema (zod, valibot, arktype, effect) or a {@link CompiledSchema}. */
  schema?: SchemaInput;
  schemaValidator?: SchemaValidatorLike;
  /** The schema id passed to `schemaValidator.validate` (default `'llm-turn-action-response'`). */
  schemaId?: string;
  logger?: Logger;
  safeEventDispatcher?: EventDispatcher;
  llmJsonService?: LlmJsonService;
  metricsCollector?: MetricsCollector;
}

/** What `processResponse` returns. `action` and `extractedData` are there for turn-action values. */
export interface ProcessedResponse {
  readonly success: true;
  /** The whole validated value (after coercions). */
  readonly value: unknown;
  readonly action?: { readonly chosenIndex: number; readonly speech: string };
  readonly extractedData?: { readonly thoughts: string; readonly notes?: readonly unknown[] };
  readonly coercions: readonly CoercionRecord[];
  readonly repairs: readonly RepairRecord[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Turns a raw LLM response into a validated value, as the Living Narrative Engine's `LLMResponseProcessor`. */
export class LLMResponseProcessor {
  readonly #schema: CompiledSchema | undefined;
  readonly #validator: SchemaValidatorLike | undefined;
  readonly #schemaId: string;
  readonly #logger: Logger | undefined;
  readonly #dispatcher: EventDispatcher | undefined;
  readonly #json: LlmJsonService;
  readonly #metrics: MetricsCollector | undefined;

  constructor(options: LLMResponseProcessorOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('LLMResponseProcessor expects an options object');
    if (options.schema === undefined && options.schemaValidator === undefined) throw new TypeError('LLMResponseProcessor needs a schema or a schemaValidator');
    this.#schema = options.schema === undefined ? undefined : compileSchema(options.schema);
    this.#validator = options.schemaValidator;
    this.#schemaId = options.schemaId ?? 'llm-turn-action-response';
    this.#logger = options.logger;
    this.#dispatcher = options.safeEventDispatcher;
    this.#json = options.llmJsonService ?? new LlmJsonService();
    this.#metrics = options.metricsCollector;
  }

  #fail(message: string, details: Record<string, unknown>): never {
    safeDispatchError(this.#dispatcher, message, details, this.#logger);
    throw new LLMProcessingError(message, details);
  }

  /**
   * Reads, repairs, coerces and validates the response of actor `actorId`.
   *
   * @throws {LLMProcessingError} when `raw` is not a string, holds no JSON, or does not validate
   * (`details.validationErrors`); the `core:system_error_occurred` event is dispatched first.
   */
  async processResponse(raw: string, actorId: string): Promise<ProcessedResponse> {
    if (typeof raw !== 'string') {
      this.#fail(`LLM response for actor ${actorId} is not a string`, { actorId, receivedType: raw === null ? 'null' : typeof raw });
    }
    let value: unknown;
    let coercions: readonly CoercionRecord[] = [];
    let repairs: readonly RepairRecord[] = [];
    const t = now();
    if (this.#schema) {
      const out = await extractAsync(raw, this.#schema);
      this.#metrics?.record({ stage: 'repair', outcome: out.value === undefined ? 'failed' : out.repairs.length ? 'repaired' : 'ok', durationMs: now() - t, actorId, inputLength: raw.length, repairKinds: out.repairs.map((r) => r.kind) });
      if (out.value === undefined) {
        this.#fail(`no JSON could be read from the LLM response for actor ${actorId}`, { actorId, rawResponse: raw, validationErrors: out.issues });
      }
      const keywords = out.issues.map((i: SchemaIssue) => i.keyword);
      this.#metrics?.record({ stage: 'validate', outcome: out.ok ? 'ok' : 'failed', durationMs: 0, actorId, issueKeywords: keywords, coercionRules: out.coercions.map((c) => c.rule) });
      if (!out.ok) {
        this.#fail(`the LLM response for actor ${actorId} does not match the schema: ${out.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`, {
          actorId,
          validationErrors: out.issues,
          parsed: out.value,
        });
      }
      ({ value, coercions, repairs } = out);
    } else {
      try {
        value = await this.#json.parseAndRepair(raw, { logger: this.#logger, dispatcher: this.#dispatcher, metricsCollector: this.#metrics, actorId });
      } catch (e) {
        const error = new LLMProcessingError(`no JSON could be read from the LLM response for actor ${actorId}`, { actorId, originalError: e });
        throw error;
      }
      const v = now();
      const { isValid, errors } = this.#validator!.validate(this.#schemaId, value);
      this.#metrics?.record({ stage: 'validate', outcome: isValid ? 'ok' : 'failed', durationMs: now() - v, actorId, issueKeywords: (errors ?? []).map((e) => (isRecord(e) && typeof e.keyword === 'string' ? e.keyword : 'error')) });
      if (!isValid) {
        this.#fail(`the LLM response for actor ${actorId} does not match schema '${this.#schemaId}'`, { actorId, validationErrors: errors ?? [], parsed: value });
      }
    }
    const e = now();
    const result: ProcessedResponse = { success: true, value, coercions, repairs, ...turnParts(value) };
    this.#metrics?.record({ stage: 'extract', outcome: 'ok', durationMs: now() - e, actorId, inputLength: raw.length });
    this.#logger?.debug?.(`processed the LLM response for actor ${actorId} in ${(now() - t).toFixed(1)} ms`);
    return result;
  }
}

/** `action` and `extractedData` of a turn-action value (the Living Narrative Engine's shape); nothing for other values. */
function turnParts(value: unknown): Pick<ProcessedResponse, 'action' | 'extractedData'> {
  if (!isRecord(value) || typeof value.chosenIndex !== 'number' || typeof value.speech !== 'string') return {};
  const extractedData: { thoughts: string; notes?: readonly unknown[] } = { thoughts: typeof value.thoughts === 'string' ? value.thoughts : '' };
  if (Array.isArray(value.notes)) extractedData.notes = value.notes;
  return { action: { chosenIndex: value.chosenIndex, speech: value.speech }, extractedData };
}
