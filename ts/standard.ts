/**
 * Schemas from validation libraries: Standard Schema v1 (zod ≥ 3.24, valibot ≥ 1, arktype ≥ 2, effect, …) and
 * Standard JSON Schema (the same object, able to describe itself as a JSON Schema). The types below are
 * this package's reading of those two public interfaces; a library's schema satisfies them structurally,
 * so no dependency on any library is needed.
 */

/** A path segment of a Standard Schema issue: a key, or an object holding one. */
export type StandardPathSegment = PropertyKey | { readonly key: PropertyKey };

/** One issue as a Standard Schema library reports it. Libraries add fields of their own (zod: `code`). */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: readonly StandardPathSegment[] | undefined;
}

/** What a Standard Schema's `validate` returns: the library's output value, or its issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardSchemaIssue[] };

/** The JSON Schema converter of Standard JSON Schema (`~standard.jsonSchema`). */
export interface StandardJsonSchemaConverter {
  /** The JSON Schema of what the schema accepts. */
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  /** The JSON Schema of what the schema produces. */
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/** A Standard Schema v1: a zod, valibot, arktype or effect schema, or anything else that implements it. */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Present on schemas that also implement Standard JSON Schema (zod ≥ 4.2, arktype ≥ 2.1.28, valibot through `@valibot/to-json-schema`). */
    readonly jsonSchema?: StandardJsonSchemaConverter | undefined;
  };
}

/** The output type of a Standard Schema: what `extract` returns as `value` when it succeeds. */
export type InferOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/** A JSON Schema: an object or a boolean, as plain data. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** Whether `x` is a Standard Schema v1 (arktype's schemas are functions, the others objects). */
export function isStandardSchema(x: unknown): x is StandardSchema {
  if ((typeof x !== 'object' && typeof x !== 'function') || x === null) return false;
  const s = (x as { '~standard'?: unknown })['~standard'];
  return (
    typeof s === 'object' &&
    s !== null &&
    (s as { version?: unknown }).version === 1 &&
    typeof (s as { validate?: unknown }).validate === 'function'
  );
}

/** What a value that is neither a JSON Schema nor a Standard Schema is, for a `TypeError`. */
function described(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'function') return `a function${x.name ? ` (${x.name})` : ''}`;
  if (typeof x !== 'object') return typeof x;
  const name = (Object.getPrototypeOf(x) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name ? `an instance of ${name}` : 'an object';
}

/**
 * Checks that `schema` is plain JSON data: objects whose prototype is `Object.prototype` or `null`,
 * arrays, strings, finite numbers, booleans and `null`. `JSON.stringify` would silently drop a function or
 * write a class instance's fields, so a zod 3 (< 3.24) schema or a schema nested inside a JSON Schema
 * would otherwise validate everything. Iterative, so a deep schema cannot overflow the stack.
 *
 * @throws {TypeError} naming where the first offending value is.
 */
export function assertJsonSchema(schema: unknown, where: string): asserts schema is JsonSchema {
  if (typeof schema === 'boolean') return;
  const hint =
    '; pass a JSON Schema (plain data), a Standard Schema (zod ≥ 3.24, valibot, arktype, effect) or a CompiledSchema';
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || !plain(schema)) {
    const zod3 = typeof schema === 'object' && schema !== null && '_def' in schema && 'safeParse' in schema;
    throw new TypeError(
      `${where}: a schema must be a JSON Schema object or boolean, got ${described(schema)}${zod3 ? ' (a zod schema older than 3.24, which lacks Standard Schema: upgrade zod)' : ''}${hint}`,
    );
  }
  const stack: [unknown, string][] = [[schema, '#']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
    } else if (typeof v === 'object' && (Array.isArray(v) || plain(v))) {
      for (const [k, child] of Object.entries(v))
        stack.push([child, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
      continue;
    }
    const inner = isStandardSchema(v)
      ? ` (a ${(v as StandardSchema)['~standard'].vendor} schema inside a JSON Schema: convert it, or pass it as the whole schema)`
      : '';
    throw new TypeError(`${where}: the JSON Schema holds ${described(v)} at ${at}, which is not JSON data${inner}`);
  }
}

function plain(o: object): boolean {
  const proto = Object.getPrototypeOf(o) as unknown;
  return proto === Object.prototype || proto === null;
}

/** JSON Schema targets asked of a Standard JSON Schema converter, in order of preference, with the draft each is read as. */
const TARGETS = [
  ['draft-2020-12', '2020-12'],
  ['draft-07', '7'],
] as const;

/**
 * The JSON Schema of what a Standard Schema accepts (its input side, so that keys the library would strip
 * are not made errors), as a draft this package reads; `undefined` when the schema cannot describe itself
 * (zod 3, valibot without `@valibot/to-json-schema`) or its converter refuses (a zod transform or date).
 */
export function jsonSchemaOf(
  schema: StandardSchema,
): { schema: Record<string, unknown>; draft: '2020-12' | '7' } | undefined {
  const convert = schema['~standard'].jsonSchema;
  if (convert === undefined || convert === null || typeof convert.input !== 'function') return undefined;
  for (const [target, draft] of TARGETS) {
    try {
      const out = convert.input({ target });
      if (typeof out === 'object' && out !== null) return { schema: out, draft };
    } catch {
      // This target is not supported, or part of the schema has no JSON Schema form: try the next.
    }
  }
  return undefined;
}

/** The path of a Standard Schema issue as a JSON Pointer. */
export function pointerOf(path: readonly StandardPathSegment[] | undefined): string {
  if (path === undefined) return '';
  let out = '';
  for (const seg of path) {
    const key = typeof seg === 'object' && seg !== null ? seg.key : seg;
    out += `/${String(typeof key === 'symbol' ? key.description : key)
      .replace(/~/g, '~0')
      .replace(/\//g, '~1')}`;
  }
  return out;
}
