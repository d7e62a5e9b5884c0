/**
 * The one door to the WebAssembly module: every other module imports this file, never the generated
 * bindings. It owns initialization (synchronous from bytes in Node, fetched in browsers) and decodes the
 * binding layer's results, which cross as one string so that `JSON.parse` builds every object.
 */
import initAsync, {
  adoptInstance,
  compiledModule,
  detachFinalizer,
  initSync,
  instanceImports,
  inputBuffer,
  inputForm,
  outputAddress,
  repairText,
  Cleaner,
  PartialJson,
  Schema,
  type InitOutput,
} from '../pkg/llm_response_sanitizer.js';
import { CLEAN_FLAGS, FORMS, REPAIR_KIND_INFO } from '../pkg/vocabulary.js';
import type { RepairKind, RepairRecord } from './repair.js';
import { ModuleTrapError } from './errors.js';
import { hasLoneSurrogate } from './surrogates.js';

let ready = false;
let exports: InitOutput | undefined;
let pending: Promise<void> | undefined;

/** Initializes the module from bytes or a compiled module (Node entry). */
export function initFromBytes(bytes: ArrayBuffer | ArrayBufferView | WebAssembly.Module): void {
  if (ready) return;
  exports = initSync({ module: bytes });
  ready = true;
}

/** Initializes the module by fetching it (browser entry); idempotent and safe to call concurrently. */
export function initFromUrl(
  url: URL | string | Request | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module,
): Promise<void> {
  if (ready) return Promise.resolve();
  pending ??= initAsync({ module_or_path: url }).then(
    (out) => {
      exports = out;
      ready = true;
    },
    (error: unknown) => {
      // A failed load can be tried again (from another source).
      pending = undefined;
      throw error;
    },
  );
  return pending;
}

/** Whether the module is ready. */
export function isReady(): boolean {
  return ready;
}

function assertReady(): void {
  if (!ready) {
    if (generation > 0) {
      throw new ModuleTrapError(
        'recreating',
        'llm-response-sanitizer: the WebAssembly module is being re-created after a trap; `await init()` and call again',
      );
    }
    throw new Error('llm-response-sanitizer: the WebAssembly module is not initialized yet; call `await init()` first');
  }
}

/** How many times the instance has been re-created after a trap: a core object made under an earlier one is stale. */
let generation = 0;

/** What the glue's objects have beyond the declarations: the address of their Rust value. */
interface GlueObject {
  __wbg_ptr: number;
}
/** A dropped core object: where its Rust value is, how to free it, and in which instance. */
interface Dropped {
  at: number;
  free: keyof Pick<InitOutput, '__wbg_cleaner_free' | '__wbg_partialjson_free' | '__wbg_schema_free'>;
  made: number;
}
/**
 * Frees the Rust value of a core object that was dropped without `free()`, unless the instance it lived in
 * is gone. The glue's own finalizer would free that address in whatever instance is current, so `own`
 * takes every object off it: after a re-creation, the same addresses belong to the new instance's objects.
 */
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<Dropped>((d) => {
        if (d.made === generation) exports![d.free](d.at, 1);
      })
    : undefined;

/** Takes over the finalization of `core`, a new object of the current instance; returns how to free it now. */
function own(core: object, free: Dropped['free']): () => void {
  const made = generation;
  detachFinalizer(core);
  finalizer?.register(core, { at: (core as GlueObject).__wbg_ptr, free, made }, core);
  let freed = false;
  return () => {
    if (freed) return;
    freed = true;
    finalizer?.unregister(core);
    // An object of an earlier instance has nothing to free: its memory went with that instance.
    if (made === generation) (core as { free(): void }).free();
  };
}

/**
 * Re-creates the instance after a trap: a new instance of the same compiled module under the same glue
 * (`scripts/build.sh` adds the three glue exports this uses). Synchronous where the host allows it; a
 * browser's main thread may refuse to instantiate a large module synchronously, and then it happens in the
 * background while calls throw `recreating`.
 */
function recreate(): void {
  generation++;
  input = undefined;
  inputIs = FORMS.utf8;
  memoryView = undefined;
  const module = compiledModule();
  try {
    exports = adoptInstance(new WebAssembly.Instance(module, instanceImports()));
  } catch {
    ready = false;
    pending = WebAssembly.instantiate(module, instanceImports()).then(
      (instance) => {
        exports = adoptInstance(instance);
        ready = true;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    pending.catch(() => {});
  }
}

/**
 * What a call into the instance that threw must throw: the error itself, unless the instance trapped or the
 * host's stack ran out inside it (which leaves the instance's own stack and borrow flags as they were at
 * that moment); then the instance is re-created and the caller gets a `ModuleTrapError`.
 */
function afterTrap(error: unknown): unknown {
  const name = (error as { name?: unknown } | null)?.name;
  if (!(error instanceof WebAssembly.RuntimeError || error instanceof RangeError || name === 'InternalError')) {
    return error;
  }
  recreate();
  return new ModuleTrapError(
    'trapped',
    `llm-response-sanitizer: the WebAssembly module trapped (${String(error)}) and has been re-created; this call has no result, later calls work, and a StreamCleaner or PartialJsonParser made before must be made again`,
    error,
  );
}

/**
 * Calls `call(arg)` on the current instance, turning a trap into a `ModuleTrapError`. The argument is passed
 * through, so that a stream's push hands over a function made once rather than a new closure per chunk.
 */
function enter<R, A = undefined>(call: (arg: A) => R, arg?: A): R {
  try {
    return call(arg as A);
  } catch (error) {
    throw afterTrap(error);
  }
}

/** A core object's methods: each throws `stale` once the instance it was made in is gone, and enters as above. */
function stateful(what: string): <R, A = undefined>(call: (arg: A) => R, arg?: A) => R {
  const made = generation;
  return (call, arg) => {
    if (made !== generation) {
      throw new ModuleTrapError(
        'stale',
        `${what}: made before the WebAssembly module trapped and was re-created, its state is lost; make a new one`,
      );
    }
    return enter(call, arg);
  };
}

const encoder = new TextEncoder();

/** What Node's `Buffer` offers here: a view of memory that writes a string in a named encoding. */
interface NodeBufferClass {
  from(
    memory: ArrayBuffer,
    offset?: number,
    length?: number,
  ): Uint8Array & {
    write(text: string, offset: number, encoding: 'latin1' | 'utf16le' | 'utf8'): number;
    toString(encoding: 'latin1' | 'utf16le' | 'utf8', start?: number, end?: number): string;
  };
}
/**
 * Node's `Buffer` when running in Node. It copies a string into memory as V8 stores it, Latin-1 or
 * UTF-16, about ten times faster than `TextEncoder.encodeInto` transcodes it to UTF-8 (measured on 2 KB
 * responses: 0.08 against 0.83 µs); the core transcodes instead (`src/encoding.rs`).
 */
const NodeBuffer = (globalThis as { Buffer?: NodeBufferClass }).Buffer;
/** The host's Node major version; 0 where it reports none (`process.versions.node`). */
const NODE_MAJOR =
  Number((globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node?.split('.')[0]) || 0;
/**
 * Node 24 and later decode UTF-8 several times faster than before (2 KB of text: 0.35–0.46 µs in Node 24 and
 * 26, against 1.6–3.7 µs in Node 20 and 22, whatever the script), so there results beyond Latin-1 come as
 * UTF-8 (see `narrowForm` and `outputText`) rather than widened to UTF-16 in the core. A host that reports
 * no Node version keeps the forms of Node 20.
 */
const FAST_UTF8 = NodeBuffer !== undefined && NODE_MAJOR >= 24;
/**
 * Node 26 and later also encode UTF-8 fast (`Buffer.write`, 2 KB beyond Latin-1: 0.23–0.27 µs, against 0.8
 * in Node 20 and 22 and 1.5 in Node 24): text beyond Latin-1 goes in as UTF-8, which the core reads as it
 * is, rather than as UTF-16 it transcodes (2 KB repairs with typographic, CJK and Cyrillic strings,
 * Node 26: `parseAndRepair` 0.81–0.94 the time, `repairJson` 0.73–0.92, `parseDetailed` 0.88–0.98; 1 MB
 * streamed in 100-character chunks 0.93–1.00).
 */
const FAST_UTF8_WRITE = FAST_UTF8 && NODE_MAJOR >= 26;
/** A character beyond Latin-1. V8 answers at once for a string it stores as Latin-1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at U+0000 on purpose
const BEYOND_LATIN1 = /[^\x00-\xff]/;

/** A view of the core's input buffer, reused while it is big enough and the memory has not grown. */
let input: ReturnType<NodeBufferClass['from']> | Uint8Array | undefined;
/** The form (a code of `FORMS`) the core was last told the input comes in. */
let inputIs: number = FORMS.utf8;

/**
 * Up to this many UTF-16 units a string is copied by a loop here, in any host: a call into Node's `Buffer`
 * or `encodeInto` costs more than the copy for a stream's short chunks (100 KB in 10-character chunks:
 * 7.9–8.4 against 8.9 ms), the same at 20 and 24 characters, and less from about 32 (4.8–4.9 against
 * 4.6–4.8 ms).
 */
const SHORT = 24;

/**
 * Writes `text` into the core's input buffer and returns its length: as V8 stores the string, after its
 * first `text.length` bytes (the core transcodes it in place), Latin-1 (the length in characters) or
 * UTF-16 (in code units), for a {@link SHORT} string by a loop and in Node by `Buffer`; otherwise UTF-8
 * (the length in bytes) with `encodeInto` (several times faster than the generated glue's per-character
 * copy), and in Node 26 and later with `Buffer` for text beyond Latin-1 ({@link FAST_UTF8_WRITE}) unless
 * `wide`: UTF-8 the host wrote is checked in the core, where text it transcodes is not, and for a whole text
 * to clean the check cost more than the transcoding (Node 26, 50 KB of reasoning in Chinese: `clean()` 0.67
 * the time as UTF-16; with typographic punctuation 0.91; a stream's chunks of 40 and 100 characters took
 * longer so, and stay UTF-8). Lone surrogates become U+FFFD, as with any UTF-8 encoding.
 */
function writeInput(text: string, wide = false): number {
  assertReady();
  const n = text.length;
  if (n <= SHORT) return writeShort(text);
  const form =
    NodeBuffer === undefined
      ? FORMS.utf8
      : BEYOND_LATIN1.test(text)
        ? FAST_UTF8_WRITE && !wide
          ? FORMS.utf8
          : FORMS.utf16
        : FORMS.latin1;
  // At most 3 bytes of UTF-8 per UTF-16 code unit; Latin-1 goes after its length, in twice its length,
  // UTF-16 after its length, in three times its length.
  const view = inputView(form === FORMS.latin1 ? n * 2 : n * 3);
  setInputForm(form);
  const buffer = view as ReturnType<NodeBufferClass['from']>;
  if (form === FORMS.utf8)
    return NodeBuffer === undefined ? encoder.encodeInto(text, view).written : buffer.write(text, 0, 'utf8');
  return form === FORMS.latin1 ? buffer.write(text, n, 'latin1') : buffer.write(text, n, 'utf16le') >> 1;
}

/**
 * {@link writeInput} for a short `text`, in one pass while it is Latin-1: the bytes go in as they are
 * read, and only a unit beyond Latin-1 sends the copy back to the start as UTF-16.
 */
function writeShort(text: string): number {
  const n = text.length;
  const view = inputView(SHORT * 3);
  for (let i = 0; i < n; i++) {
    const unit = text.charCodeAt(i);
    if (unit > 0xff) {
      // Text results then come as UTF-16 too (see `outputText`): only where they can be read so.
      if (!WIDE_RESULTS) {
        setInputForm(FORMS.utf8);
        return encoder.encodeInto(text, view).written;
      }
      for (let k = 0; k < n; k++) {
        const u = text.charCodeAt(k);
        view[n + 2 * k] = u & 0xff;
        view[n + 2 * k + 1] = u >> 8;
      }
      setInputForm(FORMS.utf16);
      return n;
    }
    view[n + i] = unit;
  }
  setInputForm(FORMS.latin1);
  return n;
}

/** Tells the core the form of the next input, if it is not the one it was last told. */
function setInputForm(form: number): void {
  if (form !== inputIs) {
    inputForm(FAST_UTF8 ? form | FORMS.textAsUtf8 : form);
    inputIs = form;
  }
}

/** A view of the core's input buffer at least `capacity` bytes long. */
function inputView(capacity: number): ReturnType<NodeBufferClass['from']> | Uint8Array {
  // A view whose memory grew since reads as empty (the old buffer is detached).
  const stale = input === undefined || input.length < capacity;
  if (stale || (input!.length > 1 << 20 && input!.length > capacity * 8)) {
    // The core (re)allocates only here, so a cached view stays valid until the next call.
    const at = inputBuffer(capacity);
    const now = exports!.memory.buffer;
    input = NodeBuffer === undefined ? new Uint8Array(now, at, capacity) : NodeBuffer.from(now, at, capacity);
  }
  return input!;
}

/** Keeps a leading U+FEFF: it is text the core returned, not a byte order mark to drop. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
/**
 * For results in UTF-16 where there is no `Buffer` (see `narrowForm`); `undefined` where `TextDecoder` reads
 * no UTF-16, and results then stay ASCII. Not made where `Buffer` decodes them: in Node its construction
 * alone took 0.22–0.40 ms of every cold start.
 */
const utf16Decoder =
  NodeBuffer !== undefined
    ? undefined
    : (() => {
        try {
          return new TextDecoder('utf-16le', { ignoreBOM: true });
        } catch {
          return undefined;
        }
      })();
/**
 * Whether this host reads results in UTF-16 (with `Buffer`, or a `TextDecoder` for it): only then is the
 * input ever written as UTF-16, after which the core writes text results so (see `outputText`).
 */
const WIDE_RESULTS = NodeBuffer !== undefined || utf16Decoder !== undefined;
/** A view of all of linear memory: a Node `Buffer` where there is one (it decodes results), else bytes. */
let memoryView: ReturnType<NodeBufferClass['from']> | Uint8Array | undefined;

/** {@link memoryView}, made again after the memory grew (the old view then reads as empty). */
function wholeMemory(): ReturnType<NodeBufferClass['from']> | Uint8Array {
  if (memoryView === undefined || memoryView.length === 0) {
    const buffer = exports!.memory.buffer;
    memoryView = NodeBuffer === undefined ? new Uint8Array(buffer) : NodeBuffer.from(buffer);
  }
  return memoryView;
}

/**
 * Whether a result the core wrote in a form it decides (`narrow`, `narrowAscii`, `text`) came as UTF-16:
 * the ASCII letter a result starts with is followed by 0 only then (the core's `Form::Narrow`).
 */
function cameWide(view: Uint8Array, at: number, len: number): boolean {
  return len >= 2 && view[at + 1] === 0;
}

/**
 * The `len` bytes the core left in its output buffer in `form` (see `narrowForm`), decoded from a view of
 * linear memory: in Node, Latin-1 and UTF-16 by `Buffer`, and UTF-8 too where it decodes it fast (for short
 * results a `Buffer` call costs less than a `TextDecoder`'s view); elsewhere UTF-8 and ASCII by
 * `TextDecoder`, and UTF-16 by its UTF-16 decoder.
 */
function readOutput(len: number, form: number): string {
  const at = outputAddress();
  if (
    NodeBuffer !== undefined &&
    (form === FORMS.latin1 ||
      form === FORMS.utf16 ||
      form === FORMS.narrow ||
      form === FORMS.text ||
      (form === FORMS.utf8 && FAST_UTF8))
  ) {
    const memory = wholeMemory() as ReturnType<NodeBufferClass['from']>;
    if (form === FORMS.utf8) return memory.toString('utf8', at, at + len);
    const wide = form === FORMS.utf16 || ((form === FORMS.narrow || form === FORMS.text) && cameWide(memory, at, len));
    return memory.toString(wide ? 'utf16le' : 'latin1', at, at + len);
  }
  const bytes = new Uint8Array(exports!.memory.buffer, at, len);
  if (form === FORMS.utf16 || (form === FORMS.narrowAscii && cameWide(bytes, 0, len)))
    return utf16Decoder!.decode(bytes);
  return decoder.decode(bytes);
}

/** What the core returns for no text in its output buffer (`u32::MAX`). */
const NO_TEXT = 0xffffffff;

/**
 * The text a core call left in the output buffer, by the length it returned; `undefined` for
 * {@link NO_TEXT}. UTF-16 while the input is written so, else UTF-8; UTF-8 always where it decodes fast
 * (`FAST_UTF8`, which {@link setInputForm} tells the core with `FORMS.textAsUtf8`): the rule the core
 * writes it by (its `output_text`). Read before the next call, which may write the buffer again.
 */
function outputText(len: number): string | undefined {
  return len === NO_TEXT ? undefined : readOutput(len, outputForm());
}

/** The form {@link outputText} reads text in. */
function outputForm(): number {
  return inputIs === FORMS.utf16 && !FAST_UTF8 ? FORMS.utf16 : FORMS.utf8;
}

/**
 * The form the core writes JSON text in when only its value is wanted (`narrow`), which the host decodes
 * several times faster than UTF-8: in Node, characters up to U+00FF as Latin-1 bytes (read with `Buffer`,
 * and `JSON.parse` reads such strings without unescaping), the rest as `\u` escapes; in browsers, every
 * non-ASCII character as a `\u` escape. A stream's `changes` after text beyond Latin-1 come as UTF-16
 * instead, one copy into a string whose pieces then need no `JSON.parse` (measured 0.85–0.96× the time on
 * typographic and CJK streams). A whole value after such text comes in the `narrow` form: UTF-16 where its
 * text is dense in those characters (CJK, Cyrillic: 0.71–0.80× the time), Latin-1 with escapes where they
 * are few, as typographic punctuation in English (widening a mostly ASCII result costs more than the
 * escapes of a few characters: 0.3–0.6 µs more with one em dash in 2 KB). Browsers get the same choice
 * between UTF-16 and ASCII with escapes (`narrowAscii`): their `TextDecoder` has no Latin-1. The JSON text
 * itself (not `narrow`: `repairJson`, `parseDetailed`) comes exactly: as UTF-16 after input written so
 * (one copy into a string, where V8's UTF-8 decoder took most of the time of repairing prose in Chinese or
 * Russian: 0.56 the time, typographic English 0.83–0.88); otherwise in Node as Latin-1 when every character
 * fits, else UTF-16 (`text`: `repairJson` on Latin-1 text 0.80 the time), elsewhere as UTF-8. In Node 24 and
 * later, results after text beyond Latin-1 come as UTF-8 instead of UTF-16, Latin-1 with escapes or the
 * `narrow` choice between them: the core copies its UTF-8 as it is and `Buffer` decodes it in a fraction of
 * the time it took the core to widen it (Node 24, 2 KB repairs with typographic, CJK and Cyrillic strings:
 * `parseAndRepair` 0.85–0.91 the time, `repairJson` 0.79–0.93, `parseDetailed` 0.90–0.96; a stream of 1 MB
 * in 100-character chunks 0.94–0.96, of 100 KB in 10-character chunks the same time). Call it after
 * `writeInput`.
 */
function narrowForm(narrow: boolean, changes = false): number {
  // After text beyond Latin-1, where UTF-8 decodes fast (`FAST_UTF8`), every result comes as UTF-8.
  const wide = inputIs === FORMS.utf16 || (inputIs === FORMS.utf8 && NodeBuffer !== undefined);
  if (!narrow)
    return wide ? (FAST_UTF8 ? FORMS.utf8 : FORMS.utf16) : NodeBuffer !== undefined ? FORMS.text : FORMS.utf8;
  if (NodeBuffer === undefined) return utf16Decoder === undefined ? FORMS.ascii : FORMS.narrowAscii;
  if (!wide) return FORMS.latin1;
  return FAST_UTF8 ? FORMS.utf8 : changes ? FORMS.utf16 : FORMS.narrow;
}

/** Bytes of linear memory the core holds (it grows, never shrinks): a diagnostic for leak checks. */
export function wasmMemorySize(): number {
  assertReady();
  return exports!.memory.buffer.byteLength;
}

/** A successful repair as decoded from the binding. */
export interface RawRepairOk {
  ok: true;
  /** The input was valid JSON: `header` and `json` are empty (the caller has the text). */
  valid: boolean;
  header: string;
  json: string;
  /** With a report, its repairs, four numbers each (see {@link withMessages}); otherwise empty. */
  repairs: number[];
}

/** A failed repair as decoded from the binding. */
export interface RawRepairErr {
  ok: false;
  error: {
    kind: string;
    message: string;
    detail: string;
    position: number;
    line: number;
    column: number;
    repair?: string;
    limit?: number;
  };
}

/**
 * What the core must see of `text` to judge it against `maxInputLength` (negative: no limit): all of it, or
 * the limit plus one UTF-16 unit, which the core rejects exactly as it rejects the whole text (the error
 * is at index 0). A text over the limit is never copied into wasm memory, which cannot shrink.
 */
function bounded(text: string, maxInputLength: number): string {
  return maxInputLength >= 0 && text.length > maxInputLength + 1 ? text.slice(0, maxInputLength + 1) : text;
}

/**
 * Calls the core's repair. `header` is left as text: callers that want the report parse it. With
 * `narrow`, the JSON is written one byte per character (see `narrowForm`): same value, decoded faster.
 */
export function callRepair(
  text: string,
  maxDepth: number,
  maxInputLength: number,
  forbid: number,
  assumeInvalid: boolean,
  report: boolean,
  narrow: boolean,
): RawRepairOk | RawRepairErr {
  assertReady();
  try {
    const len = writeInput(bounded(text, maxInputLength));
    const form = narrowForm(narrow);
    return readResult(repairText(len, maxDepth, maxInputLength, forbid, assumeInvalid, report, form), form, report);
  } catch (error) {
    throw afterTrap(error);
  }
}

/**
 * A repair result the core left in its output buffer (`total` bytes, `form` as asked), decoded: with
 * `report`, a successful result (`R`) ends with its repairs as numbers ({@link splitRepairs}).
 */
function readResult(total: number, form: number, report: boolean): RawRepairOk | RawRepairErr {
  const reported = report && total > 0 && new Uint8Array(exports!.memory.buffer, outputAddress(), 1)[0] === 82; /* R */
  const [len, repairs] = reported ? splitRepairs(total) : [total, NO_REPAIRS];
  return decodeResult(readOutput(len, form), repairs);
}

const NO_REPAIRS: number[] = [];

/**
 * The repairs at the end of a result of `total` bytes in the output buffer (the core's `push_repairs`):
 * four little-endian 32-bit numbers per repair, then their count. Returns the length of the text before
 * them and the numbers. Read where they lie, with nothing to decode or parse.
 */
function splitRepairs(total: number): [number, number[]] {
  const end = outputAddress() + total;
  const view = new DataView(exports!.memory.buffer);
  const count = view.getUint32(end - 4, true);
  const start = end - 4 - 16 * count;
  const numbers = new Array<number>(4 * count);
  for (let i = 0; i < 4 * count; i++) numbers[i] = view.getUint32(start + 4 * i, true);
  return [total - 4 - 16 * count, numbers];
}

/** Cleaner options as the core takes them: validated, defaults filled in, tag pairs flattened. */
export interface CoreCleanOptions {
  /** Start and end tags alternately. */
  tags: string[];
  /** Characters allowed before the opening tag; `Infinity` for no limit. */
  grace: number;
  onlyClosing: boolean;
  prefixes: string[];
  endpointPrefixes: string[];
  timestamp: boolean;
  assistant: boolean;
  trim: boolean;
  thinkOnly: boolean;
  graceFromStart: boolean;
  keepUnclosed: boolean;
}

/** The core's streaming cleaner. Freed by `free()`, or by the module's finalization registry. */
export interface CoreCleaner {
  push(chunk: string): string;
  flush(): string;
  finish(): string;
  reasoning(): string | undefined;
  pendingReasoning(): string | undefined;
  free(): void;
}

/** The cleaner options as the core's constructors take them: the flags, and every tag and prefix in one string. */
function cleanArgs(o: CoreCleanOptions): [items: string, flags: number] {
  let flags = 0;
  for (const name of CLEAN_FLAG_NAMES) if (o[name]) flags |= CLEAN_FLAGS[name];
  // Each ended by a NUL (which `coreOptions` rejects inside them).
  let items = '';
  for (const list of [o.tags, o.prefixes, o.endpointPrefixes]) for (const s of list) items += `${s}\0`;
  return [items, flags];
}

const CLEAN_FLAG_NAMES = Object.keys(CLEAN_FLAGS) as (keyof typeof CLEAN_FLAGS)[];

/**
 * The core cleaner that cleans whole texts (`once`), made for the options of the last call and kept while
 * they stay the same, in the instance it was made in. Off the finalizers: it is freed when replaced.
 */
const whole = {
  core: undefined as Cleaner | undefined,
  /**
   * The options of the last call, the same as those the core was made with: the same object (the defaults
   * are one) needs no comparing.
   */
  options: undefined as CoreCleanOptions | undefined,
  made: -1,
};

/** Whether two validated option sets make the same core cleaner: compared as they are, no string built. */
function sameCleanOptions(a: CoreCleanOptions, b: CoreCleanOptions): boolean {
  if (a.grace !== b.grace) return false;
  for (const name of CLEAN_FLAG_NAMES) if (a[name] !== b[name]) return false;
  return (
    sameList(a.tags, b.tags) && sameList(a.prefixes, b.prefixes) && sameList(a.endpointPrefixes, b.endpointPrefixes)
  );
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((s, i) => s === b[i]);

/**
 * `text` cleaned whole by the core (one push and the finish from a new cleaner's state: the text any chunking
 * gives), with the removed reasoning when `withReasoning`. A cleaner is made only when the options differ
 * from the last call's.
 */
export function cleanWhole(
  text: string,
  o: CoreCleanOptions,
  withReasoning: boolean,
): { text: string; reasoning: string | undefined } {
  assertReady();
  try {
    const w = whole;
    if (w.made !== generation || (w.options !== o && !sameCleanOptions(w.options!, o))) {
      // One of an earlier instance went with it.
      if (w.made === generation) w.core?.free();
      w.core = undefined;
      w.made = -1;
      const [items, flags] = cleanArgs(o);
      const core = new Cleaner(items, o.tags.length, o.prefixes.length, o.grace, flags);
      detachFinalizer(core);
      w.core = core;
      w.made = generation;
    }
    w.options = o;
    const len = writeInput(text, true);
    // Text written as Latin-1 comes back so where `Buffer` decodes it: the fastest form to read.
    const latin1 = inputIs === FORMS.latin1 && NodeBuffer !== undefined;
    // The reasoning is a piece of the text, sliced from it where the core's text has the same units: the
    // core knows after Latin-1 and UTF-16; after UTF-8, a lone surrogate became U+FFFD.
    const span = withReasoning && (inputIs !== FORMS.utf8 || !hasLoneSurrogate(text));
    const out = readOutput(w.core!.once(len, latin1, span), latin1 ? FORMS.latin1 : outputForm());
    if (!withReasoning) return { text: out, reasoning: undefined };
    const start = w.core!.reasoningEdge(false);
    const reasoning =
      start === NO_TEXT ? outputText(w.core!.reasoning()) : text.slice(start, w.core!.reasoningEdge(true));
    return { text: out, reasoning };
  } catch (error) {
    throw afterTrap(error);
  }
}

/** A streaming cleaner in the core. */
export function newCleaner(o: CoreCleanOptions): CoreCleaner {
  assertReady();
  const [items, flags] = cleanArgs(o);
  const core = enter(() => new Cleaner(items, o.tags.length, o.prefixes.length, o.grace, flags));
  const free = own(core, '__wbg_cleaner_free');
  const use = stateful('StreamCleaner');
  const push = (chunk: string) => outputText(core.push(writeInput(chunk))) ?? '';
  return {
    push: (chunk) => use(push, chunk),
    flush: () => use(() => outputText(core.flush()) ?? ''),
    finish: () => use(() => outputText(core.finish()) ?? ''),
    reasoning: () => use(() => outputText(core.reasoning())),
    pendingReasoning: () => use(() => outputText(core.pendingReasoning())),
    free: () => free(),
  };
}

/** The core's streaming JSON parser. Freed by `free()`, or by the module's finalization registry. */
export interface CorePartialJson {
  /**
   * The complete flag and the changes (the binding's `push_changes`), or `E<error>` when the input limit is
   * exceeded; or, for a push that changed nothing or appended to a string only (most pushes of small
   * chunks), those as a {@link QuickChanges}, made here from the chunks without reading wasm memory; or,
   * when the text of every change lies in the chunk and the one before, those as {@link PlacedChanges}.
   */
  push(chunk: string): string | QuickChanges | PlacedChanges;
  /**
   * The result for the whole text. With `shown` (the caller keeps the value the pushes showed, and wants
   * no report), where that value completed is the result: the changes that complete it, as a push
   * returns them, instead.
   */
  finish(report: boolean, narrow: boolean, shown?: boolean): RawRepairOk | RawRepairErr | string;
  /** The error the parse has stopped with so far, in the binding's `E` format. */
  error(): RawRepairErr['error'] | undefined;
  /** The text pushed so far, as the core holds it (a lone surrogate became U+FFFD). */
  text(): string;
  /** Shows the value by `schema` (before the first chunk): fixed strings whole, wanted scalars coerced. */
  setSchema(schema: CoreSchema, forbidCoercions: string): void;
  free(): void;
}

/** A push's changes when they are none or one append to the string being read. */
export interface QuickChanges {
  complete: boolean;
  /** The text appended to the string being read, as it stands between its quotes (escapes kept). */
  append: string | undefined;
}

/**
 * A push's changes whose texts were sliced from the chunk and the one before (the binding's `placed`): the
 * first `count` of `codes` and `texts`. One object per parser, filled again by each push: read it before
 * the next.
 */
export interface PlacedChanges {
  readonly placed: true;
  complete: boolean;
  count: number;
  /** Each change's code (`OPS`). */
  readonly codes: number[];
  /** Each change's text as it stands in the JSON (escapes kept); `''` for a change without text. */
  readonly texts: string[];
}

/**
 * Fills `into` from the `count` numbers the core placed in its output buffer (bits 28–31 the code; for a
 * text, its length in UTF-16 units in bits 14–26 and its start in bits 0–13: units into `part`, or with
 * bit 27 units back from the end of `before`).
 */
function placedChanges(code: number, before: string, part: string, into: PlacedChanges): PlacedChanges {
  const m = wholeMemory();
  const count = code & 0xff;
  let at = outputAddress();
  for (let k = 0; k < count; k++, at += 4) {
    const e = m[at]! | (m[at + 1]! << 8) | (m[at + 2]! << 16) | (m[at + 3]! << 24);
    const len = (e >>> 14) & 0x1fff;
    const pos = e & 0x3fff;
    into.codes[k] = e >>> 28;
    into.texts[k] = chunkText(before, part, (e & 0x08000000) === 0 ? pos : -pos, len);
  }
  into.complete = (code & 0x40000000) !== 0;
  into.count = count;
  return into;
}

/**
 * The `len` UTF-16 units of the chunks `before` then `part` that start `from` units into `part`, or `-from`
 * units back from its start (in `before`): where the core says a quick or placed change's text lies.
 */
function chunkText(before: string, part: string, from: number, len: number): string {
  if (from >= 0) return from === 0 && len === part.length ? part : part.slice(from, from + len);
  const at = before.length + from;
  return at + len <= before.length
    ? before.slice(at, at + len)
    : before.slice(at) + part.slice(0, at + len - before.length);
}

/** A push that changed nothing, by its complete flag. */
const NOTHING: readonly [QuickChanges, QuickChanges] = [
  Object.freeze({ complete: false, append: undefined }),
  Object.freeze({ complete: true, append: undefined }),
];

/**
 * The changes of a push whose result `code` is a quick one (bit 31 set; the binding's `quick_code`), from
 * the chunk `part` and the one before it, `before`: the append is the last units of `before` (bit 28
 * set) or units of `part` from a start (bits 14–27), then `len` units of `part` (bits 0–13).
 */
function quickChanges(code: number, before: string, part: string): QuickChanges {
  const complete = (code & 0x40000000) !== 0;
  if ((code & 0x20000000) === 0) return NOTHING[complete ? 1 : 0];
  const at = (code >>> 14) & 0x3fff;
  const len = code & 0x3fff;
  const append = (code & 0x10000000) === 0 ? chunkText(before, part, at, len) : chunkText(before, part, -at, at + len);
  return { complete, append };
}

/**
 * A failed repair's `E<error>` text, decoded. The core sends the description and the place; the message
 * that names both is composed here rather than in the binding, which keeps that formatting out of the wasm.
 */
export function decodeError(out: string): RawRepairErr['error'] {
  return describedError(JSON.parse(out.slice(1)) as CoreError);
}

/** A core error as the binding sends it: `repairText`'s `E` format without the `E` (see {@link decodeError}). */
export type CoreError = Omit<RawRepairErr['error'], 'message' | 'repair'> & { repair?: number };

/** The error `raw`, as {@link decodeError} decodes it: its message, and a forbidden repair named. */
export function describedError(raw: CoreError): RawRepairErr['error'] {
  const { repair: index, ...e } = raw;
  if (index === undefined) return { ...e, message: placed(e.detail, e) };
  // The core sends a forbidden repair as its place in the vocabulary; its code and description are here.
  const repair = REPAIR_KIND_INFO[index]?.kind ?? String(index);
  const detail = `${e.detail}: ${repair} (${repairDescription(repair)})`;
  return { ...e, repair, detail, message: placed(detail, e) };
}

/** `detail` with the place it names (1-based line and column, UTF-16 index). */
function placed(detail: string, at: { line: number; column: number; position: number }): string {
  return `${detail} (at line ${at.line}, column ${at.column}, index ${at.position})`;
}

const DESCRIPTIONS = new Map<string, string>(REPAIR_KIND_INFO.map((k) => [k.kind, k.description]));

/** The description of the repair kind `kind` (see `repairKinds`). */
export function repairDescription(kind: string | undefined): string {
  return DESCRIPTIONS.get(String(kind)) ?? String(kind);
}

/**
 * The records of a core report, whose `repairs` are four numbers per repair (the kind's index in the
 * vocabulary, position, line, column, as the core writes them), with their messages.
 */
export function withMessages(flat: readonly number[]): RepairRecord[] {
  const out: RepairRecord[] = new Array(flat.length >> 2);
  for (let i = 0; i + 3 < flat.length; i += 4) {
    const info = REPAIR_KIND_INFO[flat[i]!];
    const kind = (info?.kind ?? String(flat[i])) as RepairKind;
    const line = flat[i + 2]!;
    const column = flat[i + 3]!;
    const message = `${info?.description ?? kind} at line ${line}, column ${column}`;
    out[i >> 2] = { kind, position: flat[i + 1]!, line, column, message };
  }
  return out;
}

function decodeResult(out: string, repairs: number[]): RawRepairOk | RawRepairErr {
  const tag = out.charCodeAt(0);
  if (tag === 69 /* E */) return { ok: false, error: decodeError(out) };
  if (tag === 86 /* V */) return { ok: true, valid: true, header: '', json: '', repairs: NO_REPAIRS };
  const nl = out.indexOf('\n');
  return { ok: true, valid: false, header: out.slice(1, nl), json: out.slice(nl + 1), repairs };
}

/** A streaming JSON parser in the core (options as for {@link callRepair}). */
export function newPartialJson(
  maxDepth: number,
  maxInputLength: number,
  forbid: number,
  validUnbounded: boolean,
  reasoningFirst: boolean,
): CorePartialJson {
  assertReady();
  const core = enter(() => new PartialJson(maxDepth, maxInputLength, forbid, validUnbounded, reasoningFirst));
  const free = own(core, '__wbg_partialjson_free');
  const use = stateful('PartialJsonParser');
  // In Node the changes come in a form decoded with one copy (see `narrowForm`); it follows the input's form.
  const changesForm = (): number => narrowForm(NodeBuffer !== undefined, true);
  // UTF-16 units passed on so far: past the limit, the rest of the stream stays out of wasm memory.
  let passed = 0;
  // The chunk passed on last, which a quick append may end.
  let last = '';
  const placed: PlacedChanges = { placed: true, complete: false, count: 0, codes: [], texts: [] };
  const push = (chunk: string): string | QuickChanges | PlacedChanges => {
    const part = maxInputLength < 0 ? chunk : chunk.slice(0, Math.max(0, maxInputLength + 1 - passed));
    passed += part.length;
    const before = last;
    last = part;
    const len = writeInput(part);
    const form = changesForm();
    const out = core.push(len, form);
    if (out < 0x80000000) return readOutput(out, form);
    // Placed changes have no append bit and their count in the low byte, where a quick push that changed nothing has 0.
    return (out & 0x20000000) === 0 && (out & 0xff) !== 0
      ? placedChanges(out, before, part, placed)
      : quickChanges(out, before, part);
  };
  return {
    push: (chunk) => use(push, chunk),
    finish: (report, narrow, shown = false) => {
      const form = narrowForm(narrow);
      const changes = shown ? changesForm() : undefined;
      return use(() => {
        const out = core.finish(report, form, changes);
        return out < 0x80000000 ? readResult(out, form, report) : readOutput(out - 0x80000000, changes!);
      });
    },
    error: () => {
      const e = use(() => outputText(core.error()));
      return e === undefined ? undefined : decodeError(e);
    },
    text: () => use(() => outputText(core.text()) ?? ''),
    setSchema: (schema, forbidCoercions) => {
      const raw = schema.raw as Schema;
      use(() => core.setSchema(raw, forbidCoercions));
    },
    free: () => free(),
  };
}

/** A compile error of the core's schema engine. */
export interface RawSchemaError {
  code: string;
  message: string;
  schemaPath: string;
}

/** The core's compiled schema. Freed by `free()`, or by the module's finalization registry. */
export interface CoreSchema {
  /** `{valid, issues}` as JSON text for the value whose JSON text is given. */
  validate(json: string): string;
  /**
   * The extraction result as JSON text (see `schema::extracted_json`, with `span`), and the repairs of the
   * candidate's text, four numbers each (see {@link withMessages}).
   */
  extract(
    text: string,
    maxDepth: number,
    maxInputLength: number,
    forbid: number,
    forbidCoercions: string,
    skip: number,
  ): { json: string; repairs: number[] };
  /**
   * The wasm object, for the core's other classes to borrow (`PartialJson.setSchema`). Typed `object`: the
   * binding's own declarations name DOM types, and this interface is in the package's public `.d.ts`.
   */
  readonly raw: object;
  free(): void;
}

/** Compiles a schema given as JSON text; returns the core schema or its compile error. */
export function newSchema(
  schemaJson: string,
  draft: string,
  remotesJson: string,
  assertFormat: boolean,
): CoreSchema | RawSchemaError {
  assertReady();
  const compile = () => enter(() => new Schema(writeInput(schemaJson), draft, remotesJson, assertFormat));
  let core = compile();
  const error = enter(() => outputText(core.error()));
  if (error !== undefined) {
    core.free();
    return JSON.parse(error) as RawSchemaError;
  }
  // A schema holds no state of a call, so after a trap it compiles itself again (the same text compiled before).
  let free = own(core, '__wbg_schema_free');
  let made = generation;
  const current = (): Schema => {
    assertReady();
    if (made !== generation) {
      core = compile();
      free = own(core, '__wbg_schema_free');
      made = generation;
    }
    return core;
  };
  return {
    validate: (json) => {
      const schema = current();
      return enter(() => outputText(schema.validate(writeInput(json))) ?? '');
    },
    extract: (text, maxDepth, maxInputLength, forbid, forbidCoercions, skip) => {
      const schema = current();
      return enter(() => {
        const total = schema.extract(
          writeInput(bounded(text, maxInputLength)),
          maxDepth,
          maxInputLength,
          forbid,
          forbidCoercions,
          skip,
        );
        // The JSON text as `outputText` reads it, then the repairs as a report's.
        const [len, repairs] = splitRepairs(total);
        return { json: outputText(len) ?? '', repairs };
      });
    },
    get raw() {
      return current();
    },
    free: () => free(),
  };
}
