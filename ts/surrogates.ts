/** Joins surrogate pairs split between chunks: the first half waits for its second half. */
export class PairJoiner {
  #high = '';

  /** The chunk with any held half in front, minus a trailing first half (held for the next chunk). */
  take(chunk: string): string {
    let text = this.#high === '' ? chunk : this.#high + chunk;
    this.#high = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#high = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text;
  }

  /** What is held, without taking it. */
  peek(): string {
    return this.#high;
  }

  /** What is held at the end of the text (a lone first half, or `''`). */
  rest(): string {
    const high = this.#high;
    this.#high = '';
    return high;
  }
}

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` holds a lone surrogate (which UTF-8, and so the core, turns into U+FFFD). */
export function hasLoneSurrogate(text: string): boolean {
  const s = text as unknown as { isWellFormed?: () => boolean };
  // V8 answers at once for a one-byte string; the pattern is for hosts without isWellFormed.
  return typeof s.isWellFormed === 'function' ? !s.isWellFormed() : LONE.test(text);
}
