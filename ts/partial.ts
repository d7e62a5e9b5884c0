/** Streaming JSON (SPEC §7): the value of a response while it arrives. */
import { newPartialJson, type CorePartialJson, type RawRepairOk } from './wasm.js';
import { JsonRepairError, assertString, type JsonRepairErrorKind } from './errors.js';
import { fail, plan, type ParseResult, type RepairOptions } from './repair.js';
import { PartialValue } from './partial-value.js';
import { PairJoiner } from './surrogates.js';


/** Options of {@link PartialJsonParser}: those of `parseAndRepair`, and a schema. */
export interface PartialJsonOptions extends RepairOptions {
  /**
   * A JSON Schema for the value. Strings where it names an `enum` or `const` are held back until they
   * are complete, so `"attack"` never shows as `"att"`. Local `$ref`, `properties`,
   * `additionalProperties`, `items`, `prefixItems` and `allOf`/`anyOf`/`oneOf` are followed.
   */
  readonly schema?: object;
}

/** What {@link PartialJsonParser.push} returns. */
export interface PartialJsonResult {
  /** The value so far (`undefined` until the JSON starts). The same object, updated in place. */
  readonly value: unknown;
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
export class PartialJsonParser {
  #core: CorePartialJson | null;
  readonly #value: PartialValue;
  #complete = false;
  readonly #pairs = new PairJoiner();
  #finished = false;

  constructor(options?: PartialJsonOptions) {
    const p = plan(options, 'PartialJsonParser');
    const schema = options?.schema;
    if (schema !== undefined && (typeof schema !== 'object' || schema === null)) {
      throw new TypeError('PartialJsonParser: schema must be a JSON Schema object');
    }
    this.#value = new PartialValue(schema);
    this.#core = newPartialJson(p.maxDepth, p.maxInputLength, p.forbid, p.fastPath);
  }

  #live(where: string): CorePartialJson {
    if (this.#core === null) throw new Error(`PartialJsonParser.${where}: the parser has been freed`);
    if (this.#finished) throw new Error(`PartialJsonParser.${where}: the parser has already finished`);
    return this.#core;
  }

  /**
   * Takes the next chunk of the response and returns the value so far.
   *
   * @throws {JsonRepairError} `input_too_long` once the text exceeds `maxInputLength`. Other errors
   *   wait for `finish()`, since later text may move the JSON (see {@link PartialJsonParser.error}).
   */
  push(chunk: string): PartialJsonResult {
    assertString(chunk, 'PartialJsonParser.push');
    const core = this.#live('push');
    const text = this.#pairs.take(chunk);
    if (text !== '') this.#apply(core.push(text));
    return { value: this.#value.root, complete: this.#complete };
  }

  #apply(out: string): void {
    if (out.charCodeAt(0) === 69 /* E */) fail(JSON.parse(out.slice(1)));
    const ops = JSON.parse(out) as unknown[];
    this.#complete = ops[0] === 1;
    this.#value.apply(ops, 1);
  }

  /** The value so far. */
  get value(): unknown {
    return this.#value.root;
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

  #end(where: string, report: boolean, narrow: boolean): RawRepairOk {
    const core = this.#live(where);
    const held = this.#pairs.rest();
    if (held !== '') this.#apply(core.push(held));
    this.#finished = true;
    const r = core.finish(report, narrow);
    this.free();
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
    return JSON.parse(this.#end('finish', false, true).json);
  }

  /** Like {@link PartialJsonParser.finish}, with the report of `parseDetailed`. */
  finishDetailed(): ParseResult {
    const r = this.#end('finishDetailed', true, false);
    const header = JSON.parse(r.header) as Pick<ParseResult, 'status' | 'repairs' | 'span'>;
    return { value: JSON.parse(r.json), json: r.json, status: header.status, repairs: header.repairs, span: header.span };
  }

  /** Releases the core's memory. Idempotent. */
  free(): void {
    this.#core?.free();
    this.#core = null;
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
