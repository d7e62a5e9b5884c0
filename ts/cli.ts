#!/usr/bin/env node
/**
 * The command line: `repair`, `clean` and `extract --schema` on a file or stdin, one response at a
 * time or as a JSONL batch that streams with bounded memory. Node only; the library entry never imports it.
 */
import type * as Library from './node.js';
import type { CleanOptions, RepairOptions, RepairKind, RepairClass } from './node.js';
import type { CompiledSchema, SchemaDraft, SchemaInput } from './schema.js';

/**
 * Node's modules, taken with `process.getBuiltinModule` (the package needs Node 20.19; it came in 20.16)
 * rather than imported: an ES import of a built-in builds its whole export list, and those of `node:fs`,
 * `node:fs/promises` and `node:util` loaded Node's streams and `readline` on every run, whatever the command
 * needed. The figures are in BENCHMARKS.md ("the command line's start").
 */
const fs = process.getBuiltinModule('node:fs');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');

/**
 * The library, loaded by {@link main}: after the program has turned on Node's compile cache (see the end of
 * this file), so that its bundle is compiled from the cache from the second run on.
 */
let lib: typeof Library;

const NAME = 'llm-response-sanitizer';

const HELP = `NAME
    ${NAME} - find, repair and check the JSON in raw LLM responses

SYNOPSIS
    ${NAME} repair  [OPTIONS] [FILE]
    ${NAME} clean   [OPTIONS] [FILE]
    ${NAME} extract --schema SCHEMA [OPTIONS] [FILE]
    ${NAME} COMMAND --jsonl [OPTIONS] [FILE]

DESCRIPTION
    Reads one LLM response from FILE, or from standard input when FILE is absent or "-".

    repair   Prints the JSON value in the response as strict JSON: think blocks, fences and prose around it
             are skipped; trailing commas, quotes, comments, Python literals, truncation and the rest are
             repaired. When there is none, prints a message on standard error and nothing on standard output.
    clean    Prints the response text with its reasoning block, conversational prefixes and outer whitespace
             removed.
    extract  Prints the value the JSON Schema in SCHEMA describes, taken from the response, coerced toward
             the schema (quoted numbers, single values for arrays, ...). When no candidate matches, prints each
             issue on standard error as "PATH: MESSAGE [KEYWORD]".

    The output ends with a newline.

OPTIONS
    --jsonl                  Batch mode (below).
    --indent N               Pretty-print JSON output with N spaces (not with --jsonl).
    --report                 Also list each repair on standard error: KIND: MESSAGE, with its line and column.
    --stats                  At the end, print counts, throughput and peak memory on standard error.
    --from PROVIDER          The input is a provider's API response, not the model's text: openai (a chat
                             completion or a Responses API response), anthropic, gemini, ollama, or auto
                             (told by its shape). Whole (JSON), or its stream as the API sends it (server-
                             sent events; Ollama's JSON lines; Gemini's JSON array). The model's text is
                             read out of it first; a refusal or an API error fails.
    -h, --help               This page.
    --version                The version.

  repair and extract
    --strict                 Accept only valid JSON.
    --forbid LIST            Repair kinds or classes not to make, comma-separated (classes: extraction,
                             syntax, quotes, literals, truncation). A response that needs one fails.
    --allow LIST             Only these repair kinds or classes.
    --max-depth N            Deepest nesting accepted (default 10000).
    --max-input-length N     Longest response accepted, in UTF-16 code units.

  extract
    --schema FILE            The schema (required): a JSON Schema file, or a JavaScript module (.js, .mjs,
                             .cjs) whose default export or export named schema is a JSON Schema or a
                             Standard Schema (zod, valibot, arktype, effect).
    --draft D                Draft for schemas without $schema: 2020-12 (default), 2019-09, 7, 6, 4.
    --no-coerce              Do not coerce toward the schema.
    --assert-format          Check "format" as an assertion.

  clean
    --think-start TAG        Opening tag of the reasoning block (default <think>).
    --think-end TAG          Its closing tag (with --think-start; default </think>).
    --common-think-tags      Any of the common reasoning tags (<think>, <thinking>, <reasoning>, ...).
    --remove-prefix TEXT     Remove TEXT at the start of the response (repeatable).
    --remove-assistant-prefix
                             Remove a leading "Assistant:".
    --remove-timestamp-prefix
                             Remove a leading timestamp.
    --no-trim                Keep trailing whitespace (leading whitespace is always removed).

JSONL MODE
    With --jsonl, each input line is a JSON string holding one raw response (or, with --field PATH, a JSON
    value holding that string at PATH; with --from, a provider's whole response, there or as the line).
    Each output line is
        {"ok":true,"value":VALUE}             the repaired value, the cleaned text, or the extracted value
        {"ok":false,"error":"MESSAGE"}        with "issues" for extract
    in input order, one output line per input line. A bad line never stops the batch. Input and output are
    streamed: memory stays flat however large the input is. On a terminal, progress is shown on standard
    error.

    --field PATH             Read the response from this property of each line's object: a name, or a path
                             of names and array indices joined by dots (response.body, result.message,
                             choices.0.message.content). A name with dots in it is taken whole first.
    --max-line-bytes N       Longer lines fail without being held in memory (default 67108864).

EXIT STATUS
    0   success; with --jsonl, every line succeeded
    1   no JSON could be read, or the value does not match the schema; with --jsonl, some line failed
    2   bad usage, an unreadable file, or a schema that does not compile

EXAMPLES
    curl -s "$URL" | jq -r '.choices[0].message.content' | ${NAME} repair --indent 2
    ${NAME} extract --schema turn.schema.json response.txt
    ${NAME} repair --jsonl --stats responses.jsonl > values.jsonl
    curl -sN "$URL" -d "$STREAMING_REQUEST" | ${NAME} extract --schema turn.schema.json --from auto
    ${NAME} extract --schema turn.mjs --jsonl --field response.body --from openai batch_output.jsonl
`;

/** A usage or input problem: exit status 2. */
class UsageError extends Error {}

interface Io {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** One response processed: the output text, or why not. */
type Outcome =
  | {
      readonly ok: true;
      readonly text: string;
      readonly json: boolean;
      readonly repairs?: readonly { line: number; column: number; kind: string; message: string }[];
    }
  | { readonly ok: false; readonly error: string; readonly issues?: readonly unknown[] };

type Processor = (response: string) => Outcome;

/** A comma-separated list of repair codes; an unknown code is a RangeError from the repair's option check, which names it. */
function list(s: string | undefined): (RepairKind | RepairClass)[] | undefined {
  return s === undefined
    ? undefined
    : (s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '') as (RepairKind | RepairClass)[]);
}

function count(s: string | undefined, name: string): number | undefined {
  if (s === undefined) return undefined;
  if (!/^\d{1,15}$/.test(s)) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(s)}`);
  return Number(s);
}

/**
 * Strict JSON text on one line. Valid JSON comes back from repairJson as written, newlines included; in
 * valid JSON a line break can only be whitespace between tokens (strings escape theirs), and no two tokens
 * need whitespace between them, so dropping the breaks keeps the same value.
 */
function oneLine(json: string): string {
  return json.includes('\n') || json.includes('\r') ? json.replace(/[\r\n]/g, '') : json;
}

function failure(e: unknown): Outcome {
  if (e instanceof lib.JsonRepairError) return { ok: false, error: `${e.message}` };
  return { ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

/**
 * A processor from `run`, after one `probe` call: a bad option then is a usage error, not a failure of
 * every line. Whatever `run` throws becomes that response's failure.
 */
function guarded(probe: () => unknown, run: (response: string) => Outcome): Processor {
  try {
    probe();
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  return (response) => {
    try {
      return run(response);
    } catch (e) {
      return failure(e);
    }
  };
}

function processor(
  command: string,
  values: Record<string, string | boolean | string[] | undefined>,
  schema: CompiledSchema | undefined,
): Processor {
  const repairOptions: RepairOptions = {
    strict: values.strict === true,
    ...(values.forbid === undefined ? {} : { forbid: list(values.forbid as string) }),
    ...(values.allow === undefined ? {} : { allow: list(values.allow as string) }),
    ...(values['max-depth'] === undefined ? {} : { maxDepth: count(values['max-depth'] as string, 'max-depth') }),
    ...(values['max-input-length'] === undefined
      ? {}
      : { maxInputLength: count(values['max-input-length'] as string, 'max-input-length') }),
  };
  const report = values.report === true;
  if (command === 'repair') {
    return guarded(
      () => lib.repairJson('{}', repairOptions),
      (response) => {
        if (!report) return { ok: true, text: oneLine(lib.repairJson(response, repairOptions)), json: true };
        const r = lib.parseDetailed(response, repairOptions);
        return { ok: true, text: oneLine(r.json), json: true, repairs: r.repairs };
      },
    );
  }
  if (command === 'clean') {
    const start = values['think-start'] as string | undefined;
    const end = values['think-end'] as string | undefined;
    if ((start === undefined) !== (end === undefined))
      throw new UsageError('--think-start and --think-end go together');
    if (start !== undefined && values['common-think-tags'] === true)
      throw new UsageError('--common-think-tags does not go with --think-start');
    const options: CleanOptions = {
      ...(start === undefined ? {} : { thinkTags: [{ start, end: end! }] }),
      ...(values['common-think-tags'] === true ? { thinkTags: lib.COMMON_THINK_TAGS } : {}),
      ...(values['remove-prefix'] === undefined
        ? {}
        : { responseStartTextToRemove: values['remove-prefix'] as string[] }),
      removeAssistantPrefix: values['remove-assistant-prefix'] === true,
      removeTimestampPrefix: values['remove-timestamp-prefix'] === true,
      trim: values['no-trim'] !== true,
    };
    return guarded(
      () => lib.clean('', options),
      (response) => ({ ok: true, text: lib.clean(response, options), json: false }),
    );
  }
  const extractOptions = { ...repairOptions, coerce: values['no-coerce'] !== true };
  const compiled = schema!;
  return guarded(
    () => lib.extract('{}', compiled, extractOptions),
    (response) => {
      const r = lib.extract(response, compiled, extractOptions);
      if (r.ok) return { ok: true, text: JSON.stringify(r.value), json: true, repairs: report ? r.repairs : undefined };
      const first = r.issues[0];
      const what =
        first === undefined
          ? 'no value matches the schema'
          : `${first.path === '' ? 'root' : first.path}: ${first.message}`;
      return {
        ok: false,
        error: `${r.issues.length} issue${r.issues.length === 1 ? '' : 's'}; ${what}`,
        issues: r.issues,
      };
    },
  );
}

async function readAll(file: string | undefined, io: Io): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      // Synchronous: one file, read whole; `node:fs/promises` would load `readline` for nothing.
      return fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
    }
  }
  if (io.stdin.isTTY === true) throw new UsageError('no input: give a FILE, or pipe a response to standard input');
  const parts: Buffer[] = [];
  for await (const chunk of io.stdin) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

function byteSource(file: string | undefined, io: Io): AsyncIterable<Buffer> {
  if (file !== undefined && file !== '-') return fs.createReadStream(file, { highWaterMark: 1 << 20 });
  if (io.stdin.isTTY === true) throw new UsageError('no input: give a FILE, or pipe JSONL to standard input');
  return io.stdin as AsyncIterable<Buffer>;
}

/**
 * The lines of a byte stream, `\n` or `\r\n` ended; a last line without a newline counts. A line longer
 * than `maxBytes` is dropped as it arrives and reported as `null`, so memory stays bounded.
 */
async function* lines(source: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<Buffer | null> {
  let parts: Buffer[] = [];
  let size = 0;
  let overlong = false;
  const take = (): Buffer | null => {
    const line = overlong ? null : parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    overlong = false;
    if (line !== null && line.length > 0 && line[line.length - 1] === 0x0d) return line.subarray(0, line.length - 1);
    return line;
  };
  for await (const raw of source) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (!overlong) {
        if (size + (end - pos) > maxBytes) {
          overlong = true;
          parts = [];
          size = 0;
        } else if (end > pos) {
          parts.push(chunk.subarray(pos, end));
          size += end - pos;
        }
      }
      if (nl === -1) break;
      yield take();
      pos = nl + 1;
    }
    // Keep only what is pending; a subarray would pin the whole chunk.
    if (parts.length > 0 && parts[parts.length - 1]!.buffer === chunk.buffer)
      parts[parts.length - 1] = Buffer.from(parts[parts.length - 1]!);
  }
  // A last line without a newline.
  if (size > 0 || overlong) yield take();
}

/** Resolves at the stream's next `drain` or `close`, leaving no listener behind. */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** Writes through a buffer, waiting for `drain` so memory stays bounded; stops quietly when the reader leaves. */
class Output {
  #buffer = '';
  #closed = false;
  /** A write error other than the reader leaving (a full disk, …). */
  error: Error | undefined;
  constructor(readonly stream: NodeJS.WritableStream) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      this.#closed = true;
      if (e.code !== 'EPIPE') this.error = e;
    });
  }
  get closed(): boolean {
    return this.#closed;
  }
  /** Throws the write error, if there was one, as a usage-level failure (exit 2). */
  check(): void {
    if (this.error !== undefined) throw new UsageError(`cannot write the output: ${this.error.message}`);
  }
  async write(s: string): Promise<void> {
    this.#buffer += s;
    if (this.#buffer.length >= 1 << 16) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#buffer === '' || this.#closed) return;
    const text = this.#buffer;
    this.#buffer = '';
    if (!this.stream.write(text)) await drained(this.stream);
  }
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

async function batch(
  run: Processor,
  file: string | undefined,
  values: Record<string, unknown>,
  io: Io,
): Promise<number> {
  const field = values.field as string | undefined;
  const maxBytes = count(values['max-line-bytes'] as string | undefined, 'max-line-bytes') ?? 64 * 1024 * 1024;
  const source = byteSource(file, io);
  const out = new Output(io.stdout);
  const progress = io.stderr.isTTY === true;
  const started = performance.now();
  let n = 0;
  let failed = 0;
  let bytes = 0;
  let shown = started;
  const status = (): string => {
    const s = (performance.now() - started) / 1000;
    return `${n} lines, ${failed} failed, ${mb(bytes)} MB in ${s.toFixed(1)} s (${s > 0 ? (bytes / 1e6 / s).toFixed(1) : '0'} MB/s)`;
  };
  try {
    for await (const line of lines(source, maxBytes)) {
      n++;
      bytes += line === null ? maxBytes : line.length + 1;
      let outcome: Outcome;
      if (line === null) {
        outcome = { ok: false, error: `longer than --max-line-bytes (${maxBytes})` };
      } else {
        outcome = record(run, line.toString('utf8'), field, values.from as From | undefined);
      }
      if (outcome.ok) {
        await out.write(`{"ok":true,"value":${outcome.json ? outcome.text : JSON.stringify(outcome.text)}}\n`);
      } else {
        failed++;
        const error = `line ${n}: ${outcome.error}`;
        await out.write(
          `${JSON.stringify(outcome.issues === undefined ? { ok: false, error } : { ok: false, error, issues: outcome.issues })}\n`,
        );
      }
      if (out.closed) break;
      if (progress && (n & 255) === 0 && performance.now() - shown > 250) {
        shown = performance.now();
        io.stderr.write(`\r\x1b[K${status()}`);
      }
    }
    await out.flush();
  } catch (e) {
    if (progress) io.stderr.write('\r\x1b[K');
    throw new UsageError(`cannot read ${file ?? 'standard input'}: ${(e as Error).message}`);
  }
  out.check();
  if (progress) io.stderr.write('\r\x1b[K');
  if (values.stats === true) {
    io.stderr.write(`${status()}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
  }
  return failed === 0 ? 0 : 1;
}

/** What `--from` names: the provider whose API response holds the model's text, or `auto`. */
type From = 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'auto';
const FROM: readonly From[] = ['openai', 'anthropic', 'gemini', 'ollama', 'auto'];

/** The model's text in a provider's whole response. */
function wholeText(response: unknown, from: From): string {
  switch (from) {
    case 'openai':
      return lib.openAIText(response);
    case 'anthropic':
      return lib.anthropicText(response);
    case 'gemini':
      return lib.geminiText(response);
    case 'ollama':
      return lib.ollamaText(response);
    default:
      return lib.providerText(response);
  }
}

/** A body of server-sent events: its first line a field of one. */
const SSE_BODY = /^\ufeff?\s*(?:data|event|id|retry)?:/;

/**
 * The model's text in a provider's API response: a whole response (JSON), or the stream the API sent (events,
 * Ollama's JSON lines, Gemini's array of chunks), read to its end.
 */
async function responseText(input: string, from: From): Promise<string> {
  let whole: unknown;
  let json = true;
  try {
    whole = JSON.parse(input);
  } catch {
    json = false;
  }
  if (json && !Array.isArray(whole)) return wholeText(whole, from);
  const auto = from === 'auto';
  if (!json && auto && !SSE_BODY.test(input) && !/^\ufeff?\s*\{/.test(input))
    throw new TypeError(
      "--from auto: the input is neither a provider's JSON response nor its stream (server-sent events or JSON lines)",
    );
  const source = json ? (whole as object[]) : [input];
  const format = json ? (auto ? undefined : from) : auto ? (SSE_BODY.test(input) ? 'sse' : 'ollama') : from;
  let text = '';
  for await (const delta of lib.providerTextStream(source, { format: format as Exclude<From, 'auto'> })) text += delta;
  return text;
}

/**
 * The value at `path` in `v`: a property name (taken whole when `v` has it), or names and array indices joined
 * by dots.
 */
function at(v: unknown, path: string): { readonly found: true; readonly value: unknown } | { readonly found: false } {
  const isObject = (o: unknown): o is Record<string, unknown> => o !== null && typeof o === 'object';
  if (isObject(v) && !Array.isArray(v) && Object.hasOwn(v, path)) return { found: true, value: v[path] };
  let value = v;
  for (const step of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(step) && Number(step) < value.length) value = value[Number(step)];
    else if (isObject(value) && !Array.isArray(value) && Object.hasOwn(value, step)) value = value[step];
    else return { found: false };
  }
  return { found: true, value };
}

/** One JSONL line: a JSON string (or a value holding one at `field`; a provider's response with `from`), processed. */
function record(run: Processor, text: string, field: string | undefined, from: From | undefined): Outcome {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, error: `not JSON${text.trim() === '' ? ' (an empty line)' : ''}` };
  }
  if (field !== undefined) {
    const found = at(v, field);
    if (!found.found) return { ok: false, error: `nothing at ${JSON.stringify(field)}` };
    v = found.value;
  }
  if (from !== undefined) {
    try {
      v = wholeText(v, from);
    } catch (e) {
      return failure(e);
    }
  }
  if (typeof v !== 'string') {
    const got = v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
    return { ok: false, error: `expected a JSON string holding a response, got ${got}` };
  }
  return run(v);
}

async function single(
  run: Processor,
  file: string | undefined,
  values: Record<string, unknown>,
  io: Io,
): Promise<number> {
  const indent = count(values.indent as string | undefined, 'indent');
  if (indent !== undefined && indent > 10) throw new UsageError('--indent must be at most 10');
  const started = performance.now();
  const text = await readAll(file, io);
  const from = values.from as From | undefined;
  let outcome: Outcome;
  if (from === undefined) outcome = run(text);
  else {
    try {
      outcome = run(await responseText(text, from));
    } catch (e) {
      outcome = failure(e);
    }
  }
  const out = new Output(io.stdout);
  if (outcome.ok) {
    for (const r of outcome.repairs ?? []) io.stderr.write(`${r.kind}: ${r.message}\n`);
    const shown =
      outcome.json && indent !== undefined ? JSON.stringify(JSON.parse(outcome.text), null, indent) : outcome.text;
    await out.write(`${shown}\n`);
    await out.flush();
    out.check();
  } else if (outcome.issues !== undefined) {
    for (const i of outcome.issues as { path: string; message: string; keyword: string }[])
      io.stderr.write(`${i.path === '' ? '(root)' : i.path}: ${i.message} [${i.keyword}]\n`);
  } else {
    io.stderr.write(`${NAME}: ${outcome.error}\n`);
  }
  if (values.stats === true) {
    const s = (performance.now() - started) / 1000;
    io.stderr.write(
      `1 response, ${outcome.ok ? 0 : 1} failed, ${mb(Buffer.byteLength(text))} MB in ${s.toFixed(3)} s; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`,
    );
  }
  return outcome.ok ? 0 : 1;
}

/** A schema module: JavaScript whose default export (or export `schema`) is a JSON Schema or a Standard Schema. */
const MODULE = /\.(?:[cm]?js|[cm]?ts)$/;

async function loadSchema(path: string | undefined, values: Record<string, unknown>): Promise<CompiledSchema> {
  if (path === undefined) throw new UsageError('extract needs --schema FILE');
  let schema: unknown;
  if (MODULE.test(path)) {
    let module: { default?: unknown; schema?: unknown };
    try {
      module = (await import(pathToFileURL(process.getBuiltinModule('node:path').resolve(path)).href)) as typeof module;
    } catch (e) {
      throw new UsageError(`cannot import the schema module ${path}: ${(e as Error).message}`);
    }
    schema = module.default ?? module.schema;
    if (schema === undefined)
      throw new UsageError(`the schema module ${path} has neither a default export nor an export named schema`);
  } else {
    let text: string;
    try {
      text = fs.readFileSync(path, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read the schema ${path}: ${(e as Error).message}`);
    }
    try {
      schema = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`the schema ${path} is not JSON: ${(e as Error).message}`);
    }
  }
  try {
    return lib.compileSchema(schema as SchemaInput, {
      ...(values.draft === undefined ? {} : { defaultDraft: values.draft as SchemaDraft }),
      assertFormat: values['assert-format'] === true,
    });
  } catch (e) {
    throw new UsageError(`the schema ${path} does not compile: ${(e as Error).message}`);
  }
}

/** Runs the command line; resolves to the exit status. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    lib ??= await import('./node.js');
    const { values, positionals } = process.getBuiltinModule('node:util').parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        jsonl: { type: 'boolean' },
        indent: { type: 'string' },
        report: { type: 'boolean' },
        stats: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        strict: { type: 'boolean' },
        forbid: { type: 'string' },
        allow: { type: 'string' },
        'max-depth': { type: 'string' },
        'max-input-length': { type: 'string' },
        schema: { type: 'string' },
        draft: { type: 'string' },
        'no-coerce': { type: 'boolean' },
        'assert-format': { type: 'boolean' },
        'think-start': { type: 'string' },
        'think-end': { type: 'string' },
        'common-think-tags': { type: 'boolean' },
        'remove-prefix': { type: 'string', multiple: true },
        'remove-assistant-prefix': { type: 'boolean' },
        'remove-timestamp-prefix': { type: 'boolean' },
        'no-trim': { type: 'boolean' },
        field: { type: 'string' },
        from: { type: 'string' },
        'max-line-bytes': { type: 'string' },
      },
    });
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    if (values.version === true) {
      const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
        version: string;
      };
      io.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    const [command, file, ...extra] = positionals;
    if (command === undefined) throw new UsageError('no command: repair, clean or extract (see --help)');
    if (command !== 'repair' && command !== 'clean' && command !== 'extract')
      throw new UsageError(`unknown command ${JSON.stringify(command)}: repair, clean or extract (see --help)`);
    if (extra.length > 0) throw new UsageError(`one FILE at most, got ${positionals.length - 1}`);
    if (command !== 'extract' && values.schema !== undefined) throw new UsageError('--schema is for extract');
    if (values.jsonl === true && values.indent !== undefined)
      throw new UsageError('--indent does not go with --jsonl (one value per line)');
    if (values.jsonl !== true && (values.field !== undefined || values['max-line-bytes'] !== undefined))
      throw new UsageError('--field and --max-line-bytes are for --jsonl');
    if (values.from !== undefined && !FROM.includes(values.from as From))
      throw new UsageError(`--from takes ${FROM.join(', ')}; got ${JSON.stringify(values.from)}`);
    const schema = command === 'extract' ? await loadSchema(values.schema, values) : undefined;
    const run = processor(command, values, schema);
    return values.jsonl === true ? await batch(run, file, values, io) : await single(run, file, values, io);
  } catch (e) {
    if (
      e instanceof UsageError ||
      (e instanceof Error && 'code' in e && String((e as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.stderr.write(`${NAME}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

/** Whether this module is the program being run (directly, or through the `bin` link npm makes). */
function isMain(): boolean {
  const invoked = process.argv[1];
  if (invoked === undefined) return false;
  try {
    return fs.realpathSync(invoked) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** `module.enableCompileCache`, which Node added in 22.1 (its types here are Node 20's). */
type CompileCache = { enableCompileCache?: () => unknown };

if (isMain()) {
  // Node's on-disk compile cache (Node 22.1 and later), which Node offers command-line tools to turn on: from
  // the second run on, the library's bundle is compiled from it, 4.3–4.6 ms less of every run in Node 24 and
  // 26. Node never throws here: where the cache cannot be written it runs without it; where the user set
  // NODE_DISABLE_COMPILE_CACHE it stays off. The library itself never turns it on: that is the program's call.
  (process.getBuiltinModule('node:module') as CompileCache).enableCompileCache?.();
  process.exitCode = await main(process.argv.slice(2), {
    // Standard input and error are made only when a command uses them: making them loads their streams.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    get stderr() {
      return process.stderr;
    },
  });
}
