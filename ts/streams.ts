/**
 * Stream adapters: a WHATWG `TransformStream` and an async-iterable form of the {@link StreamCleaner},
 * so a `fetch` body (bytes or text) goes straight through cleaning.
 */
import { StreamCleaner, type CleanOptions } from './clean.js';

/** Hooks of the cleaning adapters. */
export interface CleanStreamHooks {
  /** Called once with the removed reasoning, as soon as it is known. */
  readonly onReasoning?: (reasoning: string) => void;
}

/** A chunk the adapters accept: text, or UTF-8 bytes (decoded across chunk boundaries). */
export type TextChunk = string | ArrayBufferView | ArrayBuffer;

/**
 * How a server-sent events body starts: a `data:` field holding JSON or `[DONE]`, or an `event:` field line
 * followed by another field. A model's own text does not start like this.
 */
const SSE_START = /^\ufeff?[\t\n\r ]*(?:data: ?[{[]|event: ?[\w.-]+\r?\n(?:data|id|retry):)/;
/** How much of the start is looked at for {@link SSE_START}. */
const SSE_LOOK = 256;

/**
 * Turns chunks of text or UTF-8 bytes into text, keeping characters split between chunks intact. A body
 * that is server-sent events (a provider's stream) is a `TypeError`: its text is inside the events, and
 * cleaning or parsing the envelope would silently give the wrong value.
 */
export class ChunkDecoder {
  #decoder: TextDecoder | undefined;
  /** The start of the text, until it is long enough to rule out server-sent events; then `null`. */
  #head: string | null = '';
  /** Whether any text has come out: a byte order mark is dropped only before that. */
  #begun = false;

  text(chunk: TextChunk): string {
    let text: string;
    if (typeof chunk === 'string') text = chunk;
    else if (!ArrayBuffer.isView(chunk) && !(chunk instanceof ArrayBuffer)) {
      throw new TypeError(
        `clean stream: chunks must be strings or bytes, got ${chunk === null ? 'null' : typeof chunk}` +
          (chunk !== null && typeof chunk === 'object'
            ? " (a provider's client's stream of events? read it with objectStream or providerTextStream)"
            : ''),
      );
    } else {
      // The mark is dropped here rather than by the decoder: Node 24 to 26's dropped one that came after a
      // character split between the first chunks (`EF` then `BF BD EF BB BF`: U+FFFD, U+FEFF).
      this.#decoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
      text = this.#decoder.decode(chunk, { stream: true });
      if (!this.#begun && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text !== '') this.#begun = true;
    if (this.#head !== null && text !== '') this.#look(text);
    return text;
  }

  #look(text: string): void {
    const head = this.#head + text.slice(0, SSE_LOOK);
    if (SSE_START.test(head)) {
      this.#head = null;
      throw new TypeError(
        'stream: the body is server-sent events (it starts with "data:" or "event:"), not the text of a response: ' +
          "read it with objectStream(response) (objectStream(source, { format: 'sse' }) for a source other than a " +
          "Response) for JSON, or providerTextStream(source, { format: 'sse' }) for its text",
      );
    }
    this.#head = head.length >= SSE_LOOK ? null : head;
  }

  end(): string {
    return this.#decoder?.decode() ?? '';
  }
}

/** Runs one cleaner over a sequence of chunks; reports reasoning once. */
class CleanPump {
  readonly #cleaner: StreamCleaner;
  readonly #decoder = new ChunkDecoder();
  readonly #hooks: CleanStreamHooks;
  #reported = false;

  constructor(options: CleanOptions | undefined, hooks: CleanStreamHooks | undefined) {
    this.#cleaner = new StreamCleaner(options);
    this.#hooks = hooks ?? {};
  }

  push(chunk: TextChunk): string {
    const out = this.#cleaner.push(this.#decoder.text(chunk));
    this.#report();
    return out;
  }

  finish(): string {
    const tail = this.#decoder.end();
    const out = (tail === '' ? '' : this.#cleaner.push(tail)) + this.#cleaner.finish();
    this.#report();
    this.free();
    return out;
  }

  free(): void {
    this.#cleaner.free();
  }

  #report(): void {
    if (this.#reported || this.#hooks.onReasoning === undefined) return;
    const r = this.#cleaner.reasoning;
    if (r !== null) {
      this.#reported = true;
      this.#hooks.onReasoning(r);
    }
  }
}

/**
 * A `TransformStream` that cleans text as it flows: `response.body.pipeThrough(createCleanStream())`.
 * Empty results are not enqueued. The output, joined, equals `clean(whole input, options)`.
 */
export function createCleanStream(
  options?: CleanOptions,
  hooks?: CleanStreamHooks,
): TransformStream<TextChunk, string> {
  const pump = new CleanPump(options, hooks);
  return new TransformStream<TextChunk, string>({
    transform(chunk, controller) {
      const out = pump.push(chunk);
      if (out !== '') controller.enqueue(out);
    },
    flush(controller) {
      const out = pump.finish();
      if (out !== '') controller.enqueue(out);
    },
    // Called when the stream is cancelled or aborted (where supported); otherwise finalization frees it.
    cancel() {
      pump.free();
    },
  } as Transformer<TextChunk, string>);
}

/**
 * Cleans an (async) iterable of chunks, yielding cleaned text as it becomes final. The cleaner is freed
 * when the loop ends, early exits included.
 */
export async function* cleanChunks(
  source: AsyncIterable<TextChunk> | Iterable<TextChunk>,
  options?: CleanOptions,
  hooks?: CleanStreamHooks,
): AsyncGenerator<string, void, undefined> {
  const pump = new CleanPump(options, hooks);
  try {
    for await (const chunk of source) {
      const out = pump.push(chunk);
      if (out !== '') yield out;
    }
    const out = pump.finish();
    if (out !== '') yield out;
  } finally {
    pump.free();
  }
}
