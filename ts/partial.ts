/** Streaming JSON: the value of a response while it arrives. */
import {
  decodeError,
  newPartialJson,
  type CorePartialJson,
  type PlacedChanges,
  type QuickChanges,
  type RawRepairOk,
} from './wasm.js';
import { JsonRepairError, assertString, type JsonRepairErrorKind } from './errors.js';
import { fail, plan, reportedResult, validResult, type ParseResult } from './repair.js';
import { PartialValue } from './partial-value.js';
import { PairJoiner, hasLoneSurrogate } from './surrogates.js';
import { compiled, type CompiledSchema, type SchemaInput } from './schema.js';
import { extract, forbiddenRules, type ExtractOptions, type ExtractResult } from './extract.js';

/**
 * What a value of type `T` looks like while it streams: every property optional, all the way down. The
 * type describes the shape only; nothing is validated until the value is passed to `extract` or `validate`.
 */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * Options of {@link PartialJsonParser}: those of `parseAndRepair`, a schema, and with it the schema and
 * coercion options `extract` takes (for {@link PartialJsonParser.finishExtract}).
 */
export interface PartialJsonOptions<T = unknown> extends ExtractOptions {
  /**
   * The value's schema: a JSON Schema, a Standard Schema that can describe itself as one (zod ≥ 4.2,
   * arktype, valibot through `@valibot/to-json-schema`), or a {@link CompiledSchema}. It types the partial
   * values, and strings where it names an `enum` or `const` are held back until they are complete, so
   * `"attack"` never shows as `"att"`; a string where it wants a number or boolean shows only complete,
   * coerced as `extract` coerces it. The core's schema engine reads the schema: `$ref` (local or to
   * `remotes`), `properties`, `additionalProperties`, `items`, `prefixItems` and `allOf`/`anyOf`/`oneOf`
   * are followed.
   */
  readonly schema?: SchemaInput<T>;
  /**
   * Hand out immutable snapshots instead of one live object: after each `push` the value is a new object
   * wherever something changed and the same object wherever nothing did, so React, Vue and Svelte re-render
   * exactly what changed and collected updates stay as they were. It costs a shallow copy of each changed
   * container per chunk (`npm run bench` measures it).
   */
  readonly snapshots?: boolean;
  /**
   * The response starts inside a reasoning block whose opening tag the chat template emitted (DeepSeek-R1,
   * QwQ and other models served raw): nothing is shown until a closing tag (`</think>`, `</thinking>`,
   * `</reasoning>`) has arrived, so JSON drafted in the reasoning never appears as the value. `finish()` is
   * not affected: it reads the whole text as `parseAndRepair` does.
   */
  readonly reasoningFirst?: boolean;
}

/** What {@link PartialJsonParser.push} returns. */
export interface PartialJsonResult<T = unknown> {
  /** The value so far (`undefined` until the JSON starts): one live object updated in place, or with `snapshots` an immutable copy per change. */
  readonly value: DeepPartial<T> | undefined;
  /** Whether the root value has been read to its closing bracket. */
  readonly complete: boolean;
}

/**
 * Parses the JSON in a response as it streams. After each `push` the value holds what has arrived:
 * strings grow, numbers and literals appear whole, a key appears with its value, and nothing changes
 * type. Each byte is parsed once, so a stream costs time linear in its length. `finish()` returns
 * exactly what `parseAndRepair` returns for the whole text, however it was split.
 *
 * The JSON is located as `parseAndRepair` locates it. When later text moves it (a `</think>` with no
 * opening tag, a ```` ```json ```` block after an object in prose), the value starts over there.
 *
 * Free it with `free()` or `using`; one that is dropped is reclaimed by a `FinalizationRegistry`.
 */
export class PartialJsonParser<T = unknown> {
  #core: CorePartialJson | null;
  readonly #value: PartialValue;
  #complete = false;
  readonly #pairs = new PairJoiner();
  #finished = false;
  /** With a schema: the schema and the options for `extract` (for {@link PartialJsonParser.finishExtract}). */
  #schema: CompiledSchema<T> | undefined;
  #options: PartialJsonOptions<T> | undefined;
  /**
   * The chunks so far, as given (references, not copies), kept only where the core's copy of the text may
   * not do: with a schema (`extract` reads them at the end) and from the first lone surrogate, which reached
   * the core as U+FFFD (the valid-JSON check reads them). Kept always, they cost a stream of short chunks
   * 1–4% of its time (100 KB in 10-character chunks), mostly in garbage collection.
   */
  #text: string[] | undefined;
  /** A chunk held a lone surrogate. */
  #lone = false;
  /** Whether `JSON.parse` may answer for valid text (no option could reject valid JSON). */
  readonly #fastPath: boolean;

  constructor(options?: PartialJsonOptions<T>) {
    const p = plan(options, 'PartialJsonParser');
    if (options?.snapshots !== undefined && typeof options.snapshots !== 'boolean')
      throw new TypeError('PartialJsonParser: snapshots must be a boolean');
    this.#value = new PartialValue(options?.snapshots === true);
    this.#fastPath = p.fastPath;
    if (options?.schema !== undefined) {
      this.#schema = compiled(options.schema, options, 'PartialJsonParser') as CompiledSchema<T>;
      this.#options = options;
      this.#text = [];
    }
    if (options?.reasoningFirst !== undefined && typeof options.reasoningFirst !== 'boolean')
      throw new TypeError('PartialJsonParser: reasoningFirst must be a boolean');
    this.#core = newPartialJson(p.maxDepth, p.maxInputLength, p.forbid, p.fastPath, options?.reasoningFirst === true);
    // Strings are shown by the schema (fixed strings whole; numbers and booleans coerced as extract coerces
    // them at the end, under the same options). A library schema with no JSON Schema form guides nothing.
    if (this.#schema !== undefined && typeof this.#schema.jsonSchema === 'object')
      this.#core.setSchema(this.#schema.core('PartialJsonParser'), forbiddenRules(options, 'PartialJsonParser'));
  }

  #live(where: string): CorePartialJson {
    if (this.#core === null) throw new TypeError(`PartialJsonParser.${where}: the parser has been freed`);
    if (this.#finished) throw new TypeError(`PartialJsonParser.${where}: the parser has already finished`);
    return this.#core;
  }

  /**
   * Takes the next chunk of the response and returns the value so far.
   *
   * @throws {JsonRepairError} `input_too_long` once the text exceeds `maxInputLength`. Other errors
   *   wait for `finish()`, since later text may move the JSON (see {@link PartialJsonParser.error}).
   * @throws {TypeError} when `chunk` is not a string, or the parser has finished or been freed (as a
   *   closed web stream throws).
   */
  push(chunk: string): PartialJsonResult<T> {
    assertString(chunk, 'PartialJsonParser.push');
    const core = this.#live('push');
    const text = this.#pairs.take(chunk);
    if (text !== '') {
      if (!this.#lone && hasLoneSurrogate(text)) {
        this.#lone = true;
        // The core's copy holds no U+FFFD of a lone surrogate yet: exact up to this chunk.
        this.#text ??= [core.text()];
      }
      this.#text?.push(text);
      this.#apply(core.push(text));
    }
    return { value: this.#value.current as DeepPartial<T> | undefined, complete: this.#complete };
  }

  #apply(out: string | QuickChanges | PlacedChanges): void {
    if (typeof out !== 'string') {
      this.#complete = out.complete;
      if ('placed' in out) this.#value.applyPlaced(out.count, out.codes, out.texts);
      else if (out.append !== undefined) this.#value.append(out.append);
      return;
    }
    if (out.charCodeAt(0) === 69 /* E */) fail(decodeError(out));
    this.#complete = out.charCodeAt(0) === 49; /* 1 */
    this.#value.apply(out);
  }

  /** The value so far. */
  get value(): DeepPartial<T> | undefined {
    return this.#value.current as DeepPartial<T> | undefined;
  }

  /** Whether the root value has been read to its closing bracket. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * The error the parse has stopped at (a depth limit, a forbidden repair), which `finish()` will
   * throw unless later text moves the JSON elsewhere; `undefined` while there is none.
   */
  get error(): JsonRepairError | undefined {
    const e = this.#core?.error();
    return e === undefined ? undefined : new JsonRepairError({ ...e, kind: e.kind as JsonRepairErrorKind });
  }

  /**
   * Ends the stream and frees the parser. With `shown`, where the value the pushes showed, completed, is
   * the result: completes it and returns `undefined` (the result's JSON is neither written nor parsed).
   */
  #end(where: string, report: boolean, narrow: boolean, shown = false): RawRepairOk | undefined {
    const core = this.#live(where);
    const held = this.#pairs.rest();
    if (held !== '') this.#apply(core.push(held));
    this.#finished = true;
    const r = core.finish(report, narrow, shown);
    this.free();
    if (typeof r === 'string') {
      this.#apply(r);
      return undefined;
    }
    if (!r.ok) fail(r.error);
    return r;
  }

  /**
   * Ends the stream and returns the value, exactly as `parseAndRepair` returns it for the whole text.
   * The parser is freed.
   *
   * @throws {JsonRepairError} as `parseAndRepair` would.
   */
  finish(): unknown {
    const valid = this.#validText('finish');
    const r = this.#end('finish', false, true, valid === undefined);
    if (valid !== undefined) return JSON.parse(valid);
    return r === undefined ? this.#value.current : JSON.parse(r.json);
  }

  /**
   * The whole text when it is valid JSON that held a lone surrogate: the core saw U+FFFD in its place, and
   * valid JSON must come back exactly as `JSON.parse` builds it from the caller's text.
   */
  #validText(where: string): string | undefined {
    this.#live(where);
    // A lone first half held at the end is never the end of valid JSON, whose last character is ASCII.
    if (!this.#fastPath || !this.#lone) return undefined;
    const text = this.#text!.join('') + this.#pairs.peek();
    try {
      JSON.parse(text);
      return text;
    } catch {
      return undefined;
    }
  }

  /** Like {@link PartialJsonParser.finish}, with the report of `parseDetailed`. */
  finishDetailed(): ParseResult {
    const valid = this.#validText('finishDetailed');
    const r = this.#end('finishDetailed', true, false)!;
    if (valid !== undefined) return validResult(valid, JSON.parse(valid));
    return reportedResult(r);
  }

  /**
   * Ends the stream and returns what `extract` returns for the whole text with the parser's schema: the value
   * coerced and validated (`"2"` → 2, enum case, defaults; a library schema's output), or the issues. Where
   * {@link PartialJsonParser.finish} gives the repaired value as written, this gives the checked one. The parser
   * is freed.
   *
   * @throws {TypeError} when the parser was made without a schema.
   */
  finishExtract(): ExtractResult<T> {
    if (this.#schema === undefined)
      throw new TypeError(
        'PartialJsonParser.finishExtract: the parser was made without a schema; pass {schema} to the constructor',
      );
    this.#live('finishExtract');
    const text = this.#text!.join('') + this.#pairs.rest();
    this.#finished = true;
    try {
      return extract(text, this.#schema, this.#options);
    } finally {
      this.free();
    }
  }

  /**
   * @internal For the stream adapters: {@link PartialJsonParser.finish}'s value and, with a schema,
   * {@link PartialJsonParser.finishExtract}'s result, from one ending.
   */
  finishBoth(): { value: unknown; result: ExtractResult<T> | undefined } {
    if (this.#schema === undefined) return { value: this.finish(), result: undefined };
    this.#live('finish');
    const text = this.#text!.join('') + this.#pairs.peek();
    const value = this.finish();
    return { value, result: extract(text, this.#schema, this.#options) };
  }

  /** Releases the core's memory. Idempotent. */
  free(): void {
    this.#core?.free();
    this.#core = null;
    this.#text = undefined;
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
