/**
 * Stream adapters for the {@link PartialJsonParser}: a WHATWG `TransformStream` and an async-iterable
 * form. Both take text or UTF-8 bytes, so a `fetch` body, or the output of `createCleanStream`, goes
 * straight in.
 */
import { PartialJsonParser, type DeepPartial, type PartialJsonOptions, type PartialJsonResult } from './partial.js';
import { ChunkDecoder, type TextChunk } from './streams.js';
import type { ExtractResult } from './extract.js';

/** What the adapters emit: the value after each chunk, and at the end the finished value. */
export interface PartialJsonUpdate<T = unknown> extends PartialJsonResult<T> {
  /**
   * True once, for the last update: `value` is what `parseAndRepair` gives for the whole text, or with a
   * schema what `extract` gives (`result.value`) when it found a candidate.
   */
  readonly done: boolean;
  /** On the last update of a stream parsed with a schema: what `extract` gives for the whole text (the value coerced and validated, or its issues). */
  readonly result?: ExtractResult<T>;
}

/** One parser and one decoder over a sequence of chunks. */
class PartialPump<T> {
  readonly #parser: PartialJsonParser<T>;
  readonly #decoder = new ChunkDecoder();

  constructor(options: PartialJsonOptions<T> | undefined) {
    this.#parser = new PartialJsonParser<T>(options);
  }

  push(chunk: TextChunk): PartialJsonUpdate<T> {
    const r = this.#parser.push(this.#decoder.text(chunk));
    return { value: r.value, complete: r.complete, done: false };
  }

  finish(): PartialJsonUpdate<T> {
    const tail = this.#decoder.end();
    if (tail !== '') this.#parser.push(tail);
    const { value, result } = this.#parser.finishBoth();
    if (result === undefined) return { value: value as DeepPartial<T>, complete: true, done: true };
    // With a schema the values shown were coerced on the way; the last is the checked one, when there is one.
    return {
      value: (result.value !== undefined ? result.value : value) as DeepPartial<T>,
      complete: true,
      done: true,
      result,
    };
  }

  free(): void {
    this.#parser.free();
  }
}

/**
 * A `TransformStream` from text (or bytes) to partial values:
 * `body.pipeThrough(createCleanStream()).pipeThrough(createPartialJsonStream())`. Each update's
 * `value` is the parser's live value, updated in place by later chunks: copy it to keep a snapshot.
 * The stream errors with a `JsonRepairError` when the whole text holds no JSON.
 */
export function createPartialJsonStream<T = unknown>(
  options?: PartialJsonOptions<T>,
): TransformStream<TextChunk, PartialJsonUpdate<T>> {
  const pump = new PartialPump<T>(options);
  return new TransformStream<TextChunk, PartialJsonUpdate<T>>({
    transform(chunk, controller) {
      controller.enqueue(pump.push(chunk));
    },
    flush(controller) {
      controller.enqueue(pump.finish());
    },
    // Called when the stream is cancelled or aborted (where supported); otherwise finalization frees it.
    cancel() {
      pump.free();
    },
  } as Transformer<TextChunk, PartialJsonUpdate<T>>);
}

/**
 * Parses an (async) iterable of chunks, yielding the value after each one and finally the finished
 * value (`done: true`). The parser is freed when the loop ends, early exits included.
 */
export async function* partialJsonValues<T = unknown>(
  source: AsyncIterable<TextChunk> | Iterable<TextChunk>,
  options?: PartialJsonOptions<T>,
): AsyncGenerator<PartialJsonUpdate<T>, void, undefined> {
  const pump = new PartialPump<T>(options);
  try {
    for await (const chunk of source) yield pump.push(chunk);
    yield pump.finish();
  } finally {
    pump.free();
  }
}
