/**
 * The live partial value: applies the change operations of the core's stream view to a plain
 * object, so each chunk costs time proportional to what it changed. Objects are built as `JSON.parse`
 * builds them: a `"__proto__"` key is an own property and no prototype is ever changed. What a schema
 * changes in the value on the way (fixed strings shown whole, wanted numbers and booleans coerced) the
 * core has already decided: the operations say it.
 */
import { OPS } from '../pkg/vocabulary.js';

/** Operation codes, as the core writes them. */
const { RESET, OBJECT, ARRAY, CLOSE, KEY, STRING, APPEND, END_STRING, SCALAR, WRAP } = OPS;

type Container = Record<string, unknown> | unknown[];

/** A JSON number or literal, as `JSON.parse` reads it. */
function scalar(token: string): number | boolean | null {
  if (token === 'true') return true;
  if (token === 'false') return false;
  if (token === 'null') return null;
  // For a JSON number `Number` is `JSON.parse`: the same text, the same nearest double.
  return Number(token);
}

/** Sets `parent[key]` as an own data property, even for `"__proto__"`. */
function put(parent: Container, key: string | number, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (parent as Record<string | number, unknown>)[key] = value;
  }
}

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/**
 * A growing string as it is shown: without a high surrogate it ends on, whose low half is still to come
 * (an escaped emoji, `\uD83D\uDE00`, cut between its escapes). Shown, it would read as U+FFFD for a chunk.
 */
function shown(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/**
 * A shallow copy of `live` whose containers are replaced by their latest snapshots. An array that has a
 * copy already is copied from it, and only from its last item on: a stream only appends to an array and
 * changes nothing in it but its last item (the open string or container), so the items before are those
 * of the last copy. That keeps a growing array's copy per chunk a native copy instead of a lookup per item
 * (100 KB in 10-character chunks: 34 ms, 1 MB: 2.2 s, quadratic with a large constant). An object's key
 * may be written again anywhere in its order (`{"a": 1, "b": 2, "a": 3}`): objects are copied whole.
 */
function copyOf(live: Container, copies: WeakMap<Container, Container>): Container {
  const latest = (v: unknown): unknown => (isContainer(v) ? (copies.get(v) ?? v) : v);
  if (Array.isArray(live)) {
    const before = copies.get(live) as unknown[] | undefined;
    if (before === undefined) return live.map(latest);
    const out = before.slice();
    for (let i = Math.max(0, before.length - 1); i < live.length; i++) out[i] = latest(live[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(live)) put(out, key, latest(live[key]));
  return out;
}

/** The live value and the position of the next change in it. */
export class PartialValue {
  /** The root value; `undefined` until the JSON starts. */
  root: unknown = undefined;
  readonly #stack: Container[] = [];
  #key: string | undefined;
  /** The open string: its parent (`undefined` at the root), its key there and its text so far. */
  #stringParent: Container | undefined;
  /** Whether the string being read is shown without the high surrogate it ends on. */
  #held = false;
  #stringKey: string | number = 0;
  #stringText = '';
  /**
   * With snapshots: the latest copy of each live container, the containers a batch of operations may have
   * changed (every one on the stack at some point of it, parents before children), and the root's copy.
   */
  readonly #copies: WeakMap<Container, Container> | undefined;
  readonly #dirty: Container[] = [];
  #snapshot: unknown = undefined;

  constructor(snapshots = false) {
    this.#copies = snapshots ? new WeakMap() : undefined;
  }

  /**
   * The value to hand out: the live root, or with snapshots an immutable copy that is a new object exactly
   * where something changed since the last one (unchanged containers keep their identity).
   */
  get current(): unknown {
    return this.#copies === undefined ? this.root : this.#snapshot;
  }

  /** Copies what the last batch changed, children before parents, so each parent takes its children's new copies. */
  #refresh(): void {
    const copies = this.#copies!;
    for (let i = this.#dirty.length - 1; i >= 0; i--) {
      const live = this.#dirty[i]!;
      copies.set(live, copyOf(live, copies));
    }
    this.#dirty.length = 0;
    this.#snapshot = isContainer(this.root) ? copies.get(this.root) : this.root;
  }

  /** Places `value` as the next value, in `parent` (the innermost container) or as the root; returns its key. */
  #place(value: unknown, parent: Container | undefined): string | number {
    if (parent === undefined) {
      this.root = value;
      return 0;
    }
    const key = Array.isArray(parent) ? parent.length : (this.#key ?? '');
    put(parent, key, value);
    return key;
  }

  /** Shows the string being read, without a high surrogate it ends on unless `whole` (see `shown`). */
  #showString(whole: boolean): void {
    const text = whole ? this.#stringText : shown(this.#stringText);
    this.#held = text.length < this.#stringText.length;
    if (this.#stringParent === undefined) this.root = text;
    else put(this.#stringParent, this.#stringKey, text);
  }

  /** The innermost open container, or `undefined` at the root. */
  #top(): Container | undefined {
    return this.#stack[this.#stack.length - 1];
  }

  /**
   * Applies one push's changes as the core's binding writes them (its `push_changes`): after the
   * complete flag, each change is its code as one digit, and a key, string, append or scalar has its text
   * up to a line feed, a JSON string's content with its escapes or a JSON number or literal. Text with no
   * backslash is the string itself; only text with one goes through `JSON.parse`.
   */
  apply(wire: string): void {
    const snapshots = this.#copies !== undefined && wire.length > 1;
    // Every change happens at the top of the stack: the stack is the path of containers to copy again.
    if (snapshots) this.#dirty.push(...this.#stack);
    for (let i = 1; i < wire.length; ) {
      const code = wire.charCodeAt(i++) - 48;
      let text = '';
      if (code === KEY || code === STRING || code === APPEND || code === SCALAR) {
        const end = wire.indexOf('\n', i);
        if (end < 0) throw new Error('llm-response-sanitizer: a partial-value change without the end of its text');
        text = wire.slice(i, end);
        i = end + 1;
      }
      this.#change(code, text, snapshots);
    }
    if (snapshots) this.#refresh();
  }

  /**
   * Applies the first `count` changes of `codes`, each with its text in `texts` (JSON string content with its
   * escapes, or a JSON number or literal; `''` for a change without text), as {@link PartialValue.apply}
   * applies them from the wire.
   */
  applyPlaced(count: number, codes: readonly number[], texts: readonly string[]): void {
    const snapshots = this.#copies !== undefined;
    if (snapshots) this.#dirty.push(...this.#stack);
    for (let k = 0; k < count; k++) this.#change(codes[k]!, texts[k]!, snapshots);
    if (snapshots) this.#refresh();
  }

  /** Applies one append to the string being read, `text` as it stands between its quotes (escapes kept). */
  append(text: string): void {
    const snapshots = this.#copies !== undefined;
    if (snapshots) this.#dirty.push(...this.#stack);
    this.#change(APPEND, text, snapshots);
    if (snapshots) this.#refresh();
  }

  /** Applies the change `code` with its `text` (JSON string content or a scalar's JSON text). */
  #change(code: number, raw: string, snapshots: boolean): void {
    const text = code !== SCALAR && raw.indexOf('\\') >= 0 ? (JSON.parse(`"${raw}"`) as string) : raw;
    switch (code) {
      case RESET:
        this.#held = false;
        this.root = undefined;
        this.#stack.length = 0;
        this.#key = undefined;
        this.#stringParent = undefined;
        this.#dirty.length = 0;
        break;
      case OBJECT:
      case ARRAY: {
        const c: Container = code === OBJECT ? {} : [];
        this.#place(c, this.#top());
        this.#stack.push(c);
        if (snapshots) this.#dirty.push(c);
        break;
      }
      case CLOSE:
        this.#stack.pop();
        break;
      case KEY:
        this.#key = text;
        break;
      case STRING: {
        const parent = this.#top();
        const visible = shown(text);
        this.#stringText = text;
        this.#held = visible !== text;
        this.#stringKey = this.#place(visible, parent);
        this.#stringParent = parent;
        break;
      }
      case APPEND:
        this.#stringText += text;
        this.#showString(false);
        break;
      case END_STRING:
        // Closed, a string is shown whole: a lone high surrogate at its end is its content.
        if (this.#held) this.#showString(true);
        this.#stringParent = undefined;
        break;
      case SCALAR:
        this.#place(scalar(text), this.#top());
        break;
      case WRAP: {
        const wrapper = [this.root];
        this.root = wrapper;
        this.#stack.unshift(wrapper);
        // The new root is the parent of everything: copied last.
        if (snapshots) this.#dirty.unshift(wrapper);
        break;
      }
      default:
        throw new Error(`llm-response-sanitizer: unknown partial-value change ${code}`);
    }
  }
}
