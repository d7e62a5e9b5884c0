/// <reference lib="esnext.disposable" preserve="true" />
/**
 * Text cleaning: `clean`, `cleanDetailed` and `StreamCleaner`. One state machine in the core
 * serves both: `clean(text)` is one push plus finish, so every chunking gives the same text.
 */
import { PairJoiner } from './surrogates.js';
import { cleanWhole, newCleaner, type CoreCleanOptions, type CoreCleaner } from './wasm.js';
import { ModuleTrapError, assertString } from './errors.js';
import { REASONING_TAGS } from '../pkg/vocabulary.js';

/** A pair of tags around a reasoning block. */
export interface ThinkTag {
  readonly start: string;
  readonly end: string;
}

/** Options of {@link clean} and {@link StreamCleaner}; defaults in brackets. */
export interface CleanOptions {
  /** Opening tag [`<think>`], matched ASCII-case-insensitively. */
  readonly startThinkTag?: string;
  /** Closing tag [`</think>`]. */
  readonly endThinkTag?: string;
  /**
   * Several tag pairs instead of `startThinkTag`/`endThinkTag` (not both): the earliest opening tag
   * wins, at one position the pair listed first. `[]` turns reasoning removal off.
   */
  readonly thinkTags?: readonly ThinkTag[];
  /** Characters (code points) allowed between the leading whitespace and the opening tag [100]; `Infinity` for any. */
  readonly openingTagGracePeriod?: number;
  /**
   * Count the leading whitespace toward `openingTagGracePeriod` too: the opening tag must start within the
   * first that many characters of the text, as WilmerAI counts [false].
   */
  readonly graceIncludesLeadingWhitespace?: boolean;
  /** Remove everything through the first closing tag; without one the result is empty [false]. */
  readonly expectOnlyClosingThinkTag?: boolean;
  /** With `expectOnlyClosingThinkTag`, give a text that has no closing tag back unchanged, as WilmerAI does, instead of emptying it [false]. */
  readonly keepTextWithoutClosingTag?: boolean;
  /** Remove the first of these the text starts with, once, case-sensitively; empty entries are ignored [[]]. */
  readonly responseStartTextToRemove?: readonly string[] | string;
  /**
   * A second list, applied after `responseStartTextToRemove` (WilmerAI's endpoint-wide list): each entry is
   * trimmed of whitespace, then the first one the text starts with is removed, once [[]].
   */
  readonly responseStartTextToRemoveEndpointWide?: readonly string[] | string;
  /** Remove a leading `[Sent … ago]` [false]. */
  readonly removeTimestampPrefix?: boolean;
  /** Remove a leading `Assistant:` [false]. */
  readonly removeAssistantPrefix?: boolean;
  /** Trim both ends [true]. Leading whitespace is removed either way (unless `thinkOnly`). */
  readonly trim?: boolean;
  /**
   * Remove the reasoning block only, as WilmerAI's think remover does: no whitespace is stripped, no prefix
   * removed, nothing trimmed [false].
   */
  readonly thinkOnly?: boolean;
}

/** The result of {@link cleanDetailed}. */
export interface CleanResult {
  /** The cleaned text, equal to `clean(text, options)`. */
  readonly text: string;
  /** The removed reasoning without its tags, or `null` when nothing was removed. */
  readonly reasoning: string | null;
}

/**
 * Tag pairs that models commonly use for reasoning, for `thinkTags`: `<think>`, `<thinking>`, `<reasoning>`,
 * `<reflection>`, Magistral's `[THINK]`, gpt-oss's analysis channel, Seed-OSS's `<seed:think>`, Gemma 4's
 * thought channel, Command A Reasoning's `<|START_THINKING|>`, EXAONE Deep's `<thought>`, Kimi-VL's `◁think▷`,
 * the OpenThoughts format's `<|begin_of_thought|>` (OpenThinker, Sky-T1), Granite 3.2's
 * `Here is my thought process:` up to `Here is my response:`, and Apriel's `Here are my reasoning steps:`
 * up to `[BEGIN FINAL RESPONSE]`. They are the pairs the JSON
 * locator skips (generated from the core's one table).
 */
export const COMMON_THINK_TAGS: readonly ThinkTag[] = REASONING_TAGS;

function flag(o: CleanOptions, key: keyof CleanOptions, fallback: boolean, where: string): boolean {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new TypeError(`${where}: ${key} must be a boolean, got ${typeof v}`);
  return v;
}

function text(v: unknown, name: string, where: string): string {
  if (typeof v !== 'string') throw new TypeError(`${where}: ${name} must be a string, got ${typeof v}`);
  // The core takes every tag and prefix in one NUL-separated string.
  if (v.includes('\0')) throw new TypeError(`${where}: ${name} must not contain U+0000`);
  return v;
}

/** A prefix list option: a string or an array of strings. */
function list(
  o: CleanOptions,
  key: 'responseStartTextToRemove' | 'responseStartTextToRemoveEndpointWide',
  where: string,
): string[] {
  const p = o[key];
  if (p === undefined) return [];
  if (typeof p === 'string') return [text(p, key, where)];
  if (Array.isArray(p)) return p.map((s: unknown, i: number) => text(s, `${key}[${i}]`, where));
  throw new TypeError(`${where}: ${key} must be a string or an array of strings`);
}

/** The options of calls that give none, made at the first. */
let defaults: CoreCleanOptions | undefined;

/** Validates options and fills in defaults. */
function coreOptions(options: CleanOptions | undefined, where: string): CoreCleanOptions {
  // The same object for every call without options: the core's one-shot cleaner is kept for it.
  if (options === undefined) {
    defaults ??= Object.freeze(coreOptions({}, where));
    return defaults;
  }
  const o: CleanOptions = options ?? {};
  if (typeof o !== 'object' || o === null) throw new TypeError(`${where}: options must be an object`);
  let tags: string[];
  if (o.thinkTags !== undefined) {
    if (o.startThinkTag !== undefined || o.endThinkTag !== undefined) {
      throw new TypeError(`${where}: give either thinkTags or startThinkTag/endThinkTag, not both`);
    }
    if (!Array.isArray(o.thinkTags)) throw new TypeError(`${where}: thinkTags must be an array of {start, end}`);
    tags = [];
    o.thinkTags.forEach((pair: ThinkTag, i: number) => {
      if (typeof pair !== 'object' || pair === null)
        throw new TypeError(`${where}: thinkTags[${i}] must be {start, end}`);
      tags.push(text(pair.start, `thinkTags[${i}].start`, where), text(pair.end, `thinkTags[${i}].end`, where));
    });
  } else {
    tags = [
      o.startThinkTag === undefined ? '<think>' : text(o.startThinkTag, 'startThinkTag', where),
      o.endThinkTag === undefined ? '</think>' : text(o.endThinkTag, 'endThinkTag', where),
    ];
  }
  const grace = o.openingTagGracePeriod ?? 100;
  if (typeof grace !== 'number' || !(grace === Infinity || (Number.isInteger(grace) && grace >= 0))) {
    throw new RangeError(
      `${where}: openingTagGracePeriod must be a non-negative integer or Infinity, got ${String(grace)}`,
    );
  }
  return {
    tags,
    grace,
    onlyClosing: flag(o, 'expectOnlyClosingThinkTag', false, where),
    prefixes: list(o, 'responseStartTextToRemove', where),
    endpointPrefixes: list(o, 'responseStartTextToRemoveEndpointWide', where),
    timestamp: flag(o, 'removeTimestampPrefix', false, where),
    assistant: flag(o, 'removeAssistantPrefix', false, where),
    trim: flag(o, 'trim', true, where),
    thinkOnly: flag(o, 'thinkOnly', false, where),
    graceFromStart: flag(o, 'graceIncludesLeadingWhitespace', false, where),
    keepUnclosed: flag(o, 'keepTextWithoutClosingTag', false, where),
  };
}

/**
 * The cleaned response: the first reasoning block, prefixes and surrounding whitespace removed.
 * Lone surrogates (invalid UTF-16) come out as U+FFFD, the same way in every mode.
 *
 * @throws {TypeError} when `text` is not a string or an option has the wrong type.
 * @throws {RangeError} when `openingTagGracePeriod` is not a non-negative integer or `Infinity`.
 */
export function clean(text: string, options?: CleanOptions): string {
  assertString(text, 'clean');
  return cleanWhole(text, coreOptions(options, 'clean'), false).text;
}

/** Like {@link clean}, and also returns the removed reasoning text. */
export function cleanDetailed(text: string, options?: CleanOptions): CleanResult {
  assertString(text, 'cleanDetailed');
  const r = cleanWhole(text, coreOptions(options, 'cleanDetailed'), true);
  return { text: r.text, reasoning: r.reasoning ?? null };
}

/**
 * Cleans a response as it streams: `push` returns the text that can no longer change, `finish` the
 * rest. Joining every result gives exactly `clean(whole, options)`, however the text was split (a
 * surrogate pair split between chunks is put back together). `finish()` frees it; one left unfinished
 * is freed by `free()` or `using`, or reclaimed by a `FinalizationRegistry` once the program yields to
 * the event loop (finalizers never run inside a synchronous loop).
 */
export class StreamCleaner {
  #core: CoreCleaner | null;
  readonly #pairs = new PairJoiner();
  #finished = false;
  /** `free()` was called (`finish()` also lets the core go, but the cleaner then says it finished). */
  #freed = false;
  #reasoning: string | null = null;

  constructor(options?: CleanOptions) {
    this.#core = newCleaner(coreOptions(options, 'StreamCleaner'));
  }

  #live(where: string): CoreCleaner {
    if (this.#freed) throw new TypeError(`StreamCleaner.${where}: the cleaner has been freed`);
    if (this.#finished) throw new TypeError(`StreamCleaner.${where}: the cleaner has already finished`);
    return this.#core!;
  }

  /**
   * Takes the next chunk; returns the cleaned text that is now final (often `''`).
   *
   * @throws {TypeError} when `chunk` is not a string, or the cleaner has finished or been freed.
   */
  push(chunk: string): string {
    assertString(chunk, 'StreamCleaner.push');
    const core = this.#live('push');
    const text = this.#pairs.take(chunk);
    return text === '' ? '' : core.push(text);
  }

  /**
   * Releases what is held at the start of the response, for text that must go out now: before a tool call
   * in the middle of a stream, as WilmerAI drains its prefix buffer. Prefixes that have fully arrived are
   * removed; one still arriving (`Assist`) is released as it is, and no prefix is looked for afterwards.
   * When nothing is held there, nothing changes and prefixes stay armed. An open reasoning block, a tag
   * that may be arriving, and trailing whitespace held for `trim` stay held: the text that follows decides them.
   */
  flush(): string {
    const core = this.#live('flush');
    return core.flush();
  }

  /**
   * Ends the stream; returns what was held back, and frees the cleaner's memory. Further pushes throw;
   * finishing again returns `''`.
   */
  finish(): string {
    if (this.#finished && !this.#freed) return '';
    const core = this.#live('finish');
    const held = this.#pairs.rest();
    const tail = held === '' ? '' : core.push(held);
    const out = tail + core.finish();
    this.#finished = true;
    this.#reasoning = core.reasoning() ?? null;
    core.free();
    this.#core = null;
    return out;
  }

  /** The removed reasoning, once a block has been removed (at the latest after `finish`); else `null`. */
  get reasoning(): string | null {
    if (this.#core === null || this.#finished) return this.#reasoning;
    return this.#core.reasoning() ?? null;
  }

  /**
   * The text of a reasoning block that is open but not closed yet. Provisional: if the stream ends
   * before the closing tag, the block is given back as answer text.
   */
  get pendingReasoning(): string | null {
    if (this.#core === null || this.#finished) return null;
    return this.#core.pendingReasoning() ?? null;
  }

  /** Releases the core's memory. Idempotent. */
  free(): void {
    if (this.#core !== null && !this.#finished) {
      try {
        this.#reasoning = this.#core.reasoning() ?? null;
      } catch (error) {
        // Made before the module trapped: there is no reasoning left to keep, and freeing must not throw.
        if (!(error instanceof ModuleTrapError)) throw error;
      }
    }
    this.#core?.free();
    this.#core = null;
    this.#freed = true;
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
