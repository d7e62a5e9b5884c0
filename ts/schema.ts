/** JSON Schema and Standard Schema: compile once, validate, with issues that name each problem by path. */
import { CORE_ISSUE_KEYWORDS } from '../pkg/vocabulary.js';
import { newSchema, type CoreSchema } from './wasm.js';
import {
  assertJsonSchema,
  isStandardSchema,
  jsonSchemaOf,
  pointerOf,
  type InferOutput,
  type JsonSchema,
  type StandardResult,
  type StandardSchema,
  type StandardSchemaIssue,
} from './standard.js';

/** The drafts a schema without `$schema` can be read as. */
export type SchemaDraft = '2020-12' | '2019-09' | '7' | '6' | '4';

/** Options of {@link compileSchema} and {@link validate}. */
export interface SchemaOptions {
  /** The draft of a schema without `$schema` (default `'2020-12'`). */
  readonly defaultDraft?: SchemaDraft;
  /** Schemas that `$ref` may name, by URI (`{'https://example.com/point.json': {...}}`). */
  readonly remotes?: Readonly<Record<string, unknown>>;
  /** Make `format` an assertion (date, date-time, time, duration, email, hostname, ipv4, ipv6, uri, uri-reference, iri, iri-reference, uuid, json-pointer, regex). By default it is an annotation. */
  readonly assertFormat?: boolean;
  /**
   * For a Standard Schema: the JSON Schema that picks candidates and guides coercion, when the library
   * cannot describe its schema itself (zod 3, valibot without `@valibot/to-json-schema`'s
   * `toStandardJsonSchema`). The library's own `validate` still has the final word.
   */
  readonly jsonSchema?: JsonSchema;
}

/**
 * Every keyword an issue can carry: the JSON Schema keywords that can fail, `false` (the `false` schema),
 * `parse` (no JSON in the text), `depth` (the value nests deeper than validation follows), `budget`
 * (validation stopped at its evaluation budget), all generated from the core's list; and the two this
 * package's TypeScript side adds: `check` (a `queryWithCorrection` check) and `standard` (an issue of a
 * Standard Schema library; its own code is in `params.code`).
 */
export const ISSUE_KEYWORDS = Object.freeze([...CORE_ISSUE_KEYWORDS, 'check', 'standard'] as const);

/** The keyword of a {@link SchemaIssue}. */
export type IssueKeyword = (typeof ISSUE_KEYWORDS)[number];

/** One violation of a schema. */
export interface SchemaIssue {
  /** JSON Pointer to the offending value (root `""`); for `required` and `additionalProperties`, the missing or unexpected property itself (`/notes/1/subject`). */
  readonly path: string;
  /** The keyword that failed: `type`, `required`, `enum`, `minimum`, … (`false` for the `false` schema, `parse` when there was no JSON, `standard` for a validation library's issue). */
  readonly keyword: IssueKeyword;
  readonly message: string;
  /** Where the keyword is: `#` and a JSON Pointer into the schema (`#/properties/speech/type`). */
  readonly schemaPath: string;
  /** The keyword's details: `{type, received}`, `{missingProperty}`, `{additionalProperty}`, `{allowedValues}`, `{limit}`, … */
  readonly params: Readonly<Record<string, unknown>>;
}

/** The result of {@link validate}: for a Standard Schema, `value` is the library's output (defaults, transforms, unknown keys stripped). */
export type ValidationResult<T = unknown> =
  | { readonly valid: true; readonly value: T; readonly issues: readonly [] }
  | { readonly valid: false; readonly value?: undefined; readonly issues: readonly [SchemaIssue, ...SchemaIssue[]] };

/** An issue in the Standard Schema shape (`@standard-schema/spec`), to mix with zod or valibot. */
export interface StandardIssue {
  readonly message: string;
  readonly path: readonly (string | number)[];
}

/** A schema that did not compile. */
export class SchemaCompileError extends Error {
  override readonly name = 'SchemaCompileError' as const;
  /** `invalid_schema`, `unresolved_ref`, `unsupported` or `invalid_pattern`. */
  readonly code: string;
  /** Where in the schema: `#` and a JSON Pointer (or `uri#pointer` in a remote schema). */
  readonly schemaPath: string;

  constructor(fields: { code: string; message: string; schemaPath: string }) {
    super(`${fields.message} (at ${fields.schemaPath})`);
    this.code = fields.code;
    this.schemaPath = fields.schemaPath;
  }
}

const DRAFTS = new Set(['2020-12', '2019-09', '7', '6', '4']);

/** JSON text of `value`, or a TypeError naming `where` for values JSON cannot hold. */
export function jsonText(value: unknown, where: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new TypeError(`${where}: the value cannot be written as JSON (${(e as Error).message})`);
  }
  if (text === undefined) throw new TypeError(`${where}: ${typeof value} is not a JSON value`);
  return text;
}

/** JSON Pointer → path segments (array indexes stay strings only where the pointer is not a number). */
export function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((t) => (/^(0|[1-9][0-9]*)$/.test(t) ? Number(t) : t));
}

/** The issues in the Standard Schema shape. */
export function standardIssues(issues: readonly SchemaIssue[]): StandardIssue[] {
  return issues.map((i) => ({ message: i.message, path: pointerSegments(i.path) }));
}

/** A validation library's issues as ours: keyword `standard`, the library's `code` and vendor in `params`. */
export function fromStandardIssues(
  issues: readonly StandardSchemaIssue[],
  vendor: string,
): [SchemaIssue, ...SchemaIssue[]] {
  const out = issues.map((i): SchemaIssue => {
    const code = (i as { code?: unknown }).code;
    const params: Record<string, unknown> = typeof code === 'string' ? { vendor, code } : { vendor };
    return { path: pointerOf(i.path), keyword: 'standard', message: String(i.message), schemaPath: '', params };
  });
  // A library that fails with no issues still failed: say so rather than report success.
  return out.length > 0
    ? (out as [SchemaIssue, ...SchemaIssue[]])
    : [
        {
          path: '',
          keyword: 'standard',
          message: `${vendor} rejected the value without an issue`,
          schemaPath: '',
          params: { vendor },
        },
      ];
}

/** A validation library's verdict as a {@link ValidationResult}. */
export function verdict<T>(standard: StandardSchema<unknown, T>, out: StandardResult<T>): ValidationResult<T> {
  if (out.issues === undefined) return { valid: true, value: out.value, issues: [] };
  return { valid: false, issues: fromStandardIssues(out.issues, standard['~standard'].vendor) };
}

/**
 * A Standard Schema's `validate(value)` where an answer is needed now.
 *
 * @throws {TypeError} when the library validates asynchronously (async refinements).
 */
export function syncResult<T>(standard: StandardSchema<unknown, T>, value: unknown, where: string): StandardResult<T> {
  const out = standard['~standard'].validate(value);
  if (typeof out === 'object' && out !== null && typeof (out as { then?: unknown }).then === 'function') {
    throw new TypeError(
      `${where}: this ${standard['~standard'].vendor} schema validates asynchronously; use extractAsync or queryWithCorrection, which await it`,
    );
  }
  return out as StandardResult<T>;
}

/**
 * Frees the core schema of a dropped CompiledSchema. Hosts without `FinalizationRegistry` (Workers before
 * their `enable_weak_ref` date) get none: there, only `free()` releases a compiled schema.
 */
const registry: Pick<FinalizationRegistry<CoreSchema>, 'register' | 'unregister'> = typeof FinalizationRegistry ===
'function'
  ? new FinalizationRegistry<CoreSchema>((core) => core.free())
  : { register: () => {}, unregister: () => false };

/**
 * A compiled schema. Reuse it across calls: compiling resolves every reference once. Made from a JSON
 * Schema, or from a Standard Schema (zod, valibot, arktype, effect), whose JSON Schema guides candidate
 * choice and coercion and whose own `validate` has the final word. It implements Standard Schema itself
 * (`schema['~standard'].validate(value)`), so it can go wherever a zod schema goes.
 *
 * `T` is the type of a value that passed: inferred from a Standard Schema, or given for a JSON Schema
 * (`compileSchema<Turn>(turnSchema)`).
 */
export class CompiledSchema<T = unknown> {
  #core: CoreSchema | null;
  /** The compiled schema whose core this one shares (kept alive by it), which frees the core; else none. */
  #owner: CompiledSchema | undefined;
  /** The schema as given. */
  readonly schema: unknown;
  /** The JSON Schema the engine reads: the one given, or a Standard Schema's own (`undefined` when it has none). */
  readonly jsonSchema: JsonSchema | undefined;
  /** The Standard Schema whose `validate` has the final word, if it was made from one. */
  readonly standard: StandardSchema<unknown, T> | undefined;

  /** @internal Use {@link compileSchema}. */
  constructor(
    core: CoreSchema,
    schema: unknown,
    jsonSchema: JsonSchema | undefined,
    standard: StandardSchema<unknown, T> | undefined,
    owner?: CompiledSchema,
  ) {
    this.#core = core;
    this.schema = schema;
    this.jsonSchema = jsonSchema;
    this.standard = standard;
    this.#owner = owner;
    if (owner === undefined) registry.register(this, core, this);
  }

  /** @internal The core schema (throws once freed). */
  core(where: string): CoreSchema {
    if (this.#core === null) throw new TypeError(`${where}: the compiled schema has been freed`);
    return this.#core;
  }

  /**
   * Validates `value` (no coercion). A Standard Schema is validated by its library alone, whose output
   * becomes `value`.
   *
   * @throws {TypeError} when the library validates asynchronously (use `extractAsync`, or the library).
   */
  validate(value: unknown): ValidationResult<T> {
    if (this.standard !== undefined) return verdict(this.standard, syncResult(this.standard, value, 'validate'));
    const r = JSON.parse(this.core('validate').validate(jsonText(value, 'validate'))) as {
      valid: boolean;
      issues: [SchemaIssue, ...SchemaIssue[]];
    };
    return r.valid ? { valid: true, value: value as T, issues: [] } : { valid: false, issues: r.issues };
  }

  /** Releases the compiled schema now instead of at garbage collection. */
  free(): void {
    if (this.#core === null) return;
    if (this.#owner === undefined) {
      registry.unregister(this);
      this.#core.free();
    }
    this.#core = null;
    this.#owner = undefined;
  }

  [Symbol.dispose](): void {
    this.free();
  }

  /** Standard Schema v1: `validate` returns `{value}` or `{issues: [{message, path}]}`. */
  get '~standard'(): {
    readonly version: 1;
    readonly vendor: 'llm-response-sanitizer';
    readonly validate: (value: unknown) => StandardResult<T>;
    readonly types?: { readonly input: unknown; readonly output: T } | undefined;
  } {
    return {
      version: 1,
      vendor: 'llm-response-sanitizer',
      validate: (value: unknown) => {
        const r = this.validate(value);
        return r.valid ? { value: r.value } : { issues: standardIssues(r.issues) };
      },
    };
  }
}

/** What every function that takes a schema accepts. */
export type SchemaInput<T = unknown> = JsonSchema | StandardSchema<unknown, T> | CompiledSchema<T>;

/**
 * Compiles a JSON Schema (draft 2020-12 by default; 2019-09, 7, 6 and 4 by `$schema` or `defaultDraft`), or
 * a Standard Schema: its JSON Schema (Standard JSON Schema's input side, or `options.jsonSchema`) drives
 * candidate choice and coercion, and the library's `validate` decides. `pattern` uses the host's `RegExp`
 * with the `u` flag.
 *
 * @example
 * ```ts
 * const Turn = z.object({ chosenIndex: z.number().int(), speech: z.string() });
 * const turn = compileSchema(Turn); // CompiledSchema<{chosenIndex: number; speech: string}>
 * ```
 * @throws {TypeError} for a value that is neither a JSON Schema nor a Standard Schema.
 * @throws {SchemaCompileError} for a malformed schema, an unknown `$schema`, a `$ref` that resolves nowhere, or an invalid pattern.
 */
export function compileSchema<S extends StandardSchema>(
  schema: S,
  options?: SchemaOptions,
): CompiledSchema<InferOutput<S>>;
export function compileSchema<T = unknown>(
  schema: JsonSchema | CompiledSchema<T>,
  options?: SchemaOptions,
): CompiledSchema<T>;
export function compileSchema<T = unknown>(schema: SchemaInput<T>, options?: SchemaOptions): CompiledSchema<T>;
export function compileSchema(schema: SchemaInput, options?: SchemaOptions): CompiledSchema {
  if (schema instanceof CompiledSchema) return schema;
  const source = schemaSource(schema, options);
  return new CompiledSchema(compileSource(source, options), schema, source.json, source.standard);
}

/**
 * What {@link compileSchema} compiles, the options checked: the JSON Schema the engine reads (`undefined`
 * when a Standard Schema has none), the draft it is read by, and the Standard Schema whose `validate`
 * decides.
 */
interface SchemaSource {
  json: JsonSchema | undefined;
  draft: string;
  standard: StandardSchema | undefined;
}

/** The {@link SchemaSource} of a JSON Schema or a Standard Schema. */
function schemaSource(schema: JsonSchema | StandardSchema, options: SchemaOptions | undefined): SchemaSource {
  const draft = options?.defaultDraft ?? '2020-12';
  if (!DRAFTS.has(draft))
    throw new RangeError(`compileSchema: defaultDraft must be one of ${[...DRAFTS].join(', ')}, got ${String(draft)}`);
  const remotes = options?.remotes ?? {};
  if (typeof remotes !== 'object' || remotes === null || Array.isArray(remotes)) {
    throw new TypeError('compileSchema: remotes must be an object of {uri: schema}');
  }
  if (isStandardSchema(schema)) {
    if (options?.jsonSchema !== undefined) {
      assertJsonSchema(options.jsonSchema, 'compileSchema: options.jsonSchema');
      return { json: options.jsonSchema, draft, standard: schema };
    }
    const own = jsonSchemaOf(schema);
    return { json: own?.schema, draft: own?.draft ?? draft, standard: schema };
  }
  if (options?.jsonSchema !== undefined)
    throw new TypeError(
      'compileSchema: options.jsonSchema is for a Standard Schema; the schema given is already a JSON Schema',
    );
  assertJsonSchema(schema, 'compileSchema');
  return { json: schema, draft, standard: undefined };
}

/** The engine's compiled form of `source` (see {@link schemaSource}, which checked `options`). */
function compileSource(source: SchemaSource, options: SchemaOptions | undefined): CoreSchema {
  // With no JSON Schema every candidate is read as it is, and the library judges each in turn.
  const core = newSchema(
    jsonText(source.json ?? true, 'compileSchema'),
    source.draft,
    jsonText(options?.remotes ?? {}, 'compileSchema'),
    options?.assertFormat === true,
  );
  if ('code' in core) throw new SchemaCompileError(core);
  return core;
}

/** Compiled schemas of plain schema objects, by their JSON text and options (bounded, oldest evicted). */
const cache = new Map<string, CompiledSchema>();
const CACHE_SIZE = 32;
/** JSON Schema objects found to be plain data, with the JSON text they had then. */
const checked = new WeakMap<object, string>();
/** Compiled Standard Schemas, by identity (a library's schema is not data to key by text). */
const standardCache = new WeakMap<object, { key: string; compiled: CompiledSchema }>();
/**
 * The compiled JSON Schemas of Standard Schemas, by their text and the options (bounded, oldest evicted),
 * which each Standard Schema of that text shares: one made anew for every call (`extract(text,
 * z.object({…}))`) still converts each time, but compiles once and holds nothing of its own in the module,
 * where in a synchronous loop, before any finalizer could run, each held about 1.8 KB.
 */
const standardCores = new Map<string, CompiledSchema>();

function optionsKey(options: SchemaOptions | undefined, where: string): string {
  return `${options?.defaultDraft ?? ''}|${options?.assertFormat === true}|${jsonText(options?.remotes ?? {}, where)}|${options?.jsonSchema === undefined ? '' : jsonText(options.jsonSchema, where)}`;
}

/**
 * @internal The compiled form of `schema` for `extract`, `validate` and `PartialJsonParser`, from a cache
 * when it was compiled with the same options before. Never freed by its callers: the cache may hand it out
 * again.
 */
export function compiled(schema: SchemaInput, options: SchemaOptions | undefined, where: string): CompiledSchema {
  if (schema instanceof CompiledSchema) return schema;
  if (isStandardSchema(schema)) {
    const key = optionsKey(options, where);
    const hit = standardCache.get(schema);
    if (hit !== undefined && hit.key === key) return hit.compiled;
    const c = sharedStandard(schema, options, key, where);
    standardCache.set(schema, { key, compiled: c });
    return c;
  }
  // Checked to be plain JSON data once per object and text (a class instance or a nested library schema
  // must not pass as the JSON it happens to stringify to); `typeof` first, so a function is named as one.
  if (typeof schema !== 'object' || schema === null) assertJsonSchema(schema, where);
  const text = jsonText(schema, where);
  if (typeof schema === 'object' && checked.get(schema) !== text) {
    assertJsonSchema(schema, where);
    checked.set(schema, text);
  }
  return recent(cache, `${optionsKey(options, where)}|${text}`, () => compileSchema(schema as JsonSchema, options));
}

/**
 * The entry of `map` (one of the caches above) for `key`, made by `make` where there is none; the map keeps
 * the {@link CACHE_SIZE} used last. The one it lets go may still be held (by a streaming parser, or shared by
 * library schemas), so the garbage collector frees it: at once only on a host without
 * `FinalizationRegistry`, where nothing else would (and where nothing is shared).
 */
function recent(map: Map<string, CompiledSchema>, key: string, make: () => CompiledSchema): CompiledSchema {
  let c = map.get(key);
  if (c === undefined) {
    c = make();
    if (map.size >= CACHE_SIZE) {
      const [oldest, evicted] = map.entries().next().value as [string, CompiledSchema];
      map.delete(oldest);
      if (typeof FinalizationRegistry !== 'function') evicted.free();
    }
  } else {
    map.delete(key);
  }
  map.set(key, c);
  return c;
}

/**
 * `schema` compiled, its core shared with every Standard Schema of the same JSON Schema text and options
 * (`key`) through {@link standardCores}: the library's own `validate` still decides for each. A host without
 * `FinalizationRegistry` compiles each on its own, as nothing would free a core evicted while shared.
 */
function sharedStandard(
  schema: StandardSchema,
  options: SchemaOptions | undefined,
  key: string,
  where: string,
): CompiledSchema {
  const source = schemaSource(schema, options);
  if (typeof FinalizationRegistry !== 'function')
    return new CompiledSchema(compileSource(source, options), schema, source.json, schema);
  const owner = recent(
    standardCores,
    `${key}|${source.draft}|${jsonText(source.json ?? true, where)}`,
    () => new CompiledSchema(compileSource(source, options), source.json, source.json, undefined),
  );
  return new CompiledSchema(owner.core(where), schema, source.json, schema, owner);
}

/**
 * Validates `value` against `schema` (a JSON Schema, a Standard Schema or a {@link CompiledSchema}), without
 * coercion. A Standard Schema is validated by its library, whose output is `value`.
 */
export function validate<S extends StandardSchema>(
  value: unknown,
  schema: S,
  options?: SchemaOptions,
): ValidationResult<InferOutput<S>>;
export function validate<T = unknown>(
  value: unknown,
  schema: JsonSchema | CompiledSchema<T>,
  options?: SchemaOptions,
): ValidationResult<T>;
export function validate<T = unknown>(
  value: unknown,
  schema: SchemaInput<T>,
  options?: SchemaOptions,
): ValidationResult<T>;
export function validate(value: unknown, schema: SchemaInput, options?: SchemaOptions): ValidationResult {
  if (schema instanceof CompiledSchema) return schema.validate(value);
  // A library validates alone: nothing to compile.
  if (isStandardSchema(schema)) return verdict(schema, syncResult(schema, value, 'validate'));
  return compiled(schema, options, 'validate').validate(value);
}
