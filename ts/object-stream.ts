/**
 * One call from a model's streamed response to typed partial values and a checked result: the provider's
 * event stream (or plain text) is read, reasoning kept apart, the JSON parsed as it arrives, and at the end
 * extracted against the schema.
 */
import { PartialJsonParser, type DeepPartial, type PartialJsonOptions } from './partial.js';
import {
  aiSdkEventDeltas,
  anthropicEventDeltas,
  chunksOf,
  geminiEventDeltas,
  isEventObject,
  langChainEventDeltas,
  ollamaEventDeltas,
  openAIEventDeltas,
  prepend,
  providerOfResponse,
  providerText,
  providerToolArguments,
  sourceEvents,
  type ProviderStream,
} from './providers.js';
import { ChunkDecoder } from './streams.js';
import { cleanDetailed, COMMON_THINK_TAGS } from './clean.js';
import type { ExtractResult } from './extract.js';
import type { JsonSchema, InferOutput, StandardSchema } from './standard.js';
import type { CompiledSchema, SchemaInput } from './schema.js';

/** How a streamed response is written. */
export type StreamFormat = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'ai-sdk' | 'langchain' | 'sse' | 'text';

/** Options of {@link objectStream}: those of `PartialJsonParser` (the schema among them), and how to read the source. */
export interface ObjectStreamOptions<T = unknown> extends PartialJsonOptions<T> {
  /**
   * An OpenAI event stream (chat completions, OpenAI-compatible servers, or the Responses API), an Anthropic
   * or a Gemini one, the parts of an AI SDK stream (`'ai-sdk'`), a LangChain model's chunks
   * (`'langchain'`), `'sse'` for an event stream whose source its first event tells, Ollama's
   * newline-delimited JSON, or plain text. By default a `Response` whose content type is `text/event-stream`
   * is read as `'sse'`, one of `application/x-ndjson` as Ollama's, one of `application/json` whole (a
   * provider's whole response gives its text, its error body throws), and an iterable of objects (a client's
   * stream) as events whose source the first one tells; any other source is text.
   */
  readonly format?: StreamFormat;
  /** Read a tool call's arguments instead of the text: `true` for the first call, or the tool's name. */
  readonly tool?: boolean | string;
  /** Cancels the source at once; the iteration and the promises reject with an `AbortError`. */
  readonly signal?: AbortSignal;
}

/** One update of an {@link ObjectStream}. */
export interface ObjectStreamUpdate<T> {
  /** The value so far, typed by its shape only; on the last update, the checked value when there is one. */
  readonly partial: DeepPartial<T> | undefined;
  /** True once, for the last update. */
  readonly done: boolean;
  /** On the last update: what `extract` gives for the whole text with the schema (the value coerced and validated, or the issues). */
  readonly result?: ExtractResult<T>;
}

/**
 * A streamed response as typed partial values: iterate it (once), or read it as a `ReadableStream`, or only
 * await `result`, which reads it to the end itself. Leaving the loop early, cancelling the stream or aborting
 * the signal cancels the source and frees the parser.
 */
export interface ObjectStream<T> extends AsyncIterable<ObjectStreamUpdate<T>> {
  /** What `extract` gives for the whole text: coerced and validated against the schema (any JSON value without one). */
  readonly result: Promise<ExtractResult<T>>;
  /** The whole text (or tool-call arguments) read. */
  readonly text: Promise<string>;
  /** The reasoning: what the provider sent beside the text, and a reasoning block the text began with. */
  readonly reasoning: Promise<string>;
  /** The same updates as a `ReadableStream` (for `pipeTo`, a Response body, a framework's stream helpers). */
  toReadableStream(): ReadableStream<ObjectStreamUpdate<T>>;
}

const FORMATS: readonly StreamFormat[] = [
  'openai',
  'anthropic',
  'gemini',
  'ollama',
  'ai-sdk',
  'langchain',
  'sse',
  'text',
];

/** A promise settled from outside, whose rejection is never reported as unhandled. */
function deferred<V>(): { promise: Promise<V>; resolve: (v: V) => void; reject: (e: unknown) => void } {
  let resolve!: (v: V) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Options of {@link providerTextStream}. */
export interface ProviderTextStreamOptions {
  /** How the source is written (see {@link ObjectStreamOptions.format}). */
  readonly format?: StreamFormat;
  /** Read a tool call's arguments instead of the text: `true` for the first call, or the tool's name. */
  readonly tool?: boolean | string;
  /** Cancels the source at once; the iteration rejects with an `AbortError`. */
  readonly signal?: AbortSignal;
  /** Receives what the provider sends as reasoning beside the text (never part of what is yielded). */
  readonly onReasoning?: (delta: string) => void;
}

/**
 * The text (or tool-call argument) deltas of any provider's streamed response, read as {@link objectStream}
 * reads it: an event stream told apart by its first event (OpenAI's chat completions or Responses API,
 * Anthropic, Gemini), Ollama's newline-delimited JSON, a provider's client's stream, or plain text.
 */
export async function* providerTextStream(
  source: ProviderStream,
  options?: ProviderTextStreamOptions,
): AsyncGenerator<string> {
  const { signal, tool, onReasoning } = options ?? {};
  let format = options?.format;
  if (format !== undefined && !FORMATS.includes(format))
    throw new RangeError(`format must be one of ${FORMATS.join(', ')}, got ${String(format)}`);
  if (format === 'text' && tool !== undefined) throw new TypeError(TOOL_NEEDS_EVENTS);
  const chunks = chunksOf(source, signal);
  const first = await chunks.next();
  if (first.done === true) return;
  const all = prepend(first.value, chunks);
  try {
    const objects = isEventObject(first.value);
    if (format === undefined && !objects) {
      const type =
        typeof Response !== 'undefined' && source instanceof Response ? (source.headers.get('content-type') ?? '') : '';
      if (/^\s*application\/json/i.test(type)) {
        yield await wholeBody(all, tool);
        return;
      }
      format = /^\s*text\/event-stream/i.test(type)
        ? 'sse'
        : /^\s*application\/(x-)?ndjson/i.test(type)
          ? 'ollama'
          : 'text';
    }
    if (format === 'text') {
      if (objects) throw new TypeError('format text reads bytes or text, and the source gave an object');
      if (tool !== undefined) throw new TypeError(TOOL_NEEDS_EVENTS);
      const decoder = new ChunkDecoder();
      for await (const chunk of all) {
        const text = decoder.text(chunk as string | Uint8Array);
        if (text !== '') yield text;
      }
      const tail = decoder.end();
      if (tail !== '') yield tail;
      return;
    }
    const read = await sourceEvents(all, first.value, format, signal);
    if (read === undefined) return;
    const { provider, events } = read;
    if (provider === 'openai') yield* openAIEventDeltas(events, { toolArguments: tool ?? false, onReasoning });
    else if (provider === 'anthropic') yield* anthropicEventDeltas(events, { toolInput: tool ?? false, onReasoning });
    else if (provider === 'gemini') yield* geminiEventDeltas(events, { functionCall: tool ?? false, onReasoning });
    else if (provider === 'ai-sdk') yield* aiSdkEventDeltas(events, { toolInput: tool ?? false, onReasoning });
    else if (provider === 'langchain') yield* langChainEventDeltas(events, { toolCall: tool ?? false, onReasoning });
    else yield* ollamaEventDeltas(events, { toolCall: tool ?? false, onReasoning });
  } finally {
    // Left early or failed: the source is cancelled (a no-op once it has ended).
    await all.return(undefined);
  }
}

/**
 * A JSON body read whole: a provider's whole response (a request without `stream`, or an error body) gives its
 * text, or its tool call's arguments, or throws its error; any other JSON is the text itself.
 */
async function wholeBody(chunks: AsyncIterable<unknown>, tool: boolean | string | undefined): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let body = '';
  for await (const chunk of chunks)
    body += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
  body += decoder.decode();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  // Not a provider's response: the JSON is the text.
  if (providerOfResponse(value) === undefined) return body;
  return tool === undefined || tool === false
    ? providerText(value)
    : providerToolArguments(value, tool === true ? undefined : { name: tool });
}

const TOOL_NEEDS_EVENTS = 'tool is for an event stream (a provider, ai-sdk, langchain or sse format)';

class ObjectStreamReader<T> implements ObjectStream<T> {
  readonly #source: ProviderStream;
  readonly #options: ObjectStreamOptions<T>;
  #started = false;
  readonly #result = deferred<ExtractResult<T>>();
  readonly #text = deferred<string>();
  readonly #reasoning = deferred<string>();

  constructor(source: ProviderStream, options: ObjectStreamOptions<T>) {
    this.#source = source;
    this.#options = options;
    // Checked now, so that a bad option throws at the call, not at the first read.
    if (options.format !== undefined && !FORMATS.includes(options.format))
      throw new RangeError(`objectStream: format must be one of ${FORMATS.join(', ')}, got ${String(options.format)}`);
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
      throw new TypeError('objectStream: signal must be an AbortSignal');
    new PartialJsonParser<T>(options).free();
  }

  #take(where: string): AsyncGenerator<ObjectStreamUpdate<T>> {
    if (this.#started)
      throw new TypeError(`objectStream: ${where}: the stream is already being read; an ObjectStream is read once`);
    this.#started = true;
    return this.#run();
  }

  [Symbol.asyncIterator](): AsyncGenerator<ObjectStreamUpdate<T>> {
    return this.#take('iterating');
  }

  toReadableStream(): ReadableStream<ObjectStreamUpdate<T>> {
    const updates = this.#take('toReadableStream');
    return new ReadableStream<ObjectStreamUpdate<T>>({
      async pull(controller) {
        const step = await updates.next();
        if (step.done === true) controller.close();
        else controller.enqueue(step.value);
      },
      async cancel() {
        await updates.return(undefined);
      },
    });
  }

  /** Reads the stream to its end unless something else does. */
  #drain(): void {
    if (this.#started) return;
    const updates = this.#take('result');
    void (async () => {
      for await (const update of updates) void update;
    })().catch(() => {});
  }

  get result(): Promise<ExtractResult<T>> {
    this.#drain();
    return this.#result.promise;
  }

  get text(): Promise<string> {
    this.#drain();
    return this.#text.promise;
  }

  get reasoning(): Promise<string> {
    this.#drain();
    return this.#reasoning.promise;
  }

  /** The text (or argument) deltas of the source, reasoning deltas going to `thoughts`. */
  #deltas(thoughts: string[]): AsyncGenerator<string> {
    const { signal, tool, format } = this.#options;
    return providerTextStream(this.#source, {
      format,
      tool,
      signal,
      onReasoning: (d) => void thoughts.push(d),
    });
  }

  async *#run(): AsyncGenerator<ObjectStreamUpdate<T>> {
    // Without a schema every JSON value is acceptable: `true` is the schema that says so.
    const parser = new PartialJsonParser<T>({
      ...this.#options,
      schema: this.#options.schema ?? (true as SchemaInput<T>),
    });
    const parts: string[] = [];
    const thoughts: string[] = [];
    const settle = (error: unknown): void => {
      this.#text.reject(error);
      this.#reasoning.reject(error);
      this.#result.reject(error);
    };
    let ended = false;
    try {
      for await (const delta of this.#deltas(thoughts)) {
        parts.push(delta);
        yield { partial: parser.push(delta).value, done: false };
      }
      const text = parts.join('');
      const result = parser.finishExtract();
      const inText = cleanDetailed(text, { thinkTags: COMMON_THINK_TAGS }).reasoning;
      ended = true;
      this.#text.resolve(text);
      this.#reasoning.resolve([thoughts.join(''), inText ?? ''].filter((r) => r !== '').join('\n\n'));
      this.#result.resolve(result);
      yield { partial: result.value as DeepPartial<T> | undefined, done: true, result };
    } catch (error) {
      ended = true;
      settle(error);
      throw error;
    } finally {
      parser.free();
      // Left before the end (a break, a cancel): the promises say so rather than never settle.
      if (!ended) settle(new TypeError('objectStream: the stream was left before its end'));
    }
  }
}

/**
 * Reads a model's streamed response (a `fetch` Response, a byte stream, or an iterable of text or bytes)
 * as typed partial values and, at the end, the `extract` result: OpenAI-compatible and Anthropic event
 * streams are told apart by their first event, reasoning deltas are kept apart, JSON inside reasoning is never
 * shown as the value.
 *
 * @example
 * ```ts
 * const stream = objectStream(await fetch(url, init), { schema: Turn });
 * for await (const { partial } of stream) render(partial);     // DeepPartial<Turn>
 * const r = await stream.result;                               // coerced and validated
 * ```
 */
export function objectStream<S extends StandardSchema>(
  source: ProviderStream,
  options: ObjectStreamOptions<InferOutput<S>> & { readonly schema: S },
): ObjectStream<InferOutput<S>>;
export function objectStream<T = unknown>(
  source: ProviderStream,
  options?: ObjectStreamOptions<T> & { readonly schema?: JsonSchema | CompiledSchema<T> },
): ObjectStream<T>;
export function objectStream<T = unknown>(source: ProviderStream, options?: ObjectStreamOptions<T>): ObjectStream<T>;
export function objectStream<T>(source: ProviderStream, options?: ObjectStreamOptions<T>): ObjectStream<T> {
  return new ObjectStreamReader<T>(source, options ?? {});
}
