/** JSON Schema: compile once, validate, with issues that name each problem by path (SPEC §5). */
import { newSchema, type CoreSchema } from './wasm.js';

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
}

/** One violation of a schema. */
export interface SchemaIssue {
  /** JSON Pointer to the offending value (root `""`); for `required` and `additionalProperties`, the missing or unexpected property itself (`/notes/1/subject`). */
  readonly path: string;
  /** The keyword that failed: `type`, `required`, `enum`, `minimum`, … (`false` for the `false` schema, `parse` when there was no JSON). */
  readonly keyword: string;
  readonly message: string;
  /** Where the keyword is: `#` and a JSON Pointer into the schema (`#/properties/speech/type`). */
  readonly schemaPath: string;
  /** The keyword's details: `{type, received}`, `{missingProperty}`, `{additionalProperty}`, `{allowedValues}`, `{limit}`, … */
  readonly params: Readonly<Record<string, unknown>>;
}

/** The result of {@link validate}. */
export interface ValidationResult {
  readonly valid: boolean;
  readonly issues: readonly SchemaIssue[];
}

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

const registry = new FinalizationRegistry<CoreSchema>((core) => core.free());

/**
 * A compiled JSON Schema. Reuse it across calls: compiling resolves every reference once. It also
 * implements Standard Schema (`schema['~standard'].validate(value)`).
 */
export class CompiledSchema {
  #core: CoreSchema | null;
  /** The schema as given. */
  readonly schema: unknown;

  /** @internal Use {@link compileSchema}. */
  constructor(core: CoreSchema, schema: unknown) {
    this.#core = core;
    this.schema = schema;
    registry.register(this, core, this);
  }

  /** @internal The core schema (throws once freed). */
  core(where: string): CoreSchema {
    if (this.#core === null) throw new Error(`${where}: the compiled schema has been freed`);
    return this.#core;
  }

  /** Validates `value` (no coercion). */
  validate(value: unknown): ValidationResult {
    return JSON.parse(this.core('validate').validate(jsonText(value, 'validate'))) as ValidationResult;
  }

  /** Releases the compiled schema now instead of at garbage collection. */
  free(): void {
    if (this.#core === null) return;
    registry.unregister(this);
    this.#core.free();
    this.#core = null;
  }

  [Symbol.dispose](): void {
    this.free();
  }

  /** Standard Schema v1: `validate` returns `{value}` or `{issues: [{message, path}]}`. */
  get '~standard'(): {
    readonly version: 1;
    readonly vendor: 'llm-response-sanitizer';
    validate(value: unknown): { value: unknown } | { issues: StandardIssue[] };
  } {
    return {
      version: 1,
      vendor: 'llm-response-sanitizer',
      validate: (value: unknown) => {
        const r = this.validate(value);
        return r.valid ? { value } : { issues: standardIssues(r.issues) };
      },
    };
  }
}

/**
 * Compiles a JSON Schema (draft 2020-12 by default; 2019-09, 7, 6 and 4 by `$schema` or
 * `defaultDraft`). `pattern` uses the host's `RegExp` with the `u` flag.
 *
 * @throws {SchemaCompileError} for a malformed schema, an unknown `$schema`, a `$ref` that resolves nowhere, or an invalid pattern.
 */
export function compileSchema(schema: unknown, options?: SchemaOptions): CompiledSchema {
  if (schema instanceof CompiledSchema) return schema;
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new TypeError('compileSchema: a schema must be an object or a boolean');
  }
  const draft = options?.defaultDraft ?? '2020-12';
  if (!DRAFTS.has(draft)) throw new RangeError(`compileSchema: defaultDraft must be one of ${[...DRAFTS].join(', ')}, got ${String(draft)}`);
  const remotes = options?.remotes ?? {};
  if (typeof remotes !== 'object' || remotes === null || Array.isArray(remotes)) {
    throw new TypeError('compileSchema: remotes must be an object of {uri: schema}');
  }
  const core = newSchema(jsonText(schema, 'compileSchema'), draft, jsonText(remotes, 'compileSchema'), options?.assertFormat === true);
  if ('code' in core) throw new SchemaCompileError(core);
  return new CompiledSchema(core, schema);
}

/** Validates `value` against `schema` (a schema object or a {@link CompiledSchema}), without coercion. */
export function validate(value: unknown, schema: unknown, options?: SchemaOptions): ValidationResult {
  if (schema instanceof CompiledSchema) return schema.validate(value);
  const compiled = compileSchema(schema, options);
  try {
    return compiled.validate(value);
  } finally {
    compiled.free();
  }
}
