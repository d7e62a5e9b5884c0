// @ts-check
/**
 * JSON Schema `pattern` and `patternProperties` for the schema engine, in time linear in the text.
 *
 * ECMAScript's `RegExp` backtracks: `^(a+)+$` on 30 letters and a `!` takes seconds, and each letter more
 * doubles it. The schema's author writes the pattern, but the model writes the text it runs on. So a
 * pattern runs on the host's `RegExp` only when it cannot backtrack more than linearly (anchored at the
 * start, no quantified group, at most one unbounded quantifier). Any other is compiled here into a
 * Thompson automaton and simulated over the text: time O(text × pattern), never exponential. The automaton
 * asks the host, one character at a time, whether a character class or escape matches it, so the meaning
 * of `\d`, `\w`, `\s`, `\p{…}`, `[^…]` and `.` is exactly ECMAScript's. What an automaton cannot express
 * (backreferences, lookarounds) stays with the host, and so does `\B`, which V8 also tries between the
 * halves of a surrogate pair.
 *
 * Loaded by the wasm-bindgen glue (`src/wasm.rs`): 1 for a match, 0 for none, -1 for a pattern that is
 * not a regular expression, -2 for a test the host could not complete.
 */

/** Automaton instructions past which a pattern stays with the host (counted repetitions expand). */
const MAX_PROGRAM = 20_000;
/** Compiled patterns kept, by source. */
const CACHE_SIZE = 1024;

const CHAR = 0;
const SPLIT = 1;
const JUMP = 2;
const ASSERT = 3;
const MATCH = 4;

const BEGIN = 0;
const END = 1;
const BOUNDARY = 2;

/**
 * @typedef {{ host: RegExp, search?: RegExp } | { program: Program, unicode: boolean, anchored: boolean }} Compiled
 * @typedef {{ op: Int32Array, a: Int32Array, b: Int32Array, atoms: Atom[] }} Program
 * @typedef {{ code: number } | { test: RegExp, seen: Map<number, boolean> }} Atom
 * @typedef {{ t: 'alt', items: Node[] } | { t: 'seq', items: Node[] } | { t: 'atom', atom: number }
 *   | { t: 'assert', kind: number } | { t: 'repeat', node: Node, min: number, max: number }} Node
 */

/** A surrogate pair: a text the host's unanchored `$` search may answer wrongly (see `compile`). */
const ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/;

/** @type {Map<string, Compiled | null>} */
const cache = new Map();

/**
 * @param {string} pattern
 * @param {string} text
 * @returns {number}
 */
export function regexpTest(pattern, text) {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = compile(pattern);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(pattern, compiled);
  }
  if (compiled === null) return -1;
  // An exception must not unwind through wasm frames (it would leave the module unusable): a test the
  // host cannot complete (its stack overflows on a huge text) is a failed match.
  try {
    if ('host' in compiled) {
      if (compiled.host.test(text)) return 1;
      return compiled.search !== undefined && ASTRAL.test(text) && compiled.search.test(text) ? 1 : 0;
    }
    return run(compiled, text) ? 1 : 0;
  } catch {
    return -2;
  }
}

/**
 * The pattern compiled, with the `u` flag when the pattern allows it; `null` when it is no regular
 * expression.
 * @param {string} pattern
 * @returns {Compiled | null}
 */
function compile(pattern) {
  let host;
  let unicode = true;
  try {
    host = new RegExp(pattern, 'u');
  } catch {
    unicode = false;
    try {
      host = new RegExp(pattern);
    } catch {
      return null;
    }
  }
  // A pattern the host runs unanchored, which may end at `$`, gets the same search spelled as a match
  // from the start, asked when the host finds none in a text with astral characters: V8 14.6 (Node 26)
  // begins such a search too close to the end, counting each astral character a negated class matches as
  // one unit (`/[^a]$/u.test('😀')` and `/\W{2}$/u.test('x😀')` are false there). That form takes
  // stack in proportion to the text, so it is only the second opinion.
  const unanchored = () =>
    pattern.includes('$') ? { host, search: new RegExp(`^[^]*?(?:${pattern})`, unicode ? 'u' : '') } : { host };
  try {
    const parser = new Parser(pattern, unicode);
    const tree = parser.parse();
    if (tree !== null && linear(tree)) return { host };
    if (tree === null) return unanchored();
    const program = emit(tree, parser.atoms);
    if (program === null) return startsAnchored(tree) ? { host } : unanchored();
    return { program, unicode, anchored: startsAnchored(tree) };
  } catch {
    return unanchored();
  }
}

/**
 * Whether the host's backtracking is linear on this tree: anchored at the start, no quantified group and
 * at most one unbounded quantifier.
 * @param {Node} tree
 */
function linear(tree) {
  if (!startsAnchored(tree)) return false;
  let unbounded = 0;
  /** @param {Node} n @param {boolean} inRepeat @returns {boolean} */
  const ok = (n, inRepeat) => {
    switch (n.t) {
      case 'alt':
        return !inRepeat && n.items.every((x) => ok(x, inRepeat));
      case 'seq':
        return n.items.every((x) => ok(x, inRepeat));
      case 'repeat':
        if (inRepeat || n.node.t !== 'atom') return false;
        if (n.max === Number.POSITIVE_INFINITY) unbounded++;
        return unbounded <= 1;
      default:
        return true;
    }
  };
  return ok(tree, false);
}

/**
 * Whether every match must start at the beginning of the text (the tree begins with `^` in each branch).
 * @param {Node} n
 * @returns {boolean}
 */
function startsAnchored(n) {
  switch (n.t) {
    case 'assert':
      return n.kind === BEGIN;
    case 'seq':
      return n.items.length > 0 && startsAnchored(n.items[0]);
    case 'alt':
      return n.items.every(startsAnchored);
    default:
      return false;
  }
}

/** Reads a pattern the host accepted into a tree; throws on what the automaton cannot express. */
class Parser {
  /** @param {string} source @param {boolean} unicode */
  constructor(source, unicode) {
    this.s = source;
    this.u = unicode;
    this.i = 0;
    /** @type {Atom[]} */
    this.atoms = [];
  }

  /** @returns {Node | null} */
  parse() {
    const tree = this.disjunction();
    return this.i === this.s.length ? tree : null;
  }

  /** @returns {Node} */
  disjunction() {
    const items = [this.alternative()];
    while (this.s[this.i] === '|') {
      this.i++;
      items.push(this.alternative());
    }
    return items.length === 1 ? items[0] : { t: 'alt', items };
  }

  /** @returns {Node} */
  alternative() {
    /** @type {Node[]} */
    const items = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      const term = this.term();
      items.push(this.quantified(term));
    }
    return { t: 'seq', items };
  }

  /** @returns {Node} */
  term() {
    const s = this.s;
    const c = s[this.i];
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'assert', kind: c === '^' ? BEGIN : END };
    }
    if (c === '(') {
      if (s.startsWith('(?:', this.i)) this.i += 3;
      else if (s.startsWith('(?<', this.i) && s[this.i + 3] !== '=' && s[this.i + 3] !== '!') {
        const close = s.indexOf('>', this.i);
        if (close < 0) throw new Error('group name');
        this.i = close + 1;
      } else if (s[this.i + 1] === '?') throw new Error('lookaround or modifier');
      else this.i++;
      const inner = this.disjunction();
      if (s[this.i] !== ')') throw new Error('unclosed group');
      this.i++;
      return inner;
    }
    if (c === '.') return this.atom(1);
    if (c === '[') {
      let k = this.i + 1;
      if (s[k] === '^') k++;
      while (k < s.length && s[k] !== ']') k += s[k] === '\\' ? 2 : 1;
      if (k >= s.length) throw new Error('unclosed class');
      return this.atom(k + 1 - this.i);
    }
    if (c === '\\') return this.escape();
    // A literal character: a code point with the `u` flag, a code unit without.
    const code = this.u ? /** @type {number} */ (s.codePointAt(this.i)) : s.charCodeAt(this.i);
    this.i += code > 0xffff ? 2 : 1;
    this.atoms.push({ code });
    return { t: 'atom', atom: this.atoms.length - 1 };
  }

  /** @returns {Node} */
  escape() {
    const s = this.s;
    const c = s[this.i + 1];
    if (c === 'b') {
      this.i += 2;
      return { t: 'assert', kind: BOUNDARY };
    }
    // V8 tries `\B` between the halves of a surrogate pair too: the host answers it, exactly.
    if (c === 'B') throw new Error('\\B');
    // Backreferences, legacy octal escapes and named references need the host.
    if (c === undefined || (c >= '1' && c <= '9') || c === 'k' || (c === '0' && /[0-9]/.test(s[this.i + 2] ?? ''))) {
      throw new Error('reference');
    }
    if (c === 'c' && !/[A-Za-z]/.test(s[this.i + 2] ?? '')) throw new Error('legacy \\c');
    let len = 2;
    const hex = (from, n) => new RegExp(`^[0-9A-Fa-f]{${n}}`).test(s.slice(from, from + n));
    if (c === 'c') len = 3;
    else if (c === 'x' && hex(this.i + 2, 2)) len = 4;
    else if (c === 'u' && this.u && s[this.i + 2] === '{') len = s.indexOf('}', this.i) + 1 - this.i;
    else if (c === 'u' && hex(this.i + 2, 4)) {
      len = 6;
      // With the `u` flag, an escaped surrogate pair is one code point.
      const lead = Number.parseInt(s.slice(this.i + 2, this.i + 6), 16);
      if (this.u && lead >= 0xd800 && lead <= 0xdbff && s.startsWith('\\u', this.i + 6) && hex(this.i + 8, 4)) {
        const trail = Number.parseInt(s.slice(this.i + 8, this.i + 12), 16);
        if (trail >= 0xdc00 && trail <= 0xdfff) len = 12;
      }
    } else if ((c === 'p' || c === 'P') && this.u) len = s.indexOf('}', this.i) + 1 - this.i;
    if (len <= 1) throw new Error('escape');
    return this.atom(len);
  }

  /**
   * The `len` characters from here as one atom, matched by the host one character at a time.
   * @param {number} len
   * @returns {Node}
   */
  atom(len) {
    const source = this.s.slice(this.i, this.i + len);
    this.i += len;
    this.atoms.push({ test: new RegExp(`^(?:${source})$`, this.u ? 'u' : ''), seen: new Map() });
    return { t: 'atom', atom: this.atoms.length - 1 };
  }

  /**
   * The term with its quantifier, if one follows.
   * @param {Node} node
   * @returns {Node}
   */
  quantified(node) {
    const s = this.s;
    let min;
    let max;
    const c = s[this.i];
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Number.POSITIVE_INFINITY;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      // Without the `u` flag, a brace that is no quantifier is a literal character.
      if (m === null) return node;
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
    } else {
      return node;
    }
    if (s[this.i] === '?') this.i++;
    if (node.t === 'assert') throw new Error('quantified assertion');
    return { t: 'repeat', node, min, max };
  }
}

/**
 * The automaton for `tree`, or `null` when it would be too large.
 * @param {Node} tree
 * @param {Atom[]} atoms
 * @returns {Program | null}
 */
function emit(tree, atoms) {
  /** @type {number[]} */
  const op = [];
  /** @type {number[]} */
  const a = [];
  /** @type {number[]} */
  const b = [];
  const add = (o, x = 0, y = 0) => {
    if (op.length >= MAX_PROGRAM) throw new RangeError('program');
    op.push(o);
    a.push(x);
    b.push(y);
    return op.length - 1;
  };
  /** @param {Node} n */
  const gen = (n) => {
    switch (n.t) {
      case 'atom':
        add(CHAR, n.atom);
        return;
      case 'assert':
        add(ASSERT, n.kind);
        return;
      case 'seq':
        for (const x of n.items) gen(x);
        return;
      case 'alt': {
        const jumps = [];
        n.items.forEach((x, k) => {
          if (k === n.items.length - 1) {
            gen(x);
            return;
          }
          const split = add(SPLIT);
          a[split] = op.length;
          gen(x);
          jumps.push(add(JUMP));
          b[split] = op.length;
        });
        for (const j of jumps) a[j] = op.length;
        return;
      }
      case 'repeat': {
        for (let k = 0; k < n.min; k++) gen(n.node);
        if (n.max === Number.POSITIVE_INFINITY) {
          const split = add(SPLIT);
          a[split] = op.length;
          gen(n.node);
          add(JUMP, split);
          b[split] = op.length;
        } else {
          const splits = [];
          for (let k = n.min; k < n.max; k++) {
            const split = add(SPLIT);
            a[split] = op.length;
            splits.push(split);
            gen(n.node);
          }
          for (const split of splits) b[split] = op.length;
        }
        return;
      }
    }
  };
  try {
    gen(tree);
    add(MATCH);
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
  return { op: Int32Array.from(op), a: Int32Array.from(a), b: Int32Array.from(b), atoms };
}

/** @param {number} code */
const isWord = (code) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;

/**
 * Whether the automaton matches anywhere in `text`: each position is visited once, with at most one
 * thread per instruction.
 * @param {{ program: Program, unicode: boolean, anchored: boolean }} compiled
 * @param {string} text
 */
function run({ program, unicode, anchored }, text) {
  const { op, a, b, atoms } = program;
  const n = op.length;
  let current = new Int32Array(n);
  let next = new Int32Array(n);
  let count = 0;
  // The position each instruction was last added at (+1), so that it is added once per position.
  const mark = new Int32Array(n);
  // Each instruction pushes at most two others the first time it is reached at a position.
  const stack = new Int32Array(2 * n + 1);
  const len = text.length;

  /** @param {number} kind @param {number} at */
  const holds = (kind, at) => {
    switch (kind) {
      case BEGIN:
        return at === 0;
      case END:
        return at === len;
      default: {
        const before = at > 0 && isWord(text.charCodeAt(at - 1));
        const after = at < len && isWord(text.charCodeAt(at));
        return before !== after;
      }
    }
  };

  /**
   * Adds the thread at `start`, and every thread it reaches without reading, at position `at` to the
   * `size` threads of `list`; returns the new size, or -1 when a match was reached.
   * @param {Int32Array} list
   * @param {number} size
   * @param {number} start
   * @param {number} at
   */
  const addThread = (list, size, start, at) => {
    let top = 0;
    stack[top++] = start;
    while (top > 0) {
      const pc = stack[--top];
      if (mark[pc] === at + 1) continue;
      mark[pc] = at + 1;
      switch (op[pc]) {
        case CHAR:
          list[size++] = pc;
          break;
        case MATCH:
          return -1;
        case JUMP:
          stack[top++] = a[pc];
          break;
        case SPLIT:
          stack[top++] = b[pc];
          stack[top++] = a[pc];
          break;
        case ASSERT:
          if (holds(a[pc], at)) stack[top++] = pc + 1;
          break;
      }
    }
    return size;
  };

  for (let at = 0; ; ) {
    if (at === 0 || !anchored) {
      count = addThread(current, count, 0, at);
      if (count < 0) return true;
    }
    if (at >= len || (count === 0 && anchored)) return false;
    const code = unicode ? /** @type {number} */ (text.codePointAt(at)) : text.charCodeAt(at);
    const width = code > 0xffff ? 2 : 1;
    let size = 0;
    for (let k = 0; k < count; k++) {
      const pc = current[k];
      if (matches(atoms[a[pc]], code, unicode)) {
        size = addThread(next, size, pc + 1, at + width);
        if (size < 0) return true;
      }
    }
    [current, next] = [next, current];
    count = size;
    at += width;
  }
}

/**
 * @param {Atom} atom
 * @param {number} code
 * @param {boolean} unicode
 */
function matches(atom, code, unicode) {
  if ('code' in atom) return atom.code === code;
  let hit = atom.seen.get(code);
  if (hit === undefined) {
    hit = atom.test.test(unicode ? String.fromCodePoint(code) : String.fromCharCode(code));
    if (atom.seen.size >= 4096) atom.seen.clear();
    atom.seen.set(code, hit);
  }
  return hit;
}
