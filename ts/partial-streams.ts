/**
 * Stream adapters for the {@link PartialJsonParser}: a WHATWG `TransformStream` and an async-iterable
 * form. Both take text or UTF-8 bytes, so a `fetch` body, or the output of `createCleanStream`, goes
 * straight in.
 */
import { PartialJsonParser, type PartialJsonOptions, type PartialJsonResult } from './partial.js';
import { ChunkDecoder, type TextChunk } from './streams.js';

/** What the adapters emit: the value after each chunk, and at the end the finished value. */
export interface PartialJsonUpdate extends PartialJsonResult {
  /** True once, for the last update: `value` is what `parseAndRepair` gives for the whole text. */
  readonly done: boolean;
}

/** One parser and one decoder over a sequence of chunks. */
class PartialPump {
  readonly #parser: PartialJsonParser;
  readonly #decoder = new ChunkDecoder();

  constructor(options: PartialJsonOptions | undefined) {
    this.#parser = new PartialJsonParser(options);
  }

  push(chunk: TextChunk): PartialJsonUpdate {
    const r = this.#parser.push(this.#decoder.text(chunk));
    return { value: r.value, complete: r.complete, done: false };
  }

  finish(): PartialJsonUpdate {
    const tail = this.#decoder.end();
    if (tail !== '') this.#parser.push(tail);
    return { value: this.#parser.finish(), complete: true, done: true };
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
export function createPartialJsonStream(options?: PartialJsonOptions): TransformStream<TextChunk, PartialJsonUpdate> {
  const pump = new PartialPump(options);
  return new TransformStream<TextChunk, PartialJsonUpdate>({
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
  } as Transformer<TextChunk, PartialJsonUpdate>);
}

/**
 * Parses an (async) iterable of chunks, yielding the value after each one and finally the finished
 * value (`done: true`). The parser is freed when the loop ends, early exits included.
 */
export async function* partialJsonValues(
  source: AsyncIterable<TextChunk> | Iterable<TextChunk>,
  options?: PartialJsonOptions,
): AsyncGenerator<PartialJsonUpdate, void, undefined> {
  const pump = new PartialPump(options);
  try {
    for await (const chunk of source) yield pump.push(chunk);
    yield pump.finish();
  } finally {
    pump.free();
  }
}
