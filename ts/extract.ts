/** Schema-guided extraction (SPEC §5): the value a schema describes, out of an LLM response. */
import { assertString } from './errors.js';
import { plan, type RepairOptions, type RepairRecord } from './repair.js';
import { compileSchema, CompiledSchema, jsonText, standardIssues, type SchemaIssue, type SchemaOptions, type StandardIssue } from './schema.js';

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

/** The result of {@link extract}. */
export interface ExtractResult {
  /** Whether a candidate is valid after coercion. */
  readonly ok: boolean;
  /** The first valid candidate after coercion; when none is valid, the first candidate (`undefined` when the text holds no JSON). */
  readonly value: unknown;
  /** Issues of that candidate: empty when `ok`; one `parse` issue when there was no candidate. */
  readonly issues: readonly SchemaIssue[];
  /** The same issues in the Standard Schema shape. */
  readonly standardIssues: readonly StandardIssue[];
  readonly coercions: readonly CoercionRecord[];
  /** Repairs made to read the candidate, positions in UTF-16 code units of `text`. */
  readonly repairs: readonly RepairRecord[];
  /** UTF-16 range of `text` the candidate was read from (`undefined` when there was none). */
  readonly span: { readonly start: number; readonly end: number } | undefined;
  /** Index of the chosen candidate in textual order, and how many candidates were read. */
  readonly candidate: number | undefined;
  readonly candidates: number;
}

/** Compiled schemas of plain schema objects, by their JSON text and options (bounded, oldest evicted). */
const cache = new Map<string, CompiledSchema>();
const CACHE_SIZE = 32;

function compiled(schema: unknown, options: ExtractOptions | undefined): CompiledSchema {
  if (schema instanceof CompiledSchema) return schema;
  const key = `${options?.defaultDraft ?? ''}|${options?.assertFormat === true}|${jsonText(options?.remotes ?? {}, 'extract')}|${jsonText(schema, 'extract')}`;
  let c = cache.get(key);
  if (c === undefined) {
    c = compileSchema(schema, options);
    if (cache.size >= CACHE_SIZE) {
      const [oldest, evicted] = cache.entries().next().value as [string, CompiledSchema];
      cache.delete(oldest);
      evicted.free();
    }
  } else {
    cache.delete(key);
  }
  cache.set(key, c);
  return c;
}

function forbiddenRules(options: ExtractOptions | undefined): string {
  if (options?.coerce === false) return RULES.join(',');
  const list = options?.forbidCoercions ?? [];
  if (!Array.isArray(list)) throw new TypeError('extract: forbidCoercions must be an array of coercion rule codes');
  for (const r of list) {
    if (!RULES.includes(r)) throw new RangeError(`extract: unknown coercion rule '${String(r)}' (known: ${RULES.join(', ')})`);
  }
  return list.join(',');
}

/**
 * The value `schema` describes, out of an LLM response. Every top-level JSON value in the text is a
 * candidate in textual order (reasoning excluded): each is repaired, coerced toward the schema and
 * validated, and the first valid one wins. Nothing is silently fixed beyond the coercions listed in
 * `coercions`: limits, enums without a unique match and extra properties are issues.
 *
 * @throws {TypeError} when `text` is not a string. A schema that does not compile throws {@link SchemaCompileError}.
 */
export function extract(text: string, schema: unknown, options?: ExtractOptions): ExtractResult {
  assertString(text, 'extract');
  const p = plan(options, 'extract');
  const forbidCoercions = forbiddenRules(options);
  const core = compiled(schema, options).core('extract');
  const raw = JSON.parse(core.extract(text, p.maxDepth, p.maxInputLength, p.forbid, forbidCoercions)) as Omit<ExtractResult, 'standardIssues' | 'value' | 'candidate'> & {
    value: unknown;
    candidate: number | null;
  };
  const found = raw.candidate !== null;
  return {
    ok: raw.ok,
    value: found ? raw.value : undefined,
    issues: raw.issues,
    standardIssues: standardIssues(raw.issues),
    coercions: raw.coercions,
    repairs: found ? raw.repairs : [],
    span: found ? raw.span : undefined,
    candidate: raw.candidate ?? undefined,
    candidates: raw.candidates,
  };
}
