/**
 * The live partial value: applies the change operations of the core's stream view to a plain
 * object, so each chunk costs time proportional to what it changed. Objects are built as `JSON.parse`
 * builds them: a `"__proto__"` key is an own property and no prototype is ever changed.
 */
import { OPS } from '../pkg/vocabulary.js';

/** Operation codes, as the core writes them. */
const { RESET, OBJECT, ARRAY, CLOSE, KEY, STRING, APPEND, END_STRING, SCALAR, WRAP } = OPS;

type Container = Record<string, unknown> | unknown[];
type Schema = Record<string, unknown> | boolean | undefined;

/** Where a string value lives, whether it is held back until complete, and what it is then coerced to. */
interface StringSlot {
  readonly parent: Container | undefined;
  readonly key: string | number;
  readonly held: boolean;
  readonly coerceTo: 'integer' | 'number' | 'boolean' | undefined;
  text: string;
}

/** Which string coercions the partial value makes, as `extract` would with the same options. */
export interface ScalarCoercions {
  readonly integer: boolean;
  readonly number: boolean;
  readonly boolean: boolean;
}

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** A complete string as `extract` coerces it toward `to`, or the string itself when it does not read as one. */
function coerced(text: string, to: 'integer' | 'number' | 'boolean'): unknown {
  const t = text.trim();
  if (to === 'boolean') return /^true$/i.test(t) ? true : /^false$/i.test(t) ? false : text;
  if (!NUMBER.test(t)) return text;
  const n = Number(t);
  return Number.isFinite(n) && (to === 'number' || Number.isInteger(n)) ? n : text;
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

/** A shallow copy of `live` whose containers are replaced by their latest snapshots. */
function copyOf(live: Container, copies: WeakMap<Container, Container>): Container {
  const latest = (v: unknown): unknown => (isContainer(v) ? (copies.get(v) ?? v) : v);
  if (Array.isArray(live)) return live.map(latest);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(live)) put(out, key, latest(live[key]));
  return out;
}

/**
 * A subset of JSON Schema navigation, enough to know where enum strings go: `properties`,
 * `additionalProperties`, `items`/`prefixItems` (and draft 7's array form), local `$ref`, and the
 * branches of `allOf`/`anyOf`/`oneOf`.
 */
class SchemaWalk {
  readonly #root: Schema;

  constructor(root: Schema) {
    this.#root = root;
  }

  #resolve(s: Schema, hops = 0): Schema {
    if (typeof s !== 'object' || s === null || typeof s.$ref !== 'string' || hops > 32) return s;
    const ref = s.$ref;
    if (!ref.startsWith('#')) return undefined;
    let node: unknown = this.#root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    }
    return this.#resolve(node as Schema, hops + 1);
  }

  /** The schema and its combinator branches, resolved. */
  #variants(s: Schema): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    const visit = (x: Schema, depth: number) => {
      const r = this.#resolve(x);
      if (typeof r !== 'object' || r === null || depth > 8) return;
      out.push(r);
      for (const k of ['allOf', 'anyOf', 'oneOf']) {
        const list = r[k];
        if (Array.isArray(list)) for (const b of list) visit(b as Schema, depth + 1);
      }
    };
    visit(s, 0);
    return out;
  }

  /** The schemas that may describe member `key` of an object, or element `index` of an array. */
  child(schemas: readonly Schema[], key: string | number): Schema[] {
    const out: Schema[] = [];
    for (const s of schemas) {
      for (const v of this.#variants(s)) {
        if (typeof key === 'string') {
          const props = v.properties as Record<string, Schema> | undefined;
          if (props && Object.hasOwn(props, key)) out.push(props[key]);
          else if (v.additionalProperties !== undefined) out.push(v.additionalProperties as Schema);
        } else if (Array.isArray(v.prefixItems) && key < v.prefixItems.length) {
          out.push(v.prefixItems[key] as Schema);
        } else if (Array.isArray(v.items)) {
          out.push((key < v.items.length ? v.items[key] : v.additionalItems) as Schema);
        } else if (v.items !== undefined) {
          out.push(v.items as Schema);
        }
      }
    }
    return out;
  }

  /**
   * The type a string here is coerced to when it is complete (as `extract` coerces it): integer, number or
   * boolean where the schemas name only such types, none of them string.
   */
  coercedScalar(schemas: readonly Schema[]): 'integer' | 'number' | 'boolean' | undefined {
    const types = new Set<unknown>();
    for (const s of schemas) {
      for (const v of this.#variants(s)) {
        if (Array.isArray(v.type)) for (const t of v.type) types.add(t);
        else if (v.type !== undefined) types.add(v.type);
      }
    }
    if (types.has('string')) return undefined;
    return types.has('number')
      ? 'number'
      : types.has('integer')
        ? 'integer'
        : types.has('boolean')
          ? 'boolean'
          : undefined;
  }

  /** Whether a string here must be one of a fixed set (`enum` or `const`), so a prefix would mislead. */
  isEnumString(schemas: readonly Schema[]): boolean {
    return schemas.some((s) =>
      this.#variants(s).some(
        (v) => (Array.isArray(v.enum) && v.enum.some((e) => typeof e === 'string')) || typeof v.const === 'string',
      ),
    );
  }
}

/** The live value and the position of the next change in it. */
export class PartialValue {
  /** The root value; `undefined` until the JSON starts. */
  root: unknown = undefined;
  readonly #stack: Container[] = [];
  /** Schemas for each open container (when a schema was given). */
  readonly #schemas: Schema[][] = [];
  readonly #walk: SchemaWalk | undefined;
  readonly #rootSchema: Schema[];
  #key: string | undefined;
  #string: StringSlot | undefined;
  /**
   * With snapshots: the latest copy of each live container, the containers a batch of operations may have
   * changed (every one on the stack at some point of it, parents before children), and the root's copy.
   */
  readonly #copies: WeakMap<Container, Container> | undefined;
  readonly #dirty: Container[] = [];
  #snapshot: unknown = undefined;

  readonly #coercions: ScalarCoercions | undefined;

  constructor(schema?: object, snapshots = false, coercions?: ScalarCoercions) {
    this.#walk = schema === undefined ? undefined : new SchemaWalk(schema as Schema);
    this.#coercions = coercions;
    this.#rootSchema = schema === undefined ? [] : [schema as Schema];
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

  /** Places `value` as the next value; returns its parent and key. */
  #place(value: unknown, hold = false): [Container | undefined, string | number] {
    const parent = this.#stack[this.#stack.length - 1];
    if (parent === undefined) {
      if (!hold) this.root = value;
      return [undefined, 0];
    }
    let key: string | number;
    if (Array.isArray(parent)) key = parent.length;
    else key = this.#key ?? '';
    if (!hold) put(parent, key, value);
    return [parent, key];
  }

  /** Schemas of the next value (empty without a schema). */
  #nextSchemas(): Schema[] {
    if (this.#walk === undefined) return [];
    const parent = this.#stack[this.#stack.length - 1];
    if (parent === undefined) return this.#rootSchema;
    const at = this.#schemas[this.#schemas.length - 1];
    return this.#walk.child(at, Array.isArray(parent) ? parent.length : (this.#key ?? ''));
  }

  /** Applies the operations `ops[from..]`. */
  apply(ops: readonly unknown[], from: number): void {
    const snapshots = this.#copies !== undefined && from < ops.length;
    // Every change happens at the top of the stack: the stack is the path of containers to copy again.
    if (snapshots) this.#dirty.push(...this.#stack);
    for (let i = from; i < ops.length; ) {
      switch (ops[i++]) {
        case RESET:
          this.root = undefined;
          this.#stack.length = 0;
          this.#schemas.length = 0;
          this.#key = undefined;
          this.#string = undefined;
          this.#dirty.length = 0;
          break;
        case OBJECT:
        case ARRAY: {
          const c: Container = ops[i - 1] === OBJECT ? {} : [];
          const schemas = this.#nextSchemas();
          this.#place(c);
          this.#stack.push(c);
          this.#schemas.push(schemas);
          if (snapshots) this.#dirty.push(c);
          break;
        }
        case CLOSE:
          this.#stack.pop();
          this.#schemas.pop();
          break;
        case KEY:
          this.#key = ops[i++] as string;
          break;
        case STRING: {
          const text = ops[i++] as string;
          let held = false;
          let coerceTo: StringSlot['coerceTo'];
          if (this.#walk !== undefined) {
            const schemas = this.#nextSchemas();
            // A string the schema wants as a number or boolean is shown complete and coerced, never as text.
            coerceTo = this.#walk.coercedScalar(schemas);
            if (coerceTo !== undefined && this.#coercions?.[coerceTo] !== true) coerceTo = undefined;
            held = coerceTo !== undefined || this.#walk.isEnumString(schemas);
          }
          const [parent, key] = this.#place(text, held);
          this.#string = { parent, key, held, coerceTo, text };
          break;
        }
        case APPEND: {
          const s = this.#string!;
          s.text += ops[i++] as string;
          if (!s.held) {
            if (s.parent === undefined) this.root = s.text;
            else put(s.parent, s.key, s.text);
          }
          break;
        }
        case END_STRING: {
          const s = this.#string!;
          if (s.held) {
            const value = s.coerceTo === undefined ? s.text : coerced(s.text, s.coerceTo);
            if (s.parent === undefined) this.root = value;
            else put(s.parent, s.key, value);
          }
          this.#string = undefined;
          break;
        }
        case SCALAR:
          this.#place(ops[i++]);
          break;
        case WRAP: {
          const wrapper = [this.root];
          this.root = wrapper;
          this.#stack.unshift(wrapper);
          this.#schemas.unshift([]);
          // The new root is the parent of everything: copied last.
          if (snapshots) this.#dirty.unshift(wrapper);
          break;
        }
        default:
          throw new Error(`llm-response-sanitizer: unknown partial-value operation ${String(ops[i - 1])}`);
      }
    }
    if (snapshots) this.#refresh();
  }
}
