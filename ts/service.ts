/**
 * The service layer, shaped like the Living Narrative Engine's `LlmJsonService` and
 * `LLMResponseProcessor` so an engine can switch to this package without rewriting its callers:
 * same names, same constructor options, same error classes and fields, same error event. What it does
 * better: think blocks are stripped, schema coercions are applied, every validation issue is reported (not
 * the first), and each stage reports metrics.
 *
 * One file, although long: the two classes, their errors and their metrics mirror one module of the engine,
 * and an engine's maintainer reads them side by side with it.
 */
import { clean as cleanText } from './clean.js';
import { parseDetailed } from './repair.js';
import { extractAsync } from './extract.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from './schema.js';
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

/**
 * The stage a `JsonProcessingError` comes from, with the engine's names: `initial_clean` (nothing left after
 * cleaning) and `final_parse_after_repair` (no JSON could be read, even with repairs).
 */
export type JsonProcessingStage = 'initial_clean' | 'final_parse_after_repair';

/** What a `JsonProcessingError` is built from; every field is optional, as in the engine. */
export interface JsonProcessingErrorDetails {
  readonly stage?: JsonProcessingStage | (string & {});
  readonly originalError?: unknown;
  readonly initialParseError?: unknown;
  readonly attemptedJsonString?: string;
}

const stackOf = (e: unknown): string | undefined =>
  e instanceof Error && typeof e.stack === 'string' ? e.stack : undefined;

/**
 * JSON could not be obtained from an LLM response (the Living Narrative Engine's error, with its fields).
 * Its `stack` ends with the stacks of `originalError` and `initialParseError`, as the engine's does.
 */
export class JsonProcessingError extends Error {
  override readonly name = 'JsonProcessingError';
  readonly stage: JsonProcessingStage | (string & {}) | undefined;
  /** The error of the last attempt (after repair: the repairer's `JsonRepairError`). */
  readonly originalError: unknown;
  /** The `JSON.parse` error of the cleaned text, when parsing was tried. */
  readonly initialParseError: unknown;
  /** The text that was being parsed: the cleaned text, or for `initial_clean` the raw response. */
  readonly attemptedJsonString: string | undefined;

  constructor(message: string, details: JsonProcessingErrorDetails = {}) {
    super(message, details.originalError === undefined ? undefined : { cause: details.originalError });
    this.stage = details.stage;
    this.originalError = details.originalError;
    this.initialParseError = details.initialParseError;
    this.attemptedJsonString = details.attemptedJsonString;
    const caused = stackOf(details.originalError);
    const initial = stackOf(details.initialParseError);
    if (caused !== undefined) this.stack = `${this.stack}\nCaused by: ${caused}`;
    if (initial !== undefined) this.stack = `${this.stack}\nInitial parse error: ${initial}`;
  }
}

/** Processing an LLM response failed; `details` says why (`validationErrors` for schema failures). */
export class LLMProcessingError extends Error {
  override readonly name = 'LLMProcessingError';
  readonly details: Readonly<Record<string, unknown>>;

  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, details.originalError === undefined ? undefined : { cause: details.originalError });
    this.details = details;
  }
}

/**
 * Dispatches `core:system_error_occurred` `{message, details}` (`details` defaults to `{}`). A dispatcher that
 * throws or rejects, or none at all, is logged through `logger.error` and never propagated. Resolves `true`
 * when the dispatcher took the event (it returned or resolved anything but `false`).
 */
export function safeDispatchError(
  dispatcher: EventDispatcher | undefined,
  message: string,
  details: Record<string, unknown> = {},
  logger?: Logger,
): Promise<boolean> {
  if (!dispatcher || typeof dispatcher.dispatch !== 'function') {
    logger?.error?.(`${message} (no event dispatcher)`, details);
    return Promise.resolve(false);
  }
  const failed = (e: unknown) => {
    logger?.error?.(`dispatching '${SYSTEM_ERROR_EVENT}' failed`, e);
    return false;
  };
  try {
    const result = dispatcher.dispatch(SYSTEM_ERROR_EVENT, { message, details });
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      return Promise.resolve(result).then((r) => r !== false, failed);
    }
    return Promise.resolve(result !== false);
  } catch (e) {
    return Promise.resolve(failed(e));
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
      durations[m.stage] ??= [];
      durations[m.stage]!.push(m.durationMs);
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
    const quantile = (sorted: number[], q: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
    const stages: Record<string, { count: number; failed: number; p50: number; p95: number }> = {};
    for (const [stage, list] of Object.entries(durations)) {
      const sorted = [...list].sort((a, b) => a - b);
      stages[stage] = {
        count: sorted.length,
        failed: failedBy[stage] ?? 0,
        p50: quantile(sorted, 0.5),
        p95: quantile(sorted, 0.95),
      };
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

/** The `TypeError` message for a non-string response, the engine's. */
const NOT_A_STRING = "Input 'jsonString' must be a string.";
/** The `initial_clean` message, the engine's. */
const EMPTY_AFTER_CLEANING = 'Cleaned JSON string is null or empty, cannot parse.';

/** The first 100 characters of `text` (never half a surrogate pair), with `...` when there is more. */
function preview(text: string): string {
  if (text.length <= 100) return text;
  const cut = /[\ud800-\udbff]/.test(text[99]!) ? 99 : 100;
  return `${text.slice(0, cut)}...`;
}

/** `{message, name}` of an error, for event details that must survive structured cloning and JSON. */
function describeError(e: unknown): { message: string; name: string } {
  return e instanceof Error ? { message: e.message, name: e.name } : { message: String(e), name: typeof e };
}

/**
 * Reports a failure: as the error event when there is a dispatcher, otherwise through `logger.error`
 * (with `details` as the second argument only when there are some).
 */
function report(
  message: string,
  details: Record<string, unknown> | undefined,
  dispatcher: EventDispatcher | undefined,
  logger: Logger | undefined,
): void {
  if (dispatcher) void safeDispatchError(dispatcher, message, details ?? {}, logger);
  else if (details === undefined) logger?.error?.(message);
  else logger?.error?.(message, details);
}

/** The text inside a code fence that wraps all of `text` (its info string dropped), or `text` itself. */
function unfenced(text: string): string {
  if (text.length < 6 || !text.startsWith('```') || !text.endsWith('```')) return text;
  let i = 3;
  while (i < text.length - 3 && /[\w.+-]/.test(text[i]!)) i++;
  return text.slice(i, text.length - 3).trim();
}

/**
 * `text` without a lead-in such as "Sure, here is the JSON:" or "The JSON response is:": a first line that
 * ends with a colon within its first 100 characters and names JSON.
 */
function withoutLeadIn(text: string): string {
  const colon = text.indexOf(':');
  if (colon < 0 || colon > 100) return text;
  const head = text.slice(0, colon);
  return /\bjson\b/i.test(head) && !/[\n{}[\]"`]/.test(head) ? text.slice(colon + 1).trim() : text;
}

/** Cleaning, parsing and repairing the JSON of an LLM response, as the Living Narrative Engine's `LlmJsonService`. */
export class LlmJsonService {
  /**
   * The JSON part of a response: reasoning blocks removed, then the text of the JSON value the locator finds
   * (past conversational prefixes such as "Sure, here is the JSON:" and out of code fences). When there is no
   * JSON value, the trimmed text without a lead-in and without a fence around it: `''` for a response that
   * is only "Here is the JSON:" or an empty fence. Anything but a string is returned as it is, as the engine does.
   */
  clean(raw: string): string;
  clean<T>(raw: T): T;
  clean(raw: unknown): unknown {
    return typeof raw === 'string' ? this.#read(raw).cleaned : raw;
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
      // No JSON value: what is left once the wrapping is gone.
      return { cleaned: unfenced(withoutLeadIn(text)), error };
    }
  }

  /**
   * The value of the JSON in `raw`: strict `JSON.parse` of the cleaned text first, then what the repairer read.
   * Failures are reported before the throw: as `core:system_error_occurred` through `dispatcher`, else through
   * `logger.error`. The `clean` metric carries the time of locating and reading the JSON; `repair` only what follows.
   *
   * @throws {TypeError} when `raw` is not a string (`Input 'jsonString' must be a string.`).
   * @throws {JsonProcessingError} `initial_clean` when nothing is left after cleaning, `final_parse_after_repair`
   * when no JSON could be read.
   */
  async parseAndRepair(raw: string, options: ParseAndRepairServiceOptions = {}): Promise<unknown> {
    const { logger, dispatcher, metricsCollector, actorId } = options ?? {};
    if (typeof raw !== 'string') {
      report(`parseAndRepair: ${NOT_A_STRING} Received type: ${typeof raw}`, undefined, dispatcher, logger);
      throw new TypeError(NOT_A_STRING);
    }
    let t = now();
    const { cleaned, result, error: repairError } = this.#read(raw);
    metricsCollector?.record({
      stage: 'clean',
      outcome: cleaned ? 'ok' : 'failed',
      durationMs: now() - t,
      actorId,
      inputLength: raw.length,
      outputLength: cleaned.length,
    });
    if (!cleaned) {
      report(`parseAndRepair: ${EMPTY_AFTER_CLEANING}`, { originalInput: raw }, dispatcher, logger);
      throw new JsonProcessingError(EMPTY_AFTER_CLEANING, { stage: 'initial_clean', attemptedJsonString: raw });
    }
    t = now();
    let initialParseError: unknown;
    try {
      const value: unknown = JSON.parse(cleaned);
      metricsCollector?.record({
        stage: 'parse',
        outcome: 'ok',
        durationMs: now() - t,
        actorId,
        inputLength: cleaned.length,
      });
      metricsCollector?.record({ stage: 'repair', outcome: 'ok', durationMs: 0, actorId, repairKinds: [] });
      logger?.debug?.('parseAndRepair: Successfully parsed JSON on first attempt after cleaning.', {
        inputLength: raw.length,
        cleanedLength: cleaned.length,
      });
      return value;
    } catch (e) {
      initialParseError = e;
      metricsCollector?.record({
        stage: 'parse',
        outcome: 'failed',
        durationMs: now() - t,
        actorId,
        inputLength: cleaned.length,
      });
      logger?.warn?.(
        `parseAndRepair: Initial JSON.parse failed after cleaning. Attempting repair. Error: ${describeError(e).message}`,
        {
          originalInputLength: raw.length,
          cleanedJsonStringLength: cleaned.length,
          cleanedJsonPreview: preview(cleaned),
          error: describeError(e),
        },
      );
    }
    t = now();
    if (result) {
      const kinds = result.repairs.map((r: RepairRecord) => r.kind);
      metricsCollector?.record({
        stage: 'repair',
        outcome: 'repaired',
        durationMs: now() - t,
        actorId,
        inputLength: raw.length,
        outputLength: result.json.length,
        repairKinds: kinds,
      });
      logger?.debug?.('parseAndRepairJson: Successfully parsed JSON after repair.', {
        cleanedLength: cleaned.length,
        repairedLength: result.json.length,
        repairs: result.repairs,
      });
      return result.value;
    }
    metricsCollector?.record({
      stage: 'repair',
      outcome: 'failed',
      durationMs: now() - t,
      actorId,
      inputLength: raw.length,
    });
    const message = `Failed to parse JSON even after repair attempt. Repair/Parse Error: ${describeError(repairError).message}`;
    report(
      `parseAndRepairJson: ${message}`,
      {
        cleanedJsonStringLength: cleaned.length,
        cleanedJsonPreview: preview(cleaned),
        initialParseError: describeError(initialParseError),
        repairAndParseError: describeError(repairError),
      },
      dispatcher,
      logger,
    );
    throw new JsonProcessingError(message, {
      stage: 'final_parse_after_repair',
      originalError: repairError,
      initialParseError,
      attemptedJsonString: cleaned,
    });
  }
}

/** A validator in the shape of the engines' `ISchemaValidator`. */
export interface SchemaValidatorLike {
  validate(schemaId: string, data: unknown): { isValid: boolean; errors?: readonly unknown[] | null };
  /** Whether the schema with this id is loaded; the processor checks `schemaId` once, in the constructor. */
  isSchemaLoaded(schemaId: string): boolean;
}

/** The id of the engine's turn-action schema, `schemaId`'s default: its values become `action` and `extractedData`. */
export const LLM_TURN_ACTION_RESPONSE_SCHEMA_ID = 'llmTurnActionResponseSchema/v5';

/**
 * Options of `LLMResponseProcessor`. Either a `schema` (this package extracts and validates), or the engine's
 * four dependencies: `schemaValidator`, `logger`, `safeEventDispatcher` and `llmJsonService`, each required
 * and checked as the engine checks them.
 */
export interface LLMResponseProcessorOptions {
  /** A JSON Schema, a Standard Schema (zod, valibot, arktype, effect) or a {@link CompiledSchema}. */
  schema?: SchemaInput;
  schemaValidator?: SchemaValidatorLike;
  /** The schema id passed to `schemaValidator` (default {@link LLM_TURN_ACTION_RESPONSE_SCHEMA_ID}). */
  schemaId?: string;
  logger?: Logger;
  safeEventDispatcher?: EventDispatcher;
  /** Anything with `parseAndRepair(raw, {logger})`; with a `schemaValidator` it is required. */
  llmJsonService?: Pick<LlmJsonService, 'parseAndRepair'>;
  metricsCollector?: MetricsCollector;
}

/** A note as the turn-action schema defines it (the engine also accepts plain strings). */
export type TurnNote =
  | string
  | {
      readonly text: string;
      readonly subject: string;
      readonly context?: string;
      readonly timestamp?: string;
      readonly [key: string]: unknown;
    };

/**
 * What `processResponse` returns. A turn action (the default `schemaId`, or a value with a numeric
 * `chosenIndex` and a string `speech`) has `action` and `extractedData`, and then `value`, `coercions` and
 * `repairs` are not enumerable, so the result deep-equals the engine's `{success, action, extractedData}`.
 */
export interface ProcessedResponse {
  readonly success: true;
  /** The whole validated value (after coercions). */
  readonly value: unknown;
  readonly action?: { readonly chosenIndex: number; readonly speech: string };
  readonly extractedData?: {
    readonly thoughts: string;
    readonly notes?: readonly TurnNote[];
    readonly cognitiveLedger?: {
      readonly settled_conclusions: readonly string[];
      readonly open_questions: readonly string[];
    };
  };
  readonly coercions: readonly CoercionRecord[];
  readonly repairs: readonly RepairRecord[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFunction = (o: unknown, name: string): boolean =>
  typeof o === 'object' && o !== null && typeof (o as Record<string, unknown>)[name] === 'function';

/**
 * Turns a raw LLM response into a validated value, as the Living Narrative Engine's `LLMResponseProcessor`:
 * the same constructor checks, messages, events and result for the engine's dependencies, and with a
 * `schema` this package's extraction (the right candidate, coercions, every issue).
 */
export class LLMResponseProcessor {
  readonly #schema: CompiledSchema | undefined;
  readonly #validator: SchemaValidatorLike | undefined;
  readonly #schemaId: string;
  readonly #logger: Logger | undefined;
  readonly #dispatcher: EventDispatcher | undefined;
  readonly #json: Pick<LlmJsonService, 'parseAndRepair'>;
  readonly #metrics: MetricsCollector | undefined;

  /**
   * @throws {TypeError} for options that are not an object, neither `schema` nor `schemaValidator`, or (with a
   * `schemaValidator`) a dependency that is missing or lacks its methods, with the engine's messages.
   * @throws {Error} `Schema <id> not loaded` when `schemaValidator.isSchemaLoaded(schemaId)` is false.
   */
  constructor(options: LLMResponseProcessorOptions) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('LLMResponseProcessor expects an options object');
    const { schema, schemaValidator, logger, safeEventDispatcher, llmJsonService } = options;
    this.#schemaId = options.schemaId ?? LLM_TURN_ACTION_RESPONSE_SCHEMA_ID;
    if (schema === undefined) {
      if (!isFunction(schemaValidator, 'validate') || !isFunction(schemaValidator, 'isSchemaLoaded')) {
        throw new TypeError('LLMResponseProcessor needs a valid ISchemaValidator');
      }
      if (!logger) throw new TypeError('LLMResponseProcessor needs a valid ILogger');
      if (!isFunction(safeEventDispatcher, 'dispatch'))
        throw new TypeError('LLMResponseProcessor requires a valid ISafeEventDispatcher');
      if (!isFunction(llmJsonService, 'parseAndRepair'))
        throw new TypeError('LLMResponseProcessor requires a valid LlmJsonService');
      if (!schemaValidator!.isSchemaLoaded(this.#schemaId)) throw new Error(`Schema ${this.#schemaId} not loaded`);
    }
    this.#schema = schema === undefined ? undefined : compileSchema(schema);
    this.#validator = schema === undefined ? schemaValidator : undefined;
    this.#logger = logger;
    this.#dispatcher = safeEventDispatcher;
    this.#json = llmJsonService ?? new LlmJsonService();
    this.#metrics = options.metricsCollector;
  }

  #fail(
    message: string,
    eventMessage: string,
    eventDetails: Record<string, unknown>,
    details: Record<string, unknown>,
  ): never {
    void safeDispatchError(this.#dispatcher, eventMessage, eventDetails, this.#logger);
    throw new LLMProcessingError(message, details);
  }

  /** The failure of reading JSON from `raw`, as the engine reports it. */
  #unreadable(raw: string, actorId: string, error: unknown): never {
    const message = `LLMResponseProcessor: JSON could not be parsed for actor ${actorId}: ${describeError(error).message}`;
    this.#fail(
      message,
      message,
      { actorId, rawResponse: raw, error: describeError(error).message, stack: stackOf(error) },
      { actorId, originalError: error },
    );
  }

  /**
   * Reads, repairs, validates (and with a `schema`, coerces) the response of actor `actorId`.
   *
   * @throws {LLMProcessingError} when `raw` is not a string, holds no JSON (`JSON could not be parsed for actor
   * …`), or does not validate (`LLM response JSON schema validation failed for actor ….`, with
   * `details.validationErrors`). The `core:system_error_occurred` event is dispatched first; an injected
   * `llmJsonService` that throws is reported the same way.
   */
  async processResponse(raw: string, actorId: string): Promise<ProcessedResponse> {
    if (typeof raw !== 'string') {
      const message = `LLM response must be a JSON string for actor ${actorId}.`;
      this.#fail(
        message,
        `LLMResponseProcessor: ${message}`,
        { actorId, receivedType: raw === null ? 'null' : typeof raw },
        {},
      );
    }
    const invalid = (errors: unknown, parsed: unknown, summary: string): never =>
      this.#fail(
        `LLM response JSON schema validation failed for actor ${actorId}.${summary}`,
        `LLMResponseProcessor: schema invalid for actor ${actorId}`,
        { errors, parsed },
        { validationErrors: errors },
      );
    let value: unknown;
    let coercions: readonly CoercionRecord[] = [];
    let repairs: readonly RepairRecord[] = [];
    const t = now();
    if (this.#schema) {
      const out = await extractAsync(raw, this.#schema);
      this.#metrics?.record({
        stage: 'repair',
        outcome: out.value === undefined ? 'failed' : out.repairs.length ? 'repaired' : 'ok',
        durationMs: now() - t,
        actorId,
        inputLength: raw.length,
        repairKinds: out.repairs.map((r) => r.kind),
      });
      if (out.value === undefined)
        this.#unreadable(raw, actorId, new Error(out.issues[0]?.message ?? 'no JSON value found'));
      const keywords = out.issues.map((i: SchemaIssue) => i.keyword);
      this.#metrics?.record({
        stage: 'validate',
        outcome: out.ok ? 'ok' : 'failed',
        durationMs: 0,
        actorId,
        issueKeywords: keywords,
        coercionRules: out.coercions.map((c) => c.rule),
      });
      if (!out.ok)
        invalid(out.issues, out.value, ` ${out.issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; ')}`);
      ({ value, coercions, repairs } = out);
    } else {
      // Only `logger`, as the engine passes it: the processor reports failures itself, once.
      const serviceOptions = this.#metrics
        ? { logger: this.#logger, metricsCollector: this.#metrics, actorId }
        : { logger: this.#logger };
      try {
        value = await this.#json.parseAndRepair(raw, serviceOptions as ParseAndRepairServiceOptions);
      } catch (e) {
        this.#unreadable(raw, actorId, e);
      }
      const v = now();
      const { isValid, errors } = this.#validator!.validate(this.#schemaId, value);
      this.#metrics?.record({
        stage: 'validate',
        outcome: isValid ? 'ok' : 'failed',
        durationMs: now() - v,
        actorId,
        issueKeywords: (errors ?? []).map((e) => (isRecord(e) && typeof e.keyword === 'string' ? e.keyword : 'error')),
      });
      if (!isValid) invalid(errors, value, '');
    }
    const e = now();
    const turn =
      this.#validator !== undefined && this.#schemaId === LLM_TURN_ACTION_RESPONSE_SCHEMA_ID
        ? turnParts(value, true)
        : turnParts(value, false);
    if (turn) {
      this.#logger?.debug?.(
        `LLMResponseProcessor: Validated LLM output for actor ${actorId}. Chosen ID: ${String(turn.action.chosenIndex)}`,
      );
      const ledger = turn.extractedData.cognitiveLedger;
      if (ledger) {
        this.#logger?.info?.(`LLMResponseProcessor: cognitive_ledger extracted for actor ${actorId}`, {
          settled_conclusions_count: Array.isArray(ledger.settled_conclusions) ? ledger.settled_conclusions.length : 0,
          open_questions_count: Array.isArray(ledger.open_questions) ? ledger.open_questions.length : 0,
        });
      } else {
        this.#logger?.info?.(`LLMResponseProcessor: NO cognitive_ledger in response for actor ${actorId}`);
      }
    }
    const result = turn ? { success: true as const, ...turn } : { success: true as const, value, coercions, repairs };
    if (turn) {
      // Present but not enumerable: the result deep-equals the engine's `{success, action, extractedData}`.
      Object.defineProperties(result, {
        value: { value },
        coercions: { value: coercions },
        repairs: { value: repairs },
      });
    }
    this.#metrics?.record({ stage: 'extract', outcome: 'ok', durationMs: now() - e, actorId, inputLength: raw.length });
    return result as ProcessedResponse;
  }
}

/**
 * `action` and `extractedData` of a turn-action value (the engine's shape): `thoughts`, and `notes` and
 * `cognitiveLedger` (from `cognitive_ledger`) when present. With `always` (the engine's turn-action schema
 * validated it), any object; otherwise only a value with a numeric `chosenIndex` and a string `speech`.
 */
function turnParts(
  value: unknown,
  always: boolean,
): Required<Pick<ProcessedResponse, 'action' | 'extractedData'>> | undefined {
  if (!isRecord(value)) return undefined;
  const { chosenIndex, speech, thoughts, notes, cognitive_ledger } = value as Record<string, never>;
  if (!always && (typeof chosenIndex !== 'number' || typeof speech !== 'string')) return undefined;
  return {
    action: { chosenIndex, speech },
    extractedData: {
      thoughts,
      ...(notes !== undefined ? { notes } : {}),
      ...(cognitive_ledger !== undefined ? { cognitiveLedger: cognitive_ledger } : {}),
    },
  };
}
