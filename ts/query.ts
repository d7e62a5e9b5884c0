/**
 * The self-correcting query loop, after the Cognitive Triangulation Pipeline's EntityScout agent: ask the model, extract
 * the value against the schema, and when it does not match, ask again with a correction prompt that lists
 * every problem. Transport failures (network errors, 429, 5xx) are a different thing: they are retried after
 * an exponential backoff and never reach a correction prompt, because the model never answered.
 */
import { extractAsync } from './extract.js';
import { buildCorrectionPrompt } from './correction.js';
import { compileSchema, CompiledSchema, type SchemaInput, type SchemaIssue } from './schema.js';
import { abortError, assertString } from './errors.js';
import type { ExtractOptions, CoercionRecord } from './extract.js';
import type { RepairRecord } from './repair.js';

/** What `query` is told besides the prompt. */
export interface QueryContext {
  /** 1-based number of the answer being asked for (a transport retry asks for the same answer again). */
  readonly attempt: number;
  /** Whether this prompt is a correction of an earlier answer. */
  readonly correction: boolean;
  /** The caller's signal, to pass on to `fetch`. */
  readonly signal: AbortSignal | undefined;
  /** Everything so far. */
  readonly history: readonly QueryHistoryEntry[];
}

/** Exponential backoff for transport errors. */
export interface BackoffOptions {
  /** Delay before the first retry (default 500 ms); it doubles each time. */
  readonly initialDelayMs?: number;
  /** Largest delay (default 8,000 ms); a server's `Retry-After` is honoured up to this. */
  readonly maxDelayMs?: number;
  /** Transport retries per answer (default 3); the count starts again after every answer. */
  readonly maxRetries?: number;
  /** Randomize each delay between half and all of it (default true), so clients do not retry in step. */
  readonly jitter?: boolean;
}

/** What the correction prompt builder receives. */
export interface CorrectionContext {
  /** The original prompt. */
  readonly prompt: string;
  /** The rejected answer. */
  readonly response: string;
  readonly issues: readonly SchemaIssue[];
  readonly schema: unknown;
  /** 1-based number of the rejected answer. */
  readonly attempt: number;
}

/** Options of {@link queryWithCorrection}. */
export interface QueryWithCorrectionOptions<T = unknown> {
  /** The caller's LLM call: a prompt in, the model's text out. */
  readonly query: (prompt: string, context: QueryContext) => string | Promise<string>;
  /** The first prompt. */
  readonly prompt: string;
  /** A JSON Schema, a Standard Schema (zod, valibot, arktype, effect) or a {@link CompiledSchema} the value must match. */
  readonly schema: SchemaInput<T>;
  /** Correction prompts sent at most after the first answer (default 2): at most `maxRetries + 1` answers. */
  readonly maxRetries?: number;
  /** Aborts waiting, backoff and further calls; the promise rejects with an `AbortError`. */
  readonly signal?: AbortSignal;
  readonly backoff?: BackoffOptions;
  /** Called after every call to `query`, answered or not. Exceptions it throws are not caught. */
  readonly onAttempt?: (entry: QueryHistoryEntry) => void;
  /** Options of each `extract` (coercion, limits, forbidden repairs, draft). */
  readonly extractOptions?: ExtractOptions;
  /**
   * Builds the prompt after a rejected answer. The default is the original prompt followed by
   * {@link buildCorrectionPrompt}'s text, so a stateless endpoint still sees the task.
   */
  readonly correctionPrompt?: (context: CorrectionContext) => string;
  /**
   * Checks the schema cannot express (one field against another, against the input, …), run on a value that
   * matched the schema. Each problem returned fails the answer like a schema issue and is fed back the same
   * way (keyword `check`).
   */
  readonly check?: (value: T) => readonly CheckProblem[];
  /** Which errors of `query` are transport errors (default {@link isTransportError}). Others end the loop at once. */
  readonly isTransportError?: (error: unknown) => boolean;
}

/** A problem found by `check`: where (a JSON Pointer) and what. */
export interface CheckProblem {
  readonly path: string;
  readonly message: string;
}

/** One call to `query`: an answer, checked against the schema, or a transport error. */
export type QueryHistoryEntry =
  | {
      readonly kind: 'answer';
      /** 1-based answer number (what `attempts` counts). */
      readonly attempt: number;
      readonly prompt: string;
      readonly response: string;
      /** Whether the answer held a value matching the schema. */
      readonly ok: boolean;
      readonly value: unknown;
      readonly issues: readonly SchemaIssue[];
      readonly repairs: readonly RepairRecord[];
      readonly coercions: readonly CoercionRecord[];
      readonly durationMs: number;
    }
  | {
      readonly kind: 'transport_error';
      /** The answer number that was being asked for. */
      readonly attempt: number;
      readonly prompt: string;
      readonly error: unknown;
      /** The wait before the next try, or `undefined` when there was none (retries used up). */
      readonly retryInMs: number | undefined;
      readonly durationMs: number;
    };

/** The result of {@link queryWithCorrection}. */
export interface QueryWithCorrectionResult<T = unknown> {
  /** The value that matched: a Standard Schema's output, typed. */
  readonly value: T;
  /** Calls to `query` that produced an answer (transport failures are not counted). */
  readonly attempts: number;
  readonly history: readonly QueryHistoryEntry[];
}

/** Every answer failed the schema. `issues` are those of the last answer. */
export class SchemaValidationError extends Error {
  override readonly name = 'SchemaValidationError';
  readonly issues: readonly SchemaIssue[];
  /** Answers received. */
  readonly attempts: number;
  readonly history: readonly QueryHistoryEntry[];
  /** The last answer. */
  readonly lastResponse: string;

  constructor(
    message: string,
    fields: {
      issues: readonly SchemaIssue[];
      attempts: number;
      history: readonly QueryHistoryEntry[];
      lastResponse: string;
    },
  ) {
    super(message);
    this.issues = fields.issues;
    this.attempts = fields.attempts;
    this.history = fields.history;
    this.lastResponse = fields.lastResponse;
  }
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function field(e: unknown, name: string): unknown {
  return e !== null && typeof e === 'object' ? (e as Record<string, unknown>)[name] : undefined;
}

function statusOf(e: unknown): number | undefined {
  for (const s of [field(e, 'status'), field(e, 'statusCode'), field(field(e, 'response'), 'status')]) {
    if (typeof s === 'number') return s;
  }
  return undefined;
}

/**
 * Whether an error from an LLM call is worth retrying unchanged: an `Error` with `status` (or `statusCode`,
 * or `response.status`) 408, 429 or 5xx, a network error code (`ECONNRESET`, `ETIMEDOUT`, …, also on its
 * `cause`), or `fetch`'s own network failure (a `TypeError` whose cause has such a code, or "fetch failed").
 */
export function isTransportError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'AbortError') return false;
  const status = statusOf(error);
  if (status !== undefined) return status === 408 || status === 429 || (status >= 500 && status <= 599);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = field(e, 'code');
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  }
  return error instanceof TypeError && /^fetch failed$|network ?error|failed to fetch|load failed/i.test(error.message);
}

/** The server's `Retry-After`, in ms, when the error carries one as `retryAfterMs` (as {@link ProviderError} does). */
function retryAfterOf(e: unknown): number | undefined {
  const ms = field(e, 'retryAfterMs');
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
  return undefined;
}

const aborted = (signal: AbortSignal): Error => abortError(signal, 'queryWithCorrection');

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `promise`, or an `AbortError` as soon as `signal` aborts (the call itself is left to the caller's signal handling). */
function raced<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(aborted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(aborted(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function count(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new RangeError(`queryWithCorrection: ${name} must be a non-negative integer, got ${String(v)}`);
  return v;
}

function delay(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new RangeError(
      `queryWithCorrection: ${name} must be a non-negative number of milliseconds, got ${String(v)}`,
    );
  return v;
}

function checked<T>(check: (value: T) => readonly CheckProblem[], value: T): SchemaIssue[] {
  const problems = check(value);
  if (!Array.isArray(problems))
    throw new TypeError('queryWithCorrection: options.check must return an array of {path, message}');
  return problems.map((p: CheckProblem) => {
    if (p === null || typeof p !== 'object' || typeof p.path !== 'string' || typeof p.message !== 'string') {
      throw new TypeError(
        'queryWithCorrection: each problem options.check returns must be {path: string, message: string}',
      );
    }
    return { path: p.path, keyword: 'check', message: p.message, schemaPath: '', params: {} };
  });
}

function defaultCorrection(c: CorrectionContext): string {
  const fix = buildCorrectionPrompt({ issues: c.issues, invalidOutput: c.response, schema: c.schema });
  return `${c.prompt}\n\n---\n\n${fix}`;
}

/**
 * Asks `query(prompt)` until an answer holds a value matching `schema`, re-asking with a correction prompt
 * (every issue, the schema, an excerpt of the answer) at most `maxRetries` times. Transport errors are
 * retried with exponential backoff and never fed back; any other error of `query` rejects at once.
 *
 * @returns `{value, attempts, history}`; `attempts` counts answers, not transport failures.
 * @throws {SchemaValidationError} when the last allowed answer still does not match.
 * @throws the last transport error when its retries are used up; an `AbortError` when `signal` aborts.
 */
export async function queryWithCorrection<T = unknown>(
  options: QueryWithCorrectionOptions<T>,
): Promise<QueryWithCorrectionResult<T>> {
  if (options === null || typeof options !== 'object')
    throw new TypeError('queryWithCorrection expects an options object');
  const { query, signal, onAttempt } = options;
  if (typeof query !== 'function')
    throw new TypeError('queryWithCorrection: options.query must be a function (prompt) => Promise<string>');
  assertString(options.prompt, 'queryWithCorrection: options.prompt');
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TypeError('queryWithCorrection: options.signal must be an AbortSignal');
  if (onAttempt !== undefined && typeof onAttempt !== 'function')
    throw new TypeError('queryWithCorrection: options.onAttempt must be a function');
  if (options.check !== undefined && typeof options.check !== 'function')
    throw new TypeError('queryWithCorrection: options.check must be a function');
  const maxRetries = count(options.maxRetries, 'maxRetries', 2);
  const b = options.backoff ?? {};
  const initialDelayMs = delay(b.initialDelayMs, 'backoff.initialDelayMs', 500);
  const maxDelayMs = delay(b.maxDelayMs, 'backoff.maxDelayMs', 8_000);
  const transportRetries = count(b.maxRetries, 'backoff.maxRetries', 3);
  const jitter = b.jitter ?? true;
  const transient = options.isTransportError ?? isTransportError;
  const correction = options.correctionPrompt ?? defaultCorrection;

  const schema = compileSchema(options.schema, options.extractOptions);
  const owned = !(options.schema instanceof CompiledSchema);
  const history: QueryHistoryEntry[] = [];
  const record = (entry: QueryHistoryEntry): void => {
    history.push(entry);
    onAttempt?.(entry);
  };
  try {
    let prompt = options.prompt;
    for (let attempt = 1; ; attempt++) {
      // One answer, through as many transport retries as allowed.
      let response: string;
      let started: number;
      for (let failures = 0; ; failures++) {
        if (signal?.aborted) throw aborted(signal);
        started = performance.now();
        const context: QueryContext = { attempt, correction: attempt > 1, signal, history: history.slice() };
        try {
          response = await raced(
            Promise.resolve().then(() => query(prompt, context)),
            signal,
          );
        } catch (error) {
          if (signal?.aborted) throw aborted(signal);
          if (!transient(error)) throw error;
          let wait: number | undefined;
          if (failures < transportRetries) {
            // Doubling from initialDelayMs, jittered between half and all of it, never under Retry-After.
            const base = Math.min(maxDelayMs, initialDelayMs * 2 ** failures);
            const backoff = jitter ? base / 2 + (Math.random() * base) / 2 : base;
            wait = Math.min(maxDelayMs, Math.max(retryAfterOf(error) ?? 0, backoff));
          }
          record({
            kind: 'transport_error',
            attempt,
            prompt,
            error,
            retryInMs: wait,
            durationMs: performance.now() - started,
          });
          if (wait === undefined) throw error;
          await sleep(wait, signal);
          continue;
        }
        break;
      }
      if (typeof response !== 'string') {
        const got = response === null ? 'null' : typeof response;
        throw new TypeError(`queryWithCorrection: options.query must resolve to a string, got ${got}`);
      }
      const result = await extractAsync(response, schema, options.extractOptions);
      let issues: readonly SchemaIssue[] = result.issues;
      if (result.ok && options.check !== undefined) issues = checked(options.check, result.value);
      const ok = result.ok && issues.length === 0;
      record({
        kind: 'answer',
        attempt,
        prompt,
        response,
        ok,
        value: result.value,
        issues,
        repairs: result.repairs,
        coercions: result.coercions,
        durationMs: performance.now() - started,
      });
      if (ok && result.ok) return { value: result.value, attempts: attempt, history };
      if (attempt > maxRetries) {
        const first = issues[0];
        const what =
          first === undefined ? '' : `; first issue: ${first.path === '' ? 'root' : first.path}: ${first.message}`;
        throw new SchemaValidationError(
          `queryWithCorrection: no answer matched the schema after ${attempt} attempt${attempt === 1 ? '' : 's'} (${issues.length} issue${issues.length === 1 ? '' : 's'} in the last${what})`,
          { issues, attempts: attempt, history, lastResponse: response },
        );
      }
      prompt = correction({ prompt: options.prompt, response, issues, schema: schema.jsonSchema, attempt });
      assertString(prompt, 'queryWithCorrection: options.correctionPrompt result');
    }
  } finally {
    if (owned) schema.free();
  }
}
