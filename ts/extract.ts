/** Schema-guided extraction: the value a schema describes, out of an LLM response. */
import { assertString } from './errors.js';
import { plan, type RepairOptions, type RepairRecord } from './repair.js';
import { type CoreError, describedError, withMessages } from './wasm.js';
import {
  compiled,
  type CompiledSchema,
  standardIssues,
  syncResult,
  verdict,
  type SchemaInput,
  type SchemaIssue,
  type SchemaOptions,
  type StandardIssue,
} from './schema.js';
import type { InferOutput, JsonSchema, StandardResult, StandardSchema } from './standard.js';

/** Codes of the coercions {@link extract} may make. */
export type CoercionRule =
  | 'string_to_integer'
  | 'string_to_number'
  | 'string_to_boolean'
  | 'to_string'
  | 'wrap_in_array'
  | 'decode_json'
  | 'enum_case'
  | 'null_omitted'
  | 'default';

const RULES: readonly CoercionRule[] = [
  'string_to_integer',
  'string_to_number',
  'string_to_boolean',
  'to_string',
  'wrap_in_array',
  'decode_json',
  'enum_case',
  'null_omitted',
  'default',
];

/** Options of {@link extract}: repair options, schema options, and which coercions to make. */
export interface ExtractOptions extends RepairOptions, SchemaOptions {
  /** `false` turns every coercion off (plain validation of each candidate). */
  readonly coerce?: boolean;
  /** Coercion rules that must not be applied. */
  readonly forbidCoercions?: readonly CoercionRule[];
}

/** One change made to move a value toward the schema. */
export interface CoercionRecord {
  /** JSON Pointer to the changed value (for `null_omitted` and `default`, the property). */
  readonly path: string;
  readonly from: unknown;
  readonly to: unknown;
  readonly rule: CoercionRule;
}

/** What every result of {@link extract} carries. */
interface ExtractCommon {
  /** The same issues in the Standard Schema shape. */
  readonly standardIssues: readonly StandardIssue[];
  readonly coercions: readonly CoercionRecord[];
  /** Repairs made to read the candidate, positions in UTF-16 code units of `text`; at most 10,000. */
  readonly repairs: readonly RepairRecord[];
  /** How many repairs past the first 10,000 were made but not listed; absent when none were left out. */
  readonly omittedRepairs?: number;
  /** How many candidates were read. */
  readonly candidates: number;
}

/** A candidate matched: `value` has the schema's type (a Standard Schema's output: defaults, transforms, unknown keys stripped). */
export interface ExtractSuccess<T> extends ExtractCommon {
  readonly ok: true;
  readonly value: T;
  readonly issues: readonly [];
  /** UTF-16 range of `text` the value was read from. */
  readonly span: { readonly start: number; readonly end: number };
  /** Index of the chosen candidate in textual order. */
  readonly candidate: number;
}

/** No candidate matched: `value` is the first candidate as read (`undefined` when the text holds no JSON), `issues` say why. */
export interface ExtractFailure extends ExtractCommon {
  readonly ok: false;
  readonly value: unknown;
  /** At least one; a single `parse` issue when there was no candidate. */
  readonly issues: readonly [SchemaIssue, ...SchemaIssue[]];
  readonly span: { readonly start: number; readonly end: number } | undefined;
  readonly candidate: number | undefined;
}

/** The result of {@link extract}: check `ok` and `value` has type `T`. */
export type ExtractResult<T = unknown> = ExtractSuccess<T> | ExtractFailure;

/** The coercion rules `options` forbid, as the core takes them (comma-separated codes). */
export function forbiddenRules(options: ExtractOptions | undefined, where = 'extract'): string {
  if (options?.coerce === false) return RULES.join(',');
  const list = options?.forbidCoercions ?? [];
  if (!Array.isArray(list)) throw new TypeError(`${where}: forbidCoercions must be an array of coercion rule codes`);
  for (const r of list) {
    if (!RULES.includes(r))
      throw new RangeError(`${where}: unknown coercion rule '${String(r)}' (known: ${RULES.join(', ')})`);
  }
  return list.join(',');
}

/** The core's answer for candidates from index `skip` on. */
type CoreResult = Omit<ExtractFailure, 'ok' | 'issues'> & { ok: boolean; issues: readonly SchemaIssue[] };

/**
 * One extraction, as steps: each value yielded is a candidate the schema's library must judge, and the
 * verdict is sent back. Plain JSON Schemas yield nothing. The sync and async entry points drive the same
 * steps, so they cannot disagree.
 */
function* steps(
  text: string,
  schema: CompiledSchema,
  options: ExtractOptions | undefined,
): Generator<unknown, ExtractResult, StandardResult<unknown>> {
  const p = plan(options, 'extract');
  const forbidCoercions = forbiddenRules(options);
  const core = schema.core('extract');
  const read = (skip: number): CoreResult => {
    const out = core.extract(text, p.maxDepth, p.maxInputLength, p.forbid, forbidCoercions, skip);
    const raw = JSON.parse(out.json) as Omit<CoreResult, 'repairs'> & { candidate: number | null; unread?: CoreError };
    // No candidate could be read: the core sends the first one's error, and its one `parse` issue's message
    // is composed here, as a `JsonRepairError`'s is.
    const unread = raw.unread;
    const issues =
      unread === undefined
        ? raw.issues
        : raw.issues.map((i) => ({ ...i, message: `no candidate could be read: ${describedError(unread).message}` }));
    const found = raw.candidate !== null;
    const omitted = found && raw.omittedRepairs !== undefined ? { omittedRepairs: raw.omittedRepairs } : {};
    return {
      ...omitted,
      ok: raw.ok,
      value: found ? raw.value : undefined,
      issues,
      standardIssues: standardIssues(issues),
      coercions: raw.coercions,
      repairs: found ? withMessages(out.repairs) : [],
      span: found ? raw.span : undefined,
      candidate: raw.candidate ?? undefined,
      candidates: raw.candidates,
    };
  };
  const standard = schema.standard;
  let first: ExtractFailure | undefined;
  for (let skip = 0; ; ) {
    const r = read(skip);
    if (standard === undefined || r.candidate === undefined) return (first ?? r) as ExtractResult;
    // The library has the final word, on a candidate its JSON Schema accepted and on one it did not.
    const v = verdict(standard, yield r.value);
    if (v.valid)
      return { ...r, ok: true, value: v.value, issues: [], standardIssues: [], span: r.span!, candidate: r.candidate };
    first ??= { ...r, ok: false, issues: v.issues, standardIssues: standardIssues(v.issues) };
    // The next candidate the JSON Schema accepts, if any; the first rejected one is reported otherwise.
    if (!r.ok || r.candidate + 1 >= r.candidates) return first;
    skip = r.candidate + 1;
  }
}

/**
 * The value `schema` describes, out of an LLM response. Every top-level JSON value in the text is a
 * candidate in textual order (reasoning excluded): each is repaired, coerced toward the schema and
 * validated, and the first valid one wins. Nothing is silently fixed beyond the coercions listed in
 * `coercions`: limits, enums without a unique match and extra properties are issues.
 *
 * `schema` is a JSON Schema, a {@link CompiledSchema}, or a Standard Schema (zod, valibot, arktype,
 * effect): its JSON Schema picks candidates and guides coercion, its own `validate` decides, and `value`
 * is its output, typed.
 *
 * @example
 * ```ts
 * const r = extract(reply, z.object({ chosenIndex: z.number().int(), speech: z.string() }));
 * if (r.ok) r.value.speech; // string
 * else console.log(r.issues);
 * ```
 * @throws {TypeError} when `text` is not a string, `schema` is not a schema, or a Standard Schema validates
 *   asynchronously (use {@link extractAsync}). A schema that does not compile throws {@link SchemaCompileError}.
 */
export function extract<S extends StandardSchema>(
  text: string,
  schema: S,
  options?: ExtractOptions,
): ExtractResult<InferOutput<S>>;
export function extract<T = unknown>(
  text: string,
  schema: JsonSchema | CompiledSchema<T>,
  options?: ExtractOptions,
): ExtractResult<T>;
export function extract<T = unknown>(text: string, schema: SchemaInput<T>, options?: ExtractOptions): ExtractResult<T>;
export function extract(text: string, schema: SchemaInput, options?: ExtractOptions): ExtractResult {
  assertString(text, 'extract');
  const c = compiled(schema, options, 'extract');
  const run = steps(text, c, options);
  for (let step = run.next(); ; ) {
    if (step.done === true) return step.value;
    step = run.next(syncResult(c.standard!, step.value, 'extract'));
  }
}

/**
 * {@link extract} for schemas whose library validates asynchronously (async refinements); the same
 * result for every other schema.
 */
export async function extractAsync<S extends StandardSchema>(
  text: string,
  schema: S,
  options?: ExtractOptions,
): Promise<ExtractResult<InferOutput<S>>>;
export async function extractAsync<T = unknown>(
  text: string,
  schema: JsonSchema | CompiledSchema<T>,
  options?: ExtractOptions,
): Promise<ExtractResult<T>>;
export async function extractAsync<T = unknown>(
  text: string,
  schema: SchemaInput<T>,
  options?: ExtractOptions,
): Promise<ExtractResult<T>>;
export async function extractAsync(
  text: string,
  schema: SchemaInput,
  options?: ExtractOptions,
): Promise<ExtractResult> {
  assertString(text, 'extractAsync');
  const c = compiled(schema, options, 'extractAsync');
  const run = steps(text, c, options);
  for (let step = run.next(); ; ) {
    if (step.done === true) return step.value;
    step = run.next(await c.standard!['~standard'].validate(step.value));
  }
}
