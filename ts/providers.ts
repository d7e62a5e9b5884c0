/**
 * Provider responses: the text, or the tool-call arguments, out of OpenAI-compatible chat
 * completions and Anthropic messages, whole or as server-sent-event streams of deltas; and two small
 * `query` functions for {@link queryWithCorrection} that speak those protocols over `fetch`. Nothing here
 * needs Node: it runs wherever `fetch` and `TextDecoder` do.
 *
 * One file, although long: both providers' response shapes, their stream events and their error bodies are
 * read side by side, and the two protocols share the SSE reader and the error type.
 */

import { abortError } from './errors.js';

/**
 * Which provider a {@link ProviderError} came from (`ai-sdk` and `langchain`: the parts of those libraries'
 * streams).
 */
export type Provider = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'ai-sdk' | 'langchain';

/** A provider call failed: an HTTP error, an error event in a stream, or a response without the asked-for part. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly provider: Provider;
  /** HTTP status (or the status an error event stands for: 429 rate limit, 529 overloaded, 500 server error). */
  readonly status: number | undefined;
  /** The server's `Retry-After`, in ms. */
  readonly retryAfterMs: number | undefined;
  /** The provider's error type or code (`rate_limit_error`, `invalid_api_key`, …), or ours (`no_text`, `no_tool_call`, `refusal`, `bad_response`). */
  readonly code: string | undefined;
  /** The response body or event payload, when there was one (at most 4,000 characters). */
  readonly body: string | undefined;

  constructor(
    message: string,
    fields: {
      provider: Provider;
      status?: number;
      retryAfterMs?: number;
      code?: string;
      body?: string;
      cause?: unknown;
    },
  ) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.provider = fields.provider;
    this.status = fields.status;
    this.retryAfterMs = fields.retryAfterMs;
    this.code = fields.code;
    this.body = fields.body === undefined ? undefined : fields.body.slice(0, 4_000);
  }
}

/** One server-sent event. */
export interface ServerSentEvent {
  /** The `event:` field, `message` when there was none. */
  readonly event: string;
  /** The `data:` lines joined by `\n`. */
  readonly data: string;
  /** The last `id:` seen. */
  readonly id: string;
}

/** Bytes or text, as `fetch` bodies, Node streams and tests give them. */
export type ByteSource =
  | Response
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>;

/**
 * A provider's stream: its bytes or text (see {@link ByteSource}), or the event objects its SDK yields (the
 * streams of `openai` and `@anthropic-ai/sdk`, `@google/genai`'s `generateContentStream`), read as the
 * parsed events they are.
 */
export type ProviderStream = ByteSource | AsyncIterable<object> | Iterable<object>;

/**
 * The chunks of a byte source (or the objects of an SDK's stream). Left early (a break, a throw, an error
 * event), a body is cancelled, which ends the request; an aborted `signal` cancels it too, at once, even while
 * a read is waiting.
 */
export async function* chunksOf(source: ProviderStream, signal?: AbortSignal): AsyncGenerator<unknown> {
  if (signal?.aborted) throw abortError(signal, 'reading the stream');
  if (typeof Response !== 'undefined' && source instanceof Response) {
    if (source.body === null) return;
    source = source.body;
  }
  if (typeof ReadableStream !== 'undefined' && source instanceof ReadableStream) {
    // A reader works in every browser; async iteration of a ReadableStream does not yet.
    const reader = source.getReader();
    let finished = false;
    const onAbort = (): void => void reader.cancel(signal!.reason).catch(() => {});
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (signal?.aborted) throw abortError(signal, 'reading the stream');
        if (done) {
          finished = true;
          return;
        }
        yield value;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // Left early: cancel the body, which ends the request, rather than only release it, which leaves the
      // server streaming into a buffer nobody reads.
      if (!finished) await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }
  if (source !== null && typeof source === 'object' && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    for await (const chunk of source as AsyncIterable<unknown>) {
      if (signal?.aborted) throw abortError(signal, 'reading the stream');
      yield chunk;
    }
    return;
  }
  throw new TypeError('expected a Response, a ReadableStream or an iterable of Uint8Array or string chunks');
}

/**
 * The events of a `text/event-stream` body, parsed as the HTML standard says: `\r\n`, `\n` or `\r` line
 * ends, `:` comments, one optional space after the colon, multi-line `data`, a leading byte-order mark
 * dropped, events without data skipped. Linear in the input, whatever the chunking.
 */
export async function* serverSentEvents(
  source: ByteSource,
  options?: { readonly signal?: AbortSignal },
): AsyncGenerator<ServerSentEvent> {
  // The byte order mark is dropped below, once: a decoder that drops it too would drop a second one, and
  // Node 24 to 26's dropped one after a character split between the first chunks.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let pending = ''; // an unfinished line
  let afterCR = false; // the last chunk ended with `\r`: a `\n` first in the next belongs to it
  let first = true;
  let event = '';
  let data: string[] = [];
  let id = '';
  const line = (text: string): ServerSentEvent | undefined => {
    if (text === '') {
      const out =
        data.length === 0 ? undefined : { event: event === '' ? 'message' : event, data: data.join('\n'), id };
      event = '';
      data = [];
      return out;
    }
    if (text.charCodeAt(0) === 0x3a) return undefined;
    const colon = text.indexOf(':');
    const name = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (name === 'data') data.push(value);
    else if (name === 'event') event = value;
    else if (name === 'id' && !value.includes('\0')) id = value;
    return undefined;
  };
  const lines = function* (text: string, end: boolean): Generator<ServerSentEvent> {
    // An empty chunk changes nothing: in particular a `\r` before it may still be followed by its `\n`.
    if (text === '' && !end) return;
    if (first && text !== '') {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (afterCR && text.charCodeAt(0) === 0x0a) start = 1;
    afterCR = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      const whole = pending + text.slice(start, i);
      pending = '';
      const out = line(whole);
      if (out !== undefined) yield out;
      if (c === 0x0d) {
        if (i + 1 === text.length) afterCR = true;
        else if (text.charCodeAt(i + 1) === 0x0a) i++;
      }
      start = i + 1;
    }
    pending += text.slice(start);
    // At the end of the stream an unfinished event is dropped, as the standard says.
    if (end) pending = '';
  };
  for await (const chunk of chunksOf(source, options?.signal)) {
    yield* lines(typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true }), false);
  }
  yield* lines(decoder.decode(), true);
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** An event's JSON, a {@link ProviderError} when it is not JSON. */
function parsed(data: string, provider: Provider): unknown {
  try {
    return JSON.parse(data);
  } catch (cause) {
    throw new ProviderError(`${provider}: a stream event is not JSON: ${data.slice(0, 200)}`, {
      provider,
      code: 'bad_response',
      body: data,
      cause,
    });
  }
}

/** An event as an object, a {@link ProviderError} when it is not one. */
function eventObject(event: unknown, provider: Provider): Json {
  const o = obj(event);
  if (o === undefined)
    throw new ProviderError(`${provider}: a stream event is not a JSON object`, {
      provider,
      code: 'bad_response',
      body: typeof event === 'string' ? event : JSON.stringify(event),
    });
  return o;
}

/**
 * The payloads of server-sent events, ending at OpenAI's `[DONE]`. A payload without a `type` under a named
 * event gets the event's name as its type, as Anthropic's events are read.
 */
async function* payloads(events: AsyncIterable<ServerSentEvent>, provider: Provider): AsyncGenerator<unknown> {
  for await (const ev of events) {
    if (ev.data === '[DONE]') return;
    const payload = parsed(ev.data, provider);
    const o = obj(payload);
    yield o !== undefined && o.type === undefined && ev.event !== 'message' ? { type: ev.event, ...o } : payload;
  }
}

/**
 * The values of a newline-delimited JSON body (Ollama's streams, `application/x-ndjson`), however its bytes are
 * split: blank lines skipped, `\r\n` taken, a line that is not JSON a {@link ProviderError}. Linear: a line
 * arriving in many chunks is joined once, at its end.
 */
async function* jsonLines(chunks: AsyncIterable<unknown>, provider: Provider): AsyncGenerator<unknown> {
  const decoder = new TextDecoder('utf-8');
  let pending: string[] = [];
  const line = (text: string): unknown => {
    const whole = (pending.join('') + text).trim();
    pending = [];
    return whole === '' ? undefined : parsed(whole, provider);
  };
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
      const value = line(text.slice(start, end));
      if (value !== undefined) yield value;
    }
    if (start < text.length) pending.push(text.slice(start));
  }
  const value = line(decoder.decode());
  if (value !== undefined) yield value;
}

/** Whether a chunk of a stream is an SDK's event object rather than bytes or text. */
export function isEventObject(chunk: unknown): chunk is object {
  return typeof chunk === 'object' && chunk !== null && !ArrayBuffer.isView(chunk) && !(chunk instanceof ArrayBuffer);
}

/** `first`, then the rest of `rest`; closing it closes `rest` (the first yield included). */
export async function* prepend<V>(first: V, rest: AsyncIterator<V>): AsyncGenerator<V> {
  try {
    yield first;
    for (let step = await rest.next(); step.done !== true; step = await rest.next()) yield step.value;
  } finally {
    await rest.return?.();
  }
}

/** The types of Anthropic's stream events. */
const ANTHROPIC_EVENTS: ReadonlySet<unknown> = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'ping',
  'error',
]);

/** What each provider's events are, for the error of a stream that holds none of them. */
const EVENTS_OF: Record<Provider, string> = {
  openai: 'chat-completion chunks or Responses API events',
  anthropic: 'Anthropic message events',
  gemini: 'Gemini GenerateContentResponse chunks',
  ollama: 'Ollama chat or generate chunks',
  'ai-sdk': 'AI SDK stream parts',
  langchain: 'LangChain AIMessageChunks',
};

/**
 * A stream whose events were none of the provider's (another library's stream parts, another provider's
 * events): an error rather than an empty answer.
 */
function foreignEvents(provider: Provider, first: unknown): ProviderError {
  const shown = JSON.stringify(first) ?? String(first);
  return new ProviderError(
    `${provider}: the stream's events are not ${EVENTS_OF[provider]} (the first: ${shown.slice(0, 200)})`,
    { provider, code: 'bad_response', body: shown },
  );
}

/**
 * What makes an event (or a chunk, or a part) one of each source's own, in the order {@link providerOfEvent}
 * asks: a chat completion's chunks carry `choices` and the Responses API's events are all `response.…`;
 * Anthropic's events and the AI SDK's parts name their type; a LangChain message chunk is of type `ai`;
 * Gemini's carry `candidates` (or `promptFeedback`, or only `usageMetadata`); Ollama's say whether they are
 * `done`, beside a `message` (chat) or a `response` (generate).
 */
const OWN: Readonly<Record<Provider, (event: Json) => boolean>> = {
  openai: (e) => Array.isArray(e.choices) || (typeof e.type === 'string' && e.type.startsWith('response.')),
  anthropic: (e) => ANTHROPIC_EVENTS.has(e.type),
  'ai-sdk': (e) => AI_SDK_PARTS.has(e.type),
  langchain: (e) => e.type === 'ai' && e.content !== undefined,
  gemini: (e) => e.candidates !== undefined || e.promptFeedback !== undefined || e.usageMetadata !== undefined,
  ollama: (e) => typeof e.done === 'boolean' && (obj(e.message) !== undefined || typeof e.response === 'string'),
};

/** The source whose event `event` is (see {@link OWN}), or `undefined` for none. */
function providerOfEvent(event: unknown): Provider | undefined {
  const e = obj(event);
  if (e === undefined) return undefined;
  return (Object.keys(OWN) as Provider[]).find((provider) => OWN[provider](e));
}

/**
 * The events of a provider's stream as objects, as they come; at its end, when there were events and none was
 * the provider's own ({@link OWN}), the {@link foreignEvents} error.
 */
async function* ownEvents(events: AsyncIterable<unknown>, provider: Provider): AsyncGenerator<Json> {
  const own = OWN[provider];
  let first: { event: unknown } | undefined;
  let known = false;
  for await (const event of events) {
    first ??= { event };
    const o = eventObject(event, provider);
    known ||= own(o);
    yield o;
  }
  if (first !== undefined && !known) throw foreignEvents(provider, first.event);
}

/** The event payloads of a provider's stream: parsed from its bytes, or an SDK's event objects as they come. */
async function* streamPayloads(
  source: ProviderStream,
  provider: Provider,
  signal?: AbortSignal,
): AsyncGenerator<unknown> {
  const chunks = chunksOf(source, signal);
  const first = await chunks.next();
  if (first.done === true) return;
  const all = prepend(first.value, chunks);
  try {
    const read = await sourceEvents(all, first.value, provider, signal);
    if (read !== undefined) yield* read.events;
  } finally {
    // Left early or failed: the source is cancelled (a no-op once it has ended).
    await all.return(undefined);
  }
}

/** The source of an event stream, from its first server-sent event (its name stands for a missing `type`). */
function providerOfSse(first: ServerSentEvent): Provider {
  if (first.event.startsWith('response.')) return 'openai';
  if (first.event !== 'message') return 'anthropic';
  try {
    // Anything else: the OpenAI reader says the events are not its own.
    return providerOfEvent(JSON.parse(first.data)) ?? 'openai';
  } catch {
    // `[DONE]` or a broken event: the OpenAI reader reports it.
    return 'openai';
  }
}

/**
 * The events of a stream whose first chunk (`first`) has come, `all` being it and the rest, and whose they
 * are: a client's event objects, Ollama's JSON lines, or server-sent events. `format` names the source, or
 * (`'sse'`, or none) its first event tells; `undefined` for server-sent events with no event in them.
 *
 * @throws {TypeError} for objects that are no source's events.
 */
export async function sourceEvents(
  all: AsyncGenerator<unknown>,
  first: unknown,
  format: Provider | 'sse' | undefined,
  signal: AbortSignal | undefined,
): Promise<{ readonly provider: Provider; readonly events: AsyncIterable<unknown> } | undefined> {
  if (isEventObject(first)) {
    const provider = format === undefined || format === 'sse' ? providerOfEvent(first) : format;
    if (provider === undefined) {
      const shown = (JSON.stringify(first) ?? String(first)).slice(0, 200);
      throw new TypeError(
        `the stream's objects are not OpenAI's, Anthropic's, Gemini's, Ollama's, the AI SDK's or LangChain's events (the first: ${shown}); pass another library's stream as its text deltas`,
      );
    }
    return { provider, events: all };
  }
  if (format === 'ollama') return { provider: format, events: jsonLines(all, format) };
  const sse = serverSentEvents(all as AsyncIterable<string | Uint8Array>, { signal });
  const head = await sse.next();
  if (head.done === true) return undefined;
  const provider = format === undefined || format === 'sse' ? providerOfSse(head.value) : format;
  return { provider, events: payloads(prepend(head.value, sse), provider) };
}

/** The status an error type stands for, so that rate limits and overloads are retried like their HTTP forms. */
function statusOfErrorType(type: unknown): number | undefined {
  switch (type) {
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
    case 'RESOURCE_EXHAUSTED':
      return 429;
    case 'overloaded_error':
      return 529;
    case 'api_error':
    case 'server_error':
    case 'INTERNAL':
      return 500;
    case 'UNAVAILABLE':
      return 503;
    default:
      return undefined;
  }
}

/**
 * An error object's type or code: OpenAI's `type` or `code`, Anthropic's `type`, Google's `status`
 * (`RESOURCE_EXHAUSTED`, whose `code` is the HTTP status).
 */
function errorType(e: Json | undefined): string | undefined {
  if (e === undefined) return undefined;
  return typeof e.type === 'string'
    ? e.type
    : typeof e.code === 'string'
      ? e.code
      : typeof e.status === 'string'
        ? e.status
        : undefined;
}

function errorEvent(provider: Provider, payload: Json, body: string): ProviderError {
  const e = obj(payload.error) ?? {};
  const type = errorType(e);
  const message = typeof e.message === 'string' ? e.message : 'the stream reported an error';
  const status = typeof e.status === 'number' ? e.status : typeof e.code === 'number' ? e.code : undefined;
  return new ProviderError(`${provider}: ${message}`, {
    provider,
    status: statusOfErrorType(type) ?? status,
    code: type,
    body,
  });
}

/** A chat completion or a Responses API response, its error thrown. */
function openAIObject(completion: unknown, fn: string): Json {
  const c = obj(completion);
  if (c === undefined) throw new TypeError(`${fn}: expected a chat completion or a response object`);
  if (obj(c.error) !== undefined) throw errorEvent('openai', c, JSON.stringify(c));
  return c;
}

/**
 * The output items of a Responses API response (`/responses`: `object: 'response'` and an `output` array),
 * or `undefined` for a chat completion.
 */
function responseOutput(c: Json): Json[] | undefined {
  return Array.isArray(c.output) && c.choices === undefined
    ? c.output.map(obj).filter((item): item is Json => item !== undefined)
    : undefined;
}

function openAIMessage(c: Json, choice: number): Json {
  const choices = c.choices;
  const message = Array.isArray(choices) ? obj(obj(choices[choice])?.message) : undefined;
  if (message === undefined) {
    throw new ProviderError(`openai: the completion has no choices[${choice}].message`, {
      provider: 'openai',
      code: 'bad_response',
      body: JSON.stringify(c),
    });
  }
  return message;
}

function refusalError(provider: Provider, refusal: string): ProviderError {
  return new ProviderError(`${provider}: the model refused: ${refusal}`, { provider, code: 'refusal' });
}

const NO_TEXT = 'openai: the message has no text content (read tool calls with openAIToolArguments)';

/**
 * The text of a chat completion, `choices[choice].message.content` (a string, or content parts whose `text`s
 * are joined), or of a Responses API response (the `output_text` parts of its messages, joined, as the SDKs'
 * `output_text` joins them; `choice` does not apply).
 *
 * @throws {ProviderError} `refusal` when the model refused, `no_text` when the message holds only tool calls.
 */
export function openAIText(completion: unknown, options?: { readonly choice?: number }): string {
  const c = openAIObject(completion, 'openAIText');
  const output = responseOutput(c);
  if (output !== undefined) {
    const parts = output.filter((item) => item.type === 'message').flatMap((m) => asArray(m.content).map(obj));
    const texts = parts.filter((p) => p?.type === 'output_text' && typeof p.text === 'string');
    if (texts.length > 0) return texts.map((p) => p!.text as string).join('');
    const refusal = parts.find((p) => p?.type === 'refusal' && typeof p.refusal === 'string');
    if (refusal !== undefined) throw refusalError('openai', refusal!.refusal as string);
    throw new ProviderError(NO_TEXT, { provider: 'openai', code: 'no_text' });
  }
  const message = openAIMessage(c, options?.choice ?? 0);
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return partsText(content);
  if (typeof message.refusal === 'string') throw refusalError('openai', message.refusal);
  throw new ProviderError(NO_TEXT, { provider: 'openai', code: 'no_text' });
}

/** The `text`s of the `text` parts among `parts` (content parts), joined; anything else is left out. */
function partsText(parts: unknown): string {
  return asArray(parts)
    .map((p) => (obj(p)?.type === 'text' && typeof obj(p)?.text === 'string' ? (obj(p)!.text as string) : ''))
    .join('');
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * The arguments text of a tool call (the first, or the first named `name`): in a chat completion, its
 * `tool_calls` or the legacy `function_call`; in a Responses API response, its `function_call` items. The text
 * is what the model wrote: read it with `parseAndRepair` or `extract`.
 */
export function openAIToolArguments(
  completion: unknown,
  options?: { readonly name?: string; readonly choice?: number },
): string {
  const c = openAIObject(completion, 'openAIToolArguments');
  const output = responseOutput(c);
  let fns: (Json | undefined)[];
  if (output !== undefined) fns = output.filter((item) => item.type === 'function_call');
  else {
    const message = openAIMessage(c, options?.choice ?? 0);
    fns = [...asArray(message.tool_calls).map((call) => obj(obj(call)?.function)), obj(message.function_call)];
  }
  for (const fn of fns) {
    if (fn === undefined || typeof fn.arguments !== 'string') continue;
    if (options?.name === undefined || fn.name === options.name) return fn.arguments;
  }
  const which = options?.name === undefined ? 'a tool call' : `a tool call named ${JSON.stringify(options.name)}`;
  throw new ProviderError(`openai: the message has no ${which}`, { provider: 'openai', code: 'no_tool_call' });
}

/** What an OpenAI-compatible stream yields. */
export interface OpenAIStreamOptions {
  /** Yield tool-call argument deltas instead of text: `true` for the first tool call, or a function name. */
  readonly toolArguments?: boolean | string;
  readonly choice?: number;
  /**
   * Receives the reasoning deltas servers send beside the text (`reasoning_content`: DeepSeek, vLLM, llama.cpp;
   * `reasoning`: OpenRouter, Ollama), which are never part of what the stream yields.
   */
  readonly onReasoning?: (delta: string) => void;
  /** Cancels the body and ends the iteration with an `AbortError`. */
  readonly signal?: AbortSignal;
}

/** What an Anthropic messages stream yields. */
export interface AnthropicStreamOptions {
  /** Yield the `input_json_delta`s of a `tool_use` block instead of text: `true` for the first, or a tool name. */
  readonly toolInput?: boolean | string;
  /** Receives the `thinking_delta`s of extended thinking, which are never part of what the stream yields. */
  readonly onReasoning?: (delta: string) => void;
  /** Cancels the body and ends the iteration with an `AbortError`. */
  readonly signal?: AbortSignal;
}

/**
 * The text deltas of an OpenAI stream: a chat-completions stream (`stream: true`, OpenAI-compatible servers
 * too), ending at `[DONE]`, or a Responses API stream (`/responses`), ending at `response.completed` or
 * `response.incomplete`. An error event (or `response.failed`) throws a {@link ProviderError} (status 429/500
 * for rate limits and server errors); so does a refusal, code `refusal`, when the model wrote no text.
 */
export function openAITextStream(source: ProviderStream, options?: OpenAIStreamOptions): AsyncGenerator<string> {
  return openAIEventDeltas(streamPayloads(source, 'openai', options?.signal), options);
}

/** The status of an OpenAI stream as its events are read. */
interface OpenAIState {
  /** Whether anything was yielded. */
  yielded: boolean;
  /** What the model wrote as a refusal. */
  refusal: string;
  /** The tool call being followed: its index in a chat completion's `tool_calls` (−1 for `function_call`), or its output index in a response. */
  call: number | undefined;
  /** Whether the followed call of a response has had an arguments delta. */
  callDeltas: boolean;
  /** Whether a response has had a text delta. */
  textDeltas: boolean;
}

/** {@link openAITextStream} over events already parsed. */
export function openAIDeltas(
  events: AsyncIterable<ServerSentEvent>,
  options?: OpenAIStreamOptions,
): AsyncGenerator<string> {
  return openAIEventDeltas(payloads(events, 'openai'), options);
}

/** {@link openAITextStream} over the events' payloads. */
export async function* openAIEventDeltas(
  events: AsyncIterable<unknown>,
  options?: OpenAIStreamOptions,
): AsyncGenerator<string> {
  const state: OpenAIState = {
    yielded: false,
    refusal: '',
    call: undefined,
    callDeltas: false,
    textDeltas: false,
  };
  for await (const chunk of ownEvents(events, 'openai')) {
    if (obj(chunk.error) !== undefined) throw errorEvent('openai', chunk, JSON.stringify(chunk));
    // A response's events name their type; a chat completion's chunks carry `choices`.
    const step =
      typeof chunk.type === 'string' && chunk.choices === undefined
        ? responseStep(chunk, state, options)
        : chatStep(chunk, state, options);
    if (step === null) break;
    for (const piece of step) {
      state.yielded = true;
      yield piece;
    }
  }
  if (!state.yielded && state.refusal !== '') throw refusalError('openai', state.refusal);
}

/** What one chat-completion chunk adds to an OpenAI stream. */
function chatStep(chunk: Json, state: OpenAIState, options: OpenAIStreamOptions | undefined): string[] {
  const choice = options?.choice ?? 0;
  const want = options?.toolArguments ?? false;
  const entry = asArray(chunk.choices)
    .map(obj)
    .find((c) => c !== undefined && (c.index ?? 0) === choice);
  const delta = obj(entry?.delta);
  if (delta === undefined) return [];
  // Content parts (Mistral's reasoning models send them): their text, and their thinking as reasoning.
  const parts = Array.isArray(delta.content) ? delta.content.map(obj) : [];
  if (options?.onReasoning !== undefined) {
    const thought = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning;
    if (typeof thought === 'string' && thought !== '') options.onReasoning(thought);
    for (const part of parts) {
      if (part?.type !== 'thinking') continue;
      const text = typeof part.thinking === 'string' ? part.thinking : partsText(part.thinking);
      if (text !== '') options.onReasoning(text);
    }
  }
  if (want === false) {
    if (typeof delta.refusal === 'string') state.refusal += delta.refusal;
    const text = typeof delta.content === 'string' ? delta.content : partsText(parts);
    return text === '' ? [] : [text];
  }
  const out: string[] = [];
  for (const c of asArray(delta.tool_calls).map(obj)) {
    if (c === undefined) continue;
    const index = typeof c.index === 'number' ? c.index : 0;
    const fn = obj(c.function);
    if (state.call === undefined && (want === true || fn?.name === want)) state.call = index;
    if (index === state.call && typeof fn?.arguments === 'string' && fn.arguments !== '') out.push(fn.arguments);
  }
  const legacy = obj(delta.function_call);
  if (legacy !== undefined) {
    if (state.call === undefined && (want === true || legacy.name === want)) state.call = -1;
    if (state.call === -1 && typeof legacy.arguments === 'string' && legacy.arguments !== '')
      out.push(legacy.arguments);
  }
  return out;
}

/**
 * What one Responses API event adds to an OpenAI stream; `null` at its end. A server that sends an item's
 * text or arguments only whole (in `response.output_text.done` or `response.output_item.done`, no deltas) is
 * read too.
 */
function responseStep(event: Json, state: OpenAIState, options: OpenAIStreamOptions | undefined): string[] | null {
  const want = options?.toolArguments ?? false;
  const delta = typeof event.delta === 'string' ? event.delta : '';
  switch (event.type) {
    case 'response.completed':
    case 'response.incomplete':
      return null;
    case 'response.failed':
      throw errorEvent('openai', obj(event.response) ?? {}, JSON.stringify(event));
    case 'error':
      // Documented with `code` and `message` on the event; sent with them in an `error` object (read above).
      throw errorEvent('openai', { error: { code: event.code, message: event.message } }, JSON.stringify(event));
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_text.delta':
      if (delta !== '') options?.onReasoning?.(delta);
      return [];
  }
  if (want === false) {
    if (event.type === 'response.refusal.delta') state.refusal += delta;
    if (event.type === 'response.output_text.delta') {
      state.textDeltas = true;
      return delta === '' ? [] : [delta];
    }
    // Text sent whole, with no deltas before.
    if (event.type === 'response.output_text.done' && !state.textDeltas && typeof event.text === 'string')
      return event.text === '' ? [] : [event.text];
    return [];
  }
  const index = typeof event.output_index === 'number' ? event.output_index : 0;
  if (event.type === 'response.function_call_arguments.delta') {
    if (index !== state.call || delta === '') return [];
    state.callDeltas = true;
    return [delta];
  }
  const item = obj(event.item);
  if (item?.type !== 'function_call') return [];
  if (event.type === 'response.output_item.added' && state.call === undefined && (want === true || item.name === want))
    state.call = index;
  // Arguments sent whole: in the item when it is added or done, with no deltas between.
  const whole = typeof item.arguments === 'string' && item.arguments !== '' && !state.callDeltas;
  if (event.type === 'response.output_item.done' && state.call === undefined && (want === true || item.name === want))
    state.call = index;
  if (index !== state.call || !whole) return [];
  state.callDeltas = true;
  return [item.arguments as string];
}

function anthropicBlocks(message: unknown): Json[] {
  const m = obj(message);
  if (m === undefined) throw new TypeError('anthropicText: expected a message object');
  if (m.type === 'error') throw errorEvent('anthropic', m, JSON.stringify(m));
  if (!Array.isArray(m.content))
    throw new ProviderError('anthropic: the message has no content array', {
      provider: 'anthropic',
      code: 'bad_response',
      body: JSON.stringify(m),
    });
  return m.content.map(obj).filter((b): b is Json => b !== undefined);
}

/** The text of an Anthropic message: its `text` blocks joined (thinking blocks left out). */
export function anthropicText(message: unknown): string {
  const blocks = anthropicBlocks(message).filter((b) => b.type === 'text' && typeof b.text === 'string');
  if (blocks.length === 0)
    throw new ProviderError('anthropic: the message has no text block (read tool calls with anthropicToolInput)', {
      provider: 'anthropic',
      code: 'no_text',
    });
  return blocks.map((b) => b.text as string).join('');
}

/** The input of a `tool_use` block (the first, or the first named `name`), as JSON text. */
export function anthropicToolInput(message: unknown, options?: { readonly name?: string }): string {
  for (const b of anthropicBlocks(message)) {
    if (b.type === 'tool_use' && (options?.name === undefined || b.name === options.name))
      return JSON.stringify(b.input ?? {});
  }
  const which =
    options?.name === undefined ? 'a tool_use block' : `a tool_use block named ${JSON.stringify(options.name)}`;
  throw new ProviderError(`anthropic: the message has no ${which}`, { provider: 'anthropic', code: 'no_tool_call' });
}

/**
 * The text deltas of an Anthropic messages stream (`text_delta`), or with `toolInput` the `input_json_delta`s
 * of the first `tool_use` block (or the first named so). Ends at `message_stop`; an `error` event throws a
 * {@link ProviderError} (status 529 for `overloaded_error`, 429 for `rate_limit_error`).
 */
export function anthropicTextStream(source: ProviderStream, options?: AnthropicStreamOptions): AsyncGenerator<string> {
  return anthropicEventDeltas(streamPayloads(source, 'anthropic', options?.signal), options);
}

/** {@link anthropicTextStream} over events already parsed. */
export function anthropicDeltas(
  events: AsyncIterable<ServerSentEvent>,
  options?: AnthropicStreamOptions,
): AsyncGenerator<string> {
  return anthropicEventDeltas(payloads(events, 'anthropic'), options);
}

/** {@link anthropicTextStream} over the events' payloads. */
export async function* anthropicEventDeltas(
  events: AsyncIterable<unknown>,
  options?: AnthropicStreamOptions,
): AsyncGenerator<string> {
  const want = options?.toolInput ?? false;
  let block: number | undefined; // the tool_use block being followed
  let yielded = false;
  for await (const payload of ownEvents(events, 'anthropic')) {
    const type = payload.type;
    if (type === 'error') throw errorEvent('anthropic', payload, JSON.stringify(payload));
    if (type === 'message_stop') return;
    // Claude's safety refusal ends the message with `stop_reason: 'refusal'`.
    if (type === 'message_delta' && obj(payload.delta)?.stop_reason === 'refusal' && !yielded && want === false)
      throw refusalError('anthropic', 'stop_reason refusal');
    if (type === 'content_block_start' && want !== false && block === undefined) {
      const b = obj(payload.content_block);
      if (b?.type === 'tool_use' && (want === true || b.name === want))
        block = typeof payload.index === 'number' ? payload.index : 0;
      continue;
    }
    if (type !== 'content_block_delta') continue;
    const delta = obj(payload.delta);
    if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string' && delta.thinking !== '')
      options?.onReasoning?.(delta.thinking);
    if (want === false) {
      if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
        yielded = true;
        yield delta.text;
      }
    } else if (
      payload.index === block &&
      delta?.type === 'input_json_delta' &&
      typeof delta.partial_json === 'string' &&
      delta.partial_json !== ''
    ) {
      yield delta.partial_json;
    }
  }
}

/** The finish reasons of a Gemini candidate that a safety or policy filter stopped. */
const GEMINI_BLOCKED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
]);

/** Why Gemini gave no answer: the prompt's block reason, or a candidate's finish reason from a filter. */
function geminiBlock(response: Json, candidate: Json | undefined): string | undefined {
  const prompt = obj(response.promptFeedback)?.blockReason;
  if (typeof prompt === 'string') return `the prompt was blocked (${prompt})`;
  const finish = candidate?.finishReason;
  return typeof finish === 'string' && GEMINI_BLOCKED.has(finish) ? `the answer was stopped (${finish})` : undefined;
}

/** The parts of a Gemini response's candidate `index` (`content.parts`). */
function geminiParts(candidate: Json | undefined): Json[] {
  return asArray(obj(candidate?.content)?.parts)
    .map(obj)
    .filter((part): part is Json => part !== undefined);
}

/** Candidate `index` of a Gemini response, its error thrown. */
function geminiCandidate(response: unknown, fn: string, index: number): [Json, Json | undefined] {
  const r = obj(response);
  if (r === undefined) throw new TypeError(`${fn}: expected a GenerateContentResponse object`);
  if (obj(r.error) !== undefined) throw errorEvent('gemini', r, JSON.stringify(r));
  const candidate = obj(asArray(r.candidates).find((c) => (obj(c)?.index ?? 0) === index));
  return [r, candidate];
}

/** A part of Gemini's text: not a thought. */
const isGeminiText = (part: Json): boolean => typeof part.text === 'string' && part.thought !== true;

/**
 * The text of a Gemini `generateContent` response (Google's Gemini API or Vertex AI, or what `@google/genai`
 * returns): the text parts of its first candidate (or candidate `candidate`) joined, thoughts left out.
 *
 * @throws {ProviderError} `refusal` when the prompt or the answer was blocked, `no_text` when the answer holds
 *   only function calls, `bad_response` when there is no candidate.
 */
export function geminiText(response: unknown, options?: { readonly candidate?: number }): string {
  const [r, candidate] = geminiCandidate(response, 'geminiText', options?.candidate ?? 0);
  const parts = geminiParts(candidate).filter(isGeminiText);
  if (parts.length > 0) return parts.map((p) => p.text as string).join('');
  const block = geminiBlock(r, candidate);
  if (block !== undefined) throw refusalError('gemini', block);
  if (candidate === undefined)
    throw new ProviderError('gemini: the response has no candidate', {
      provider: 'gemini',
      code: 'bad_response',
      body: JSON.stringify(r),
    });
  throw new ProviderError('gemini: the answer has no text (read function calls with geminiFunctionArguments)', {
    provider: 'gemini',
    code: 'no_text',
  });
}

/**
 * The arguments of a function call in a Gemini response (the first, or the first named `name`), as JSON text.
 */
export function geminiFunctionArguments(
  response: unknown,
  options?: { readonly name?: string; readonly candidate?: number },
): string {
  const [, candidate] = geminiCandidate(response, 'geminiFunctionArguments', options?.candidate ?? 0);
  for (const part of geminiParts(candidate)) {
    const call = obj(part.functionCall);
    if (call !== undefined && (options?.name === undefined || call.name === options.name))
      return JSON.stringify(call.args ?? {});
  }
  const which =
    options?.name === undefined ? 'a function call' : `a function call named ${JSON.stringify(options.name)}`;
  throw new ProviderError(`gemini: the answer has no ${which}`, { provider: 'gemini', code: 'no_tool_call' });
}

/** What a Gemini stream yields. */
export interface GeminiStreamOptions {
  /** Yield a function call's arguments (as JSON text) instead of text: `true` for the first call, or its name. */
  readonly functionCall?: boolean | string;
  /** The candidate to read (0 unless `candidateCount` asked for more). */
  readonly candidate?: number;
  /** Receives the thought summaries (`includeThoughts`), which are never part of what the stream yields. */
  readonly onReasoning?: (delta: string) => void;
  /** Cancels the body and ends the iteration with an `AbortError`. */
  readonly signal?: AbortSignal;
}

/**
 * The text deltas of a Gemini stream: `streamGenerateContent?alt=sse`'s events, or the responses
 * `@google/genai`'s `generateContentStream` yields. Thoughts go to `onReasoning`; an error event throws a
 * {@link ProviderError}, and so does a blocked prompt or answer (code `refusal`) when there was no text.
 */
export function geminiTextStream(source: ProviderStream, options?: GeminiStreamOptions): AsyncGenerator<string> {
  return geminiEventDeltas(streamPayloads(source, 'gemini', options?.signal), options);
}

/** {@link geminiTextStream} over the events' payloads. */
export async function* geminiEventDeltas(
  events: AsyncIterable<unknown>,
  options?: GeminiStreamOptions,
): AsyncGenerator<string> {
  const want = options?.functionCall ?? false;
  let yielded = false;
  let block: string | undefined;
  for await (const event of ownEvents(events, 'gemini')) {
    const [r, candidate] = geminiCandidate(event, 'geminiTextStream', options?.candidate ?? 0);
    for (const part of geminiParts(candidate)) {
      if (part.thought === true) {
        if (typeof part.text === 'string' && part.text !== '') options?.onReasoning?.(part.text);
        continue;
      }
      const call = obj(part.functionCall);
      const piece =
        want === false
          ? isGeminiText(part) && part.text !== ''
            ? (part.text as string)
            : undefined
          : call !== undefined && !yielded && (want === true || call.name === want)
            ? JSON.stringify(call.args ?? {})
            : undefined;
      if (piece === undefined) continue;
      yielded = true;
      yield piece;
    }
    block ??= geminiBlock(r, candidate);
  }
  if (!yielded && want === false && block !== undefined) throw refusalError('gemini', block);
}

/** An Ollama chunk or response as an object, its error thrown (Ollama's `error` is a string). */
function ollamaObject(response: unknown, fn: string): Json {
  const r = obj(response);
  if (r === undefined) throw new TypeError(`${fn}: expected an Ollama chat or generate response object`);
  if (typeof r.error === 'string' || obj(r.error) !== undefined) {
    const message = typeof r.error === 'string' ? r.error : JSON.stringify(r.error);
    throw new ProviderError(`ollama: ${message}`, { provider: 'ollama', body: JSON.stringify(r) });
  }
  return r;
}

/** The text of an Ollama chunk or response: `message.content` (`/api/chat`) or `response` (`/api/generate`). */
function ollamaContent(r: Json): unknown {
  return obj(r.message)?.content ?? r.response;
}

/** The tool calls of an Ollama chunk or response, their `function`s. */
function ollamaCalls(r: Json): Json[] {
  return asArray(obj(r.message)?.tool_calls)
    .map((c) => obj(obj(c)?.function))
    .filter((f): f is Json => f !== undefined);
}

/**
 * The text of an Ollama response (`/api/chat`'s `message.content`, or `/api/generate`'s `response`, with
 * `stream: false`, or what the `ollama` client returns), its thinking left out.
 *
 * @throws {ProviderError} for an error response, and `no_text` when the message holds only tool calls.
 */
export function ollamaText(response: unknown): string {
  const r = ollamaObject(response, 'ollamaText');
  const content = ollamaContent(r);
  if (typeof content === 'string' && (content !== '' || ollamaCalls(r).length === 0)) return content;
  throw new ProviderError('ollama: the message has no text (read tool calls with ollamaToolArguments)', {
    provider: 'ollama',
    code: 'no_text',
  });
}

/** The arguments of a tool call in an Ollama response (the first, or the first named `name`), as JSON text. */
export function ollamaToolArguments(response: unknown, options?: { readonly name?: string }): string {
  for (const fn of ollamaCalls(ollamaObject(response, 'ollamaToolArguments'))) {
    if (options?.name === undefined || fn.name === options.name) return JSON.stringify(fn.arguments ?? {});
  }
  const which = options?.name === undefined ? 'a tool call' : `a tool call named ${JSON.stringify(options.name)}`;
  throw new ProviderError(`ollama: the message has no ${which}`, { provider: 'ollama', code: 'no_tool_call' });
}

/** What an Ollama stream yields. */
export interface OllamaStreamOptions {
  /** Yield a tool call's arguments (as JSON text) instead of text: `true` for the first call, or its name. */
  readonly toolCall?: boolean | string;
  /** Receives the thinking (`think: true`), which is never part of what the stream yields. */
  readonly onReasoning?: (delta: string) => void;
  /** Cancels the body and ends the iteration with an `AbortError`. */
  readonly signal?: AbortSignal;
}

/**
 * The text deltas of an Ollama stream: `/api/chat` or `/api/generate`'s newline-delimited JSON (the default
 * when `stream` is not false), or the chunks the `ollama` client yields. Thinking goes to `onReasoning`; the
 * stream ends at `done: true`; an error line throws a {@link ProviderError}.
 */
export function ollamaTextStream(source: ProviderStream, options?: OllamaStreamOptions): AsyncGenerator<string> {
  return ollamaEventDeltas(streamPayloads(source, 'ollama', options?.signal), options);
}

/** {@link ollamaTextStream} over the chunks, parsed. */
export async function* ollamaEventDeltas(
  events: AsyncIterable<unknown>,
  options?: OllamaStreamOptions,
): AsyncGenerator<string> {
  const want = options?.toolCall ?? false;
  let called = false;
  for await (const event of ownEvents(events, 'ollama')) {
    const r = ollamaObject(event, 'ollamaTextStream');
    const thinking = obj(r.message)?.thinking ?? r.thinking;
    if (typeof thinking === 'string' && thinking !== '') options?.onReasoning?.(thinking);
    if (want === false) {
      const content = ollamaContent(r);
      if (typeof content === 'string' && content !== '') yield content;
    } else if (!called) {
      const fn = ollamaCalls(r).find((f) => want === true || f.name === want);
      if (fn !== undefined) {
        called = true;
        yield JSON.stringify(fn.arguments ?? {});
      }
    }
    if (r.done === true) return;
  }
}

/**
 * The provider of a whole response, by its shape: an OpenAI chat completion or Responses API response, an
 * Anthropic message, a Gemini response, an Ollama chat or generate response, or an error object in one of
 * their shapes. `undefined` for none of these.
 */
export function providerOfResponse(response: unknown): Provider | undefined {
  const r = obj(response);
  if (r === undefined) return undefined;
  if (Array.isArray(r.choices) || r.object === 'response' || Array.isArray(r.output)) return 'openai';
  if (r.type === 'message' || (r.type === 'error' && obj(r.error) !== undefined)) return 'anthropic';
  if (r.candidates !== undefined || r.promptFeedback !== undefined) return 'gemini';
  if (typeof r.done === 'boolean' || typeof r.error === 'string') return 'ollama';
  // `{error: {…}}`: Google's has a `status`; OpenAI's does not.
  const e = obj(r.error);
  if (e !== undefined) return typeof e.status === 'string' ? 'gemini' : 'openai';
  return undefined;
}

/** The provider of a whole response, or the TypeError of {@link providerText}. */
function responseProvider(response: unknown, fn: string): [Provider, Json] {
  const provider = providerOfResponse(response);
  if (provider !== undefined) return [provider, response as Json];
  const shown = (JSON.stringify(response) ?? String(response)).slice(0, 200);
  throw new TypeError(`${fn}: not a response of OpenAI, Anthropic, Gemini or Ollama: ${shown}`);
}

/**
 * The text of any provider's whole response, told by its shape: an OpenAI chat completion or Responses API
 * response, an Anthropic message, a Gemini response, or an Ollama chat or generate response (each read as
 * its own reader reads it). An error object in a provider's shape throws its {@link ProviderError}.
 *
 * @throws {TypeError} when `response` is none of these.
 */
export function providerText(response: unknown): string {
  const [provider, r] = responseProvider(response, 'providerText');
  if (provider === 'openai') return openAIText(r);
  if (provider === 'anthropic') return anthropicText(r);
  if (provider === 'gemini') return geminiText(r);
  return ollamaText(r);
}

/**
 * The arguments of a tool call in any provider's whole response (the first, or the first named `name`), as
 * JSON text: {@link providerText}'s reading for tool calls.
 */
export function providerToolArguments(response: unknown, options?: { readonly name?: string }): string {
  const [provider, r] = responseProvider(response, 'providerToolArguments');
  if (provider === 'openai') return openAIToolArguments(r, options);
  if (provider === 'anthropic') return anthropicToolInput(r, options);
  if (provider === 'gemini') return geminiFunctionArguments(r, options);
  return ollamaToolArguments(r, options);
}

/**
 * The types of the AI SDK's stream parts, in `streamText`'s `fullStream` and in a UI message stream
 * (`toUIMessageStream`, or `toUIMessageStreamResponse`'s server-sent events), that tell such a stream.
 */
const AI_SDK_PARTS: ReadonlySet<unknown> = new Set([
  'start',
  'start-step',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-input-available',
  'tool-call',
  'finish-step',
  'finish',
  'abort',
]);

/** What an AI SDK stream yields. */
export interface AiSdkStreamOptions {
  /** Yield a tool call's input (as JSON text) instead of text: `true` for the first call, or the tool's name. */
  readonly toolInput?: boolean | string;
  /** Receives the reasoning parts, which are never part of what the stream yields. */
  readonly onReasoning?: (delta: string) => void;
}

/**
 * The text deltas of an AI SDK stream's parts: `streamText`'s `fullStream` (`text`), or a UI message stream
 * (`delta`; through `toUIMessageStreamResponse`, its server-sent events). Reasoning parts go to
 * `onReasoning`; with `toolInput`, the input deltas of a tool call, or its whole input when it came without
 * deltas; an `error` part throws a {@link ProviderError}; the stream ends at `finish` or `abort`.
 */
export async function* aiSdkEventDeltas(
  events: AsyncIterable<unknown>,
  options?: AiSdkStreamOptions,
): AsyncGenerator<string> {
  const want = options?.toolInput ?? false;
  let call: unknown; // the id of the tool call being followed
  let inputDeltas = false;
  for await (const part of ownEvents(events, 'ai-sdk')) {
    const piece = typeof part.delta === 'string' ? part.delta : typeof part.text === 'string' ? part.text : '';
    const id = part.toolCallId ?? part.id;
    switch (part.type) {
      case 'finish':
      case 'abort':
        return;
      case 'error': {
        const e = part.error;
        const message =
          typeof part.errorText === 'string'
            ? part.errorText
            : e instanceof Error
              ? e.message
              : typeof e === 'string'
                ? e
                : 'the stream reported an error';
        throw new ProviderError(`ai-sdk: ${message}`, { provider: 'ai-sdk', cause: e, body: JSON.stringify(part) });
      }
      case 'reasoning-delta':
        if (piece !== '') options?.onReasoning?.(piece);
        break;
      case 'text-delta':
        if (want === false && piece !== '') yield piece;
        break;
      case 'tool-input-start':
        if (want !== false && call === undefined && (want === true || part.toolName === want)) call = id;
        break;
      case 'tool-input-delta': {
        const delta = typeof part.inputTextDelta === 'string' ? part.inputTextDelta : piece;
        if (want !== false && id === call && delta !== '') {
          inputDeltas = true;
          yield delta;
        }
        break;
      }
      case 'tool-call':
      case 'tool-input-available':
        // A call whose input came whole, with no deltas before.
        if (want === false || inputDeltas) break;
        if (call === undefined && (want === true || part.toolName === want)) call = id;
        if (id === call) {
          inputDeltas = true;
          yield typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
        }
        break;
    }
  }
}

/** What a LangChain stream yields. */
export interface LangChainStreamOptions {
  /** Yield a tool call's argument deltas instead of text: `true` for the first call, or the tool's name. */
  readonly toolCall?: boolean | string;
  /** Receives the reasoning (`additional_kwargs.reasoning_content`, reasoning and thinking content blocks). */
  readonly onReasoning?: (delta: string) => void;
}

/**
 * The text deltas of a LangChain chat model's stream (`await model.stream(…)`: `AIMessageChunk`s): their
 * string content, or the text of their content blocks; reasoning content and blocks go to `onReasoning`;
 * with `toolCall`, a tool call's argument deltas (`tool_call_chunks`).
 */
export async function* langChainEventDeltas(
  events: AsyncIterable<unknown>,
  options?: LangChainStreamOptions,
): AsyncGenerator<string> {
  const want = options?.toolCall ?? false;
  let call: unknown; // the index of the tool call being followed
  for await (const chunk of ownEvents(events, 'langchain')) {
    const blocks = Array.isArray(chunk.content) ? chunk.content.map(obj) : [];
    if (options?.onReasoning !== undefined) {
      const thought = obj(chunk.additional_kwargs)?.reasoning_content;
      if (typeof thought === 'string' && thought !== '') options.onReasoning(thought);
      for (const b of blocks) {
        const text = b?.type === 'reasoning' ? b.reasoning : b?.type === 'thinking' ? b.thinking : undefined;
        if (typeof text === 'string' && text !== '') options.onReasoning(text);
      }
    }
    if (want === false) {
      const text = typeof chunk.content === 'string' ? chunk.content : partsText(blocks);
      if (text !== '') yield text;
      continue;
    }
    for (const c of asArray(chunk.tool_call_chunks).map(obj)) {
      if (c === undefined) continue;
      const index = c.index ?? c.id ?? 0;
      if (call === undefined && typeof c.name === 'string' && (want === true || c.name === want)) call = index;
      if (index === call && typeof c.args === 'string' && c.args !== '') yield c.args;
    }
  }
}

/** `Retry-After` (seconds or an HTTP date) in ms. */
function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const s = header.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

async function httpError(provider: Provider, response: Response): Promise<ProviderError> {
  let body = '';
  try {
    body = await response.text();
  } catch {
    // The body is only for the message.
  }
  let detail = '';
  let code: string | undefined;
  try {
    const error = obj(JSON.parse(body))?.error;
    const e = obj(error);
    // Ollama's error is the message itself.
    if (typeof error === 'string') detail = `: ${error}`;
    if (typeof e?.message === 'string') detail = `: ${e.message}`;
    code = errorType(e);
  } catch {
    if (body !== '') detail = `: ${body.slice(0, 200)}`;
  }
  const ms = Number(response.headers.get('retry-after-ms'));
  const retryAfterMs =
    response.headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0
      ? ms
      : retryAfter(response.headers.get('retry-after'));
  return new ProviderError(
    `${provider}: HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}${detail}`,
    {
      provider,
      status: response.status,
      retryAfterMs,
      code,
      body,
    },
  );
}

/** Options shared by {@link createOpenAIQuery}, {@link createAnthropicQuery} and {@link createGeminiQuery}. */
export interface ProviderQueryOptions {
  /** The API root, up to and including `/v1`. */
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  /** A system prompt. */
  readonly system?: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Stream the answer (server-sent events); `onDelta` sees each text delta. */
  readonly stream?: boolean;
  readonly onDelta?: (delta: string) => void;
  /** More request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** More fields of the request body (`response_format`, `tools`, …). */
  readonly body?: Readonly<Record<string, unknown>>;
  /** The `fetch` to use (default the global one). */
  readonly fetch?: FetchLike;
}

type Query = (prompt: string, context?: { readonly signal?: AbortSignal | undefined }) => Promise<string>;

function endpoint(options: ProviderQueryOptions, fallback: string, path: string): string {
  if (options === null || typeof options !== 'object') throw new TypeError('expected an options object');
  if (typeof options.model !== 'string' || options.model === '')
    throw new TypeError('options.model must be a non-empty string');
  return `${(options.baseURL ?? fallback).replace(/\/+$/, '')}${path}`;
}

async function collect(deltas: AsyncIterable<string>, onDelta: ((d: string) => void) | undefined): Promise<string> {
  let text = '';
  for await (const d of deltas) {
    onDelta?.(d);
    text += d;
  }
  return text;
}

/** How one provider's protocol differs: where, which headers, which body, how the answer is read. */
interface Protocol {
  readonly provider: Provider;
  /** Where to POST, streaming or not. */
  url(stream: boolean): string;
  readonly headers: Readonly<Record<string, string>>;
  /** The request body, the options' `temperature`, `stream` and `body` in it. */
  body(prompt: string): Record<string, unknown>;
  text(json: unknown): string;
  stream(response: Response): AsyncIterable<string>;
}

/** A body with `temperature` and `stream` at its top, as OpenAI and Anthropic take them, then the options' `body`. */
function flatBody(options: ProviderQueryOptions, base: Record<string, unknown>): Record<string, unknown> {
  return {
    ...base,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.stream === true ? { stream: true } : {}),
    ...options.body,
  };
}

/** The part of `fetch` the query functions use: the global `fetch` fits, and so does any wrapper of it. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal | null },
) => Promise<Response>;

/** The query function of a protocol: POST, errors as ProviderError, JSON or streamed answers. */
function queryOf(options: ProviderQueryOptions, p: Protocol): Query {
  const doFetch: FetchLike = options.fetch ?? fetch;
  return async (prompt, context) => {
    const response = await doFetch(p.url(options.stream === true), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...p.headers, ...options.headers },
      body: JSON.stringify(p.body(prompt)),
      signal: context?.signal ?? null,
    });
    if (!response.ok) throw await httpError(p.provider, response);
    if (options.stream === true) return collect(p.stream(response), options.onDelta);
    let json: unknown;
    try {
      json = await response.json();
    } catch (cause) {
      throw new ProviderError(`${p.provider}: the response body is not JSON`, {
        provider: p.provider,
        status: response.status,
        code: 'bad_response',
        cause,
      });
    }
    return p.text(json);
  };
}

/** Options of {@link createOpenAIQuery}. */
export interface OpenAIQueryOptions extends ProviderQueryOptions {
  /**
   * The endpoint: `'chat'` (default) for `/chat/completions`, `'responses'` for OpenAI's Responses API
   * (`/responses`, also served by OpenRouter, vLLM, Ollama and other gateways).
   */
  readonly api?: 'chat' | 'responses';
}

/**
 * A `query` for {@link queryWithCorrection} that asks an OpenAI-compatible `/chat/completions` endpoint
 * (OpenAI, vLLM, llama.cpp, Ollama, LM Studio, …), or with `api: 'responses'` the Responses API, and resolves
 * to the answer's text. HTTP errors reject with a {@link ProviderError} carrying `status` and `retryAfterMs`,
 * so 429 and 5xx are retried as transport errors.
 */
export function createOpenAIQuery(options: OpenAIQueryOptions): Query {
  const responses = options?.api === 'responses';
  if (options?.api !== undefined && options.api !== 'chat' && !responses)
    throw new RangeError(`createOpenAIQuery: api must be 'chat' or 'responses', got ${String(options.api)}`);
  const url = endpoint(options, 'https://api.openai.com/v1', responses ? '/responses' : '/chat/completions');
  return queryOf(options, {
    provider: 'openai',
    url: () => url,
    headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` },
    body: (prompt) =>
      flatBody(
        options,
        responses
          ? {
              model: options.model,
              input: prompt,
              ...(options.system === undefined ? {} : { instructions: options.system }),
              ...(options.maxTokens === undefined ? {} : { max_output_tokens: options.maxTokens }),
            }
          : {
              model: options.model,
              messages: [
                ...(options.system === undefined ? [] : [{ role: 'system', content: options.system }]),
                { role: 'user', content: prompt },
              ],
              ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
            },
      ),
    text: (json) => openAIText(json),
    stream: (response) => openAITextStream(response),
  });
}

/**
 * A `query` for {@link queryWithCorrection} that asks Anthropic's `/messages` endpoint and resolves to the
 * answer's text. HTTP errors reject with a {@link ProviderError} (529 overloaded and 429 are retried).
 */
export function createAnthropicQuery(options: ProviderQueryOptions): Query {
  const url = endpoint(options, 'https://api.anthropic.com/v1', '/messages');
  return queryOf(options, {
    provider: 'anthropic',
    url: () => url,
    headers: {
      'anthropic-version': '2023-06-01',
      ...(options.apiKey === undefined ? {} : { 'x-api-key': options.apiKey }),
    },
    body: (prompt) =>
      flatBody(options, {
        model: options.model,
        max_tokens: options.maxTokens ?? 4_096,
        messages: [{ role: 'user', content: prompt }],
        ...(options.system === undefined ? {} : { system: options.system }),
      }),
    text: (json) => anthropicText(json),
    stream: (response) => anthropicTextStream(response),
  });
}

/**
 * A `query` for {@link queryWithCorrection} that asks Gemini's `generateContent` (or with `stream`,
 * `streamGenerateContent?alt=sse`) and resolves to the answer's text, thoughts left out. `temperature` and
 * `maxTokens` go into `generationConfig`, merged with one in `body` (`responseMimeType`, `thinkingConfig`, …).
 * The default `baseURL` is Google AI's `https://generativelanguage.googleapis.com/v1beta`; `model` is a name
 * (`gemini-2.5-flash`) or a resource path (`tunedModels/…`). HTTP errors reject with a {@link ProviderError}
 * (429 `RESOURCE_EXHAUSTED` and 5xx are retried).
 */
export function createGeminiQuery(options: ProviderQueryOptions): Query {
  const model = options?.model?.includes('/') ? options.model : `models/${options?.model}`;
  const base = endpoint(options, 'https://generativelanguage.googleapis.com/v1beta', `/${model}`);
  return queryOf(options, {
    provider: 'gemini',
    url: (stream) => `${base}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: options.apiKey === undefined ? {} : { 'x-goog-api-key': options.apiKey },
    body: (prompt) => {
      const extra = options.body ?? {};
      const config = {
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.maxTokens === undefined ? {} : { maxOutputTokens: options.maxTokens }),
        ...obj(extra.generationConfig),
      };
      return {
        contents: [{ role: 'user', parts: [{ text: prompt }] }],
        ...(options.system === undefined ? {} : { systemInstruction: { parts: [{ text: options.system }] } }),
        ...extra,
        ...(Object.keys(config).length === 0 ? {} : { generationConfig: config }),
      };
    },
    text: (json) => geminiText(json),
    stream: (response) => geminiTextStream(response),
  });
}
