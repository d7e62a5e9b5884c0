/** Typed errors. Each has a stable `name`, readonly structured fields and a message that says what and where. */

/** Stable codes of {@link JsonRepairError}. */
export type JsonRepairErrorKind = 'no_json' | 'depth_limit' | 'input_too_long' | 'repair_forbidden';

/** Fields of a {@link JsonRepairError}. */
export interface JsonRepairErrorFields {
  readonly kind: JsonRepairErrorKind;
  readonly message: string;
  /** UTF-16 index into the input (what `input.slice(position)` expects). */
  readonly position: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in UTF-16 code units. */
  readonly column: number;
  /** For `repair_forbidden`: the repair kind that was needed. */
  readonly repair?: string;
  /** For `depth_limit` and `input_too_long`: the limit. */
  readonly limit?: number;
}

/** The text holds no salvageable JSON, or a limit or option stopped the repair. */
export class JsonRepairError extends Error {
  override readonly name = 'JsonRepairError' as const;
  readonly kind: JsonRepairErrorKind;
  readonly position: number;
  readonly line: number;
  readonly column: number;
  readonly repair: string | undefined;
  readonly limit: number | undefined;

  constructor(fields: JsonRepairErrorFields) {
    super(fields.message);
    this.kind = fields.kind;
    this.position = fields.position;
    this.line = fields.line;
    this.column = fields.column;
    this.repair = fields.repair;
    this.limit = fields.limit;
  }
}

/** Why a {@link ModuleTrapError} was thrown. */
export type ModuleTrapReason = 'trapped' | 'stale' | 'recreating';

/**
 * The WebAssembly module stopped in the middle of a call (a trap: it ran out of memory, or a bug), or the
 * host's stack ran out inside it. The call has no result, and the module has already been re-created:
 * calls from then on work, and compiled schemas compile themselves again. A `StreamCleaner` or
 * `PartialJsonParser` made before held its state in the old module, which is gone; using it throws this
 * error with reason `stale`.
 */
export class ModuleTrapError extends Error {
  override readonly name = 'ModuleTrapError' as const;
  /**
   * `trapped`: this call trapped. `stale`: the object was made before a trap. `recreating`: a browser's
   * main thread is re-instantiating the module asynchronously; `await init()` and call again.
   */
  readonly reason: ModuleTrapReason;

  constructor(reason: ModuleTrapReason, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.reason = reason;
  }
}

/** Throws a `TypeError` unless `value` is a string. */
export function assertString(value: unknown, where: string): asserts value is string {
  if (typeof value !== 'string') {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new TypeError(`${where} expects a string, got ${got}`);
  }
}

/** The error an aborted `signal` ends `what` with: its reason when that is an `AbortError`, else a new one caused by it. */
export function abortError(signal: AbortSignal, what: string): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const e = new DOMException(`${what} was aborted`, 'AbortError');
  if (reason !== undefined) Object.defineProperty(e, 'cause', { value: reason, configurable: true, writable: true });
  return e;
}
