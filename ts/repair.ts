/** Locating, repairing and parsing the JSON in an LLM response. */
import { callRepair, withMessages, type RawRepairOk } from './wasm.js';
import { DEFAULT_MAX_DEPTH, REPAIR_CLASSES, REPAIR_KINDS, REPAIR_KIND_INFO } from '../pkg/vocabulary.js';
import { JsonRepairError, assertString, type JsonRepairErrorKind } from './errors.js';

/**
 * Every repair kind, in the core's order: generated from the core at build time (`scripts/vocabulary.mjs`).
 * `repairKinds()` describes each one.
 */
export { REPAIR_KINDS, REPAIR_CLASSES };

/** The stable code of a repair: what {@link RepairRecord.kind} holds and `forbid` accepts. */
export type RepairKind = (typeof REPAIR_KINDS)[number];

/** The classes repair kinds fall in, which `forbid` and `allow` also accept. */
export type RepairClass = (typeof REPAIR_CLASSES)[number];

/** Options for {@link parseAndRepair}, {@link repairJson} and {@link parseDetailed}. */
export interface RepairOptions {
  /** Deepest nesting accepted (default 10,000). Deeper input is a `depth_limit` error. When set, valid JSON is checked against it too. */
  readonly maxDepth?: number;
  /** Longest input accepted, in UTF-16 code units (`string.length`). Longer input is an `input_too_long` error. */
  readonly maxInputLength?: number;
  /** Repair kinds (`'trailing_comma'`) or classes (`'extraction'`, `'syntax'`, `'quotes'`, `'literals'`, `'truncation'`) that must not be made. */
  readonly forbid?: readonly (RepairKind | RepairClass)[];
  /** Repair kinds or classes that may be made; every other repair is forbidden. */
  readonly allow?: readonly (RepairKind | RepairClass)[];
  /** Accept only strictly valid JSON (forbids every repair). */
  readonly strict?: boolean;
}

/** One repair: what was changed and where, in the caller's original string. */
export interface RepairRecord {
  /** Stable snake_case code, e.g. `trailing_comma`. */
  readonly kind: RepairKind;
  /** UTF-16 index into the input. */
  readonly position: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column in UTF-16 code units. */
  readonly column: number;
  readonly message: string;
}

/** The result of {@link parseDetailed}. */
export interface ParseResult {
  /** The value, exactly as `JSON.parse` builds it. */
  readonly value: unknown;
  /** The value as strict JSON text (the input itself, trimmed, when it was valid). */
  readonly json: string;
  readonly status: 'valid' | 'repaired';
  /** Every repair, in order; at most 10,000 (see `omittedRepairs`). */
  readonly repairs: readonly RepairRecord[];
  /** How many repairs past the first 10,000 were made but not listed; absent when none were left out. */
  readonly omittedRepairs?: number;
  /** UTF-16 range of the input the value was read from. */
  readonly span: { readonly start: number; readonly end: number };
}

/** Validated repair options as the core takes them. */
export interface Plan {
  maxDepth: number;
  maxInputLength: number;
  /**
   * The forbidden repair kinds as bits, by their place in `REPAIR_KIND_INFO` (the core's order), as the
   * core takes them: the 46 kinds fit the 53 bits a double holds exactly.
   */
  forbid: number;
  /** Whether `JSON.parse` may answer first (no option could reject valid JSON). */
  fastPath: boolean;
}

/** Every code `forbid` and `allow` accept: the repair kinds and their classes. */
const KNOWN_CODES: ReadonlySet<string> = new Set<string>([...REPAIR_KINDS, ...REPAIR_CLASSES]);

function codes(list: unknown, where: string): string[] {
  if (!Array.isArray(list) || list.some((c) => typeof c !== 'string')) {
    throw new TypeError(`${where} must be an array of repair kind or class codes`);
  }
  for (const c of list as string[]) {
    if (!KNOWN_CODES.has(c)) throw new RangeError(`${where}: unknown repair kind or class '${c}'`);
  }
  return list as string[];
}

function nonNegativeInteger(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new RangeError(`${where} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

/** The plan for no options, shared: nothing changes a plan once made. */
const DEFAULT_PLAN: Plan = Object.freeze({
  maxDepth: DEFAULT_MAX_DEPTH,
  maxInputLength: -1,
  forbid: 0,
  fastPath: true,
});

/** Validates `options` (errors name `where`). */
export function plan(options: RepairOptions | undefined, where: string): Plan {
  if (options === undefined) return DEFAULT_PLAN;
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: options must be an object`);
  const maxDepth =
    options.maxDepth === undefined ? DEFAULT_MAX_DEPTH : nonNegativeInteger(options.maxDepth, `${where}: maxDepth`);
  const maxInputLength =
    options.maxInputLength === undefined ? -1 : nonNegativeInteger(options.maxInputLength, `${where}: maxInputLength`);
  let forbid: string[] = options.forbid === undefined ? [] : codes(options.forbid, `${where}: forbid`);
  if (options.allow !== undefined) {
    const allowed = new Set(codes(options.allow, `${where}: allow`));
    forbid = forbid.concat(
      REPAIR_KIND_INFO.filter((k) => !allowed.has(k.kind) && !allowed.has(k.class)).map((k) => k.kind),
    );
  }
  if (options.strict) forbid = REPAIR_KIND_INFO.map((k) => k.kind);
  return { maxDepth, maxInputLength, forbid: kindBits(forbid), fastPath: options.maxDepth === undefined };
}

/** The kinds named by `codes` (kinds or classes) as the bits of {@link Plan.forbid}. */
function kindBits(codes: readonly string[]): number {
  if (codes.length === 0) return 0;
  const named = new Set(codes);
  let bits = 0;
  for (const [i, k] of REPAIR_KIND_INFO.entries()) if (named.has(k.kind) || named.has(k.class)) bits += 2 ** i;
  return bits;
}

/** Throws the core's error as a {@link JsonRepairError}. */
export function fail(error: {
  kind: string;
  message: string;
  position: number;
  line: number;
  column: number;
  repair?: string;
  limit?: number;
}): never {
  throw new JsonRepairError({ ...error, kind: error.kind as JsonRepairErrorKind });
}

/** What `tryStrict` returns for text that is not valid JSON: a symbol, since every JSON value is a possible result. */
const NOT_VALID: unique symbol = Symbol('not valid');
/** What `tryStrict` returns when it did not try `JSON.parse`: the core checks validity itself. */
const UNTRIED: unique symbol = Symbol('untried');

const isJsonSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
/** Characters a JSON value can start with: `"`, `-`, digits, `t`, `f`, `n`, `{`, `[`. */
const isValueStart = (c: number) =>
  c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110 || c === 123 || c === 91;
/** Characters a JSON text can end with: `}`, `]`, `"`, digits, and the last letters of true/false/null. */
const isValueEnd = (c: number) => c === 125 || c === 93 || c === 34 || (c >= 48 && c <= 57) || c === 101 || c === 108;

/**
 * A constant-time look at both ends that rules out most responses needing repair (prose first, a fence,
 * a think block, `{'single'`, `{unquoted`, truncation) before `JSON.parse` is tried. False means "certainly
 * not valid JSON"; true means "try it".
 */
function mayBeValid(text: string): boolean {
  let i = 0;
  let j = text.length - 1;
  while (i <= j && isJsonSpace(text.charCodeAt(i))) i++;
  while (j >= i && isJsonSpace(text.charCodeAt(j))) j--;
  if (i > j || !isValueStart(text.charCodeAt(i)) || !isValueEnd(text.charCodeAt(j))) return false;
  const open = text.charCodeAt(i);
  if (open !== 123 && open !== 91) return true;
  let k = i + 1;
  while (k < j && isJsonSpace(text.charCodeAt(k))) k++;
  const next = text.charCodeAt(k);
  return open === 123 ? next === 34 || next === 125 : isValueStart(next) || next === 93;
}

/**
 * How often the recent inputs that passed {@link mayBeValid} were valid JSON: a moving average over about
 * the last eight, 1 at the start. Trying `JSON.parse` first (the probe) is a bet that {@link worthProbing}
 * weighs with it; where it is not tried the core, which checks strict validity on its way, says whether the
 * input was valid, so the average learns from every such input. Only speed depends on this: every result
 * is the same either way.
 */
let validShare = 1;
/**
 * Whether the share is above 0.99: the inputs have been valid for a while, and the probe is plain
 * `JSON.parse` (a flag, so that the path of valid JSON reads a boolean rather than a float).
 */
let allValid = true;

/** Records whether an input that passed {@link mayBeValid} was valid JSON. */
function saw(valid: boolean): void {
  validShare += ((valid ? 1 : 0) - validShare) / 8;
  allValid = validShare > 0.99;
}

/**
 * Whether trying `JSON.parse` first pays on a text of `length` characters, as the inputs have been. A failed
 * try costs about 3 µs (V8 builds a SyntaxError with its line and column) and the parse up to the defect,
 * about 0.85 ns a character for half the text; one that succeeds saves the core's strict check, 0.6 µs and
 * about 1.7 ns a character (Node 20: 1.66 µs for 620 characters, 219 µs for 127,000). Tried when
 * `share × saving ≥ (1 − share) × cost`: with shares below 0.75 for ~300 characters, 0.54 for 2,000 and
 * 0.34 for long texts, the core answers alone.
 */
function worthProbing(length: number): boolean {
  return validShare * (3.6 + 0.00255 * length) >= 3 + 0.00085 * length;
}

/** `JSON.parse(text)`, or {@link NOT_VALID} when it throws. */
function probe(text: string): unknown {
  // While inputs have been valid, the next is likely valid too: parse with nothing around it.
  if (allValid) {
    try {
      return JSON.parse(text);
    } catch {
      saw(false);
      return NOT_VALID;
    }
  }
  // Among invalid inputs a failed probe is common: skip the stack trace V8 would capture for the SyntaxError.
  const limit = Error.stackTraceLimit;
  const quiet = stackTraceLimitTo(0);
  try {
    const value: unknown = JSON.parse(text);
    saw(true);
    return value;
  } catch {
    saw(false);
    return NOT_VALID;
  } finally {
    if (quiet) Error.stackTraceLimit = limit;
  }
}

/** Whether `Error.stackTraceLimit` may be set: false once setting it has thrown. */
let limitWritable = true;

/**
 * Sets `Error.stackTraceLimit` to `n` where the engine reads it (V8, JavaScriptCore) and lets it be set;
 * returns whether it did. Elsewhere setting it would only add a property to `Error`, and with frozen
 * intrinsics (`Object.freeze(Error)`, Node's `--frozen-intrinsics`, a SES lockdown) the assignment throws,
 * which `probe` must never pass on.
 */
function stackTraceLimitTo(n: number): boolean {
  if (!limitWritable || typeof Error.stackTraceLimit !== 'number') return false;
  try {
    Error.stackTraceLimit = n;
    return true;
  } catch {
    limitWritable = false;
    return false;
  }
}

/** The value of `text` when it is valid JSON and the plan lets `JSON.parse` answer; else {@link NOT_VALID} or {@link UNTRIED}. */
function tryStrict(text: string, p: Plan): unknown {
  if (!p.fastPath || (p.maxInputLength >= 0 && text.length > p.maxInputLength) || !mayBeValid(text)) return NOT_VALID;
  return worthProbing(text.length) ? probe(text) : UNTRIED;
}

/** What `repairOrThrow` returns for valid input: the caller parses `text` itself. */
const VALID: RawRepairOk = Object.freeze({ ok: true, valid: true, header: '', json: '', repairs: [] });

/**
 * The core's repair of `text`, after `tryStrict` answered `strict`. A result with `valid` set means the
 * input was valid JSON after all (the core checked because the probe was skipped or not allowed).
 */
function repairOrThrow(text: string, p: Plan, strict: unknown, report: boolean, narrow = false): RawRepairOk {
  const untried = strict === UNTRIED;
  // The core skips its own strict check only when `JSON.parse` already failed (or could not succeed).
  const r = callRepair(text, p.maxDepth, p.maxInputLength, p.forbid, p.fastPath && !untried, report, narrow);
  if (r.ok) {
    if (untried) saw(r.valid);
    return r;
  }
  // Valid JSON deeper than the default limit is still `JSON.parse`'s to answer.
  if (untried && probe(text) !== NOT_VALID) return VALID;
  fail(r.error);
}

/**
 * The JSON value in an LLM response, exactly as `JSON.parse` would build it from the repaired text.
 *
 * @throws {TypeError} when `text` is not a string.
 * @throws {JsonRepairError} when there is no JSON (`no_json`) or a limit or option stops the repair.
 */
export function parseAndRepair(text: string, options?: RepairOptions): unknown {
  // Valid JSON with the default options, the probe not skipped: `tryStrict` and `probe` on that path,
  // written out (through the calls, 0.95–0.96 the speed of `JSON.parse` on ~300-byte documents).
  if (options === undefined && allValid && typeof text === 'string' && mayBeValid(text)) {
    try {
      return JSON.parse(text);
    } catch {
      saw(false);
    }
    return repairedValue(text, DEFAULT_PLAN, NOT_VALID);
  }
  assertString(text, 'parseAndRepair');
  const p = plan(options, 'parseAndRepair');
  const strict = tryStrict(text, p);
  if (strict !== NOT_VALID && strict !== UNTRIED) return strict;
  return repairedValue(text, p, strict);
}

/** `parseAndRepair`'s repair, after `tryStrict` answered `strict`. */
function repairedValue(text: string, p: Plan, strict: unknown): unknown {
  // Only the value is returned, so the text may be written one byte per character: the fastest form to decode.
  const r = repairOrThrow(text, p, strict, false, true);
  return JSON.parse(r.valid ? text : r.json);
}

/** The JSON value in an LLM response as strict JSON text (see {@link parseAndRepair}). */
export function repairJson(text: string, options?: RepairOptions): string {
  assertString(text, 'repairJson');
  const p = plan(options, 'repairJson');
  const strict = tryStrict(text, p);
  if (strict !== NOT_VALID && strict !== UNTRIED) return text.trim();
  const r = repairOrThrow(text, p, strict, false);
  return r.valid ? text.trim() : r.json;
}

/** The value with its strict JSON text, status, every repair with its position (the first 10,000, and `omittedRepairs` past them), and the span it came from. */
export function parseDetailed(text: string, options?: RepairOptions): ParseResult {
  assertString(text, 'parseDetailed');
  const p = plan(options, 'parseDetailed');
  const strict = tryStrict(text, p);
  if (strict !== NOT_VALID && strict !== UNTRIED) return validResult(text, strict);
  const r = repairOrThrow(text, p, strict, true);
  if (r.valid) return validResult(text, JSON.parse(text));
  return reportedResult(r);
}

/** The `ParseResult` of a core repair made with its report. */
export function reportedResult(r: RawRepairOk): ParseResult {
  const header = JSON.parse(r.header) as Pick<ParseResult, 'status' | 'span' | 'omittedRepairs'>;
  const result = {
    value: JSON.parse(r.json) as unknown,
    json: r.json,
    status: header.status,
    repairs: withMessages(r.repairs),
    span: header.span,
  };
  return header.omittedRepairs === undefined ? result : { ...result, omittedRepairs: header.omittedRepairs };
}

/** The detailed result for `text` that is valid JSON with the value `value`. */
export function validResult(text: string, value: unknown): ParseResult {
  const start = text.length - text.trimStart().length;
  const json = text.trim();
  return { value, json, status: 'valid', repairs: [], span: { start, end: start + json.length } };
}

/** Every repair kind, with its class and a description (for documentation, UIs and `forbid`). */
export function repairKinds(): readonly {
  readonly kind: RepairKind;
  readonly class: RepairClass;
  readonly description: string;
}[] {
  return REPAIR_KIND_INFO;
}
