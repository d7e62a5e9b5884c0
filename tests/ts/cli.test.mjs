// The command line on real files and pipes: exit codes, stdout/stderr discipline, every command, JSONL
// batches (order, isolation, overlong lines, CRLF, --field), progress on a terminal, and a large batch with
// flat memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  writeFileSync,
  readFileSync,
  readdirSync,
  rmSync,
  existsSync,
  openSync,
  closeSync,
} from 'node:fs';
import nodeModule from 'node:module';
import { Readable, Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../dist/cli.js';
import { writeJsonl, runBatch } from '../../benches/jsonl.mjs';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'lrs-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const file = (name, text) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
// The program's temporary directory is this test's, where Node puts the compile cache the program turns on.
const programEnv = { ...process.env, TMPDIR: dir };
const run = (args, input) => {
  const r = spawnSync(process.execPath, [cli, ...args], { input: input ?? '', encoding: 'utf8', env: programEnv });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

const TURN = {
  type: 'object',
  properties: { chosenIndex: { type: 'integer' }, speech: { type: 'string' } },
  required: ['chosenIndex', 'speech'],
  additionalProperties: false,
};
const schemaFile = file('turn.schema.json', JSON.stringify(TURN));
const MESSY =
  "<think>Pick 2.</think>Sure! Here it is:\n```json\n{'chosenIndex': '2', speech: \"Hello\", // greeting\n}\n```";

test('repair: the value as strict JSON from a file or stdin; --indent; --report lists repairs on stderr', () => {
  const f = file('messy.txt', MESSY);
  for (const r of [run(['repair', f]), run(['repair'], MESSY), run(['repair', '-'], MESSY)]) {
    assert.deepEqual(r, { code: 0, out: '{"chosenIndex":"2","speech":"Hello"}\n', err: '' });
  }
  assert.equal(run(['repair', '--indent', '2', f]).out, '{\n  "chosenIndex": "2",\n  "speech": "Hello"\n}\n');
  const rep = run(['repair', '--report', f]);
  assert.equal(rep.code, 0);
  const kinds = rep.err
    .trim()
    .split('\n')
    .map((l) => l.slice(0, l.indexOf(':')));
  assert.deepEqual(kinds, [
    'reasoning_removed',
    'surrounding_text',
    'code_fence',
    'single_quotes',
    'single_quotes',
    'unquoted_key',
    'comment',
    'trailing_comma',
  ]);
  assert.match(rep.err, /^trailing_comma: removed a trailing comma at line 3, column 37$/m);
  // Valid JSON passes as written.
  assert.equal(run(['repair'], '{"a": [1, 2]}').out, '{"a": [1, 2]}\n');
});

test("run as a program it turns on Node's compile cache where Node has one, and the library is compiled into it; imported, never", async () => {
  const f = file('cached.txt', MESSY);
  /** The files of the compile cache the program left in a new temporary directory, or `undefined` for none. */
  const cached = (extra) => {
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const env = { ...process.env, TMPDIR: tmp, ...extra };
    delete env.NODE_COMPILE_CACHE;
    if (extra === undefined) delete env.NODE_DISABLE_COMPILE_CACHE;
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(process.execPath, [cli, 'repair', f], { encoding: 'utf8', env });
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, '{"chosenIndex":"2","speech":"Hello"}\n', '']);
    }
    const cache = join(tmp, 'node-compile-cache');
    if (!existsSync(cache)) return undefined;
    return readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  };
  const files = cached();
  if (typeof nodeModule.enableCompileCache === 'function') {
    // The program is compiled before it can turn the cache on; a module in the cache is the library, which it
    // imports after (a static import would have compiled it before, and nothing would be cached).
    assert.ok(files !== undefined && files.length >= 1, `no compile cache in ${JSON.stringify(files)}`);
  } else {
    assert.equal(files, undefined);
  }
  // The user's way out, which Node itself reads.
  assert.equal(cached({ NODE_DISABLE_COMPILE_CACHE: '1' }), undefined);
  // Imported, as this file imports it, the command line leaves the process's compile cache alone.
  const io = {
    stdin: Readable.from([]),
    stdout: new Writable({ write: (_c, _e, cb) => cb() }),
    stderr: process.stderr,
  };
  assert.equal(await main(['repair', f], io), 0);
  if (process.env.NODE_COMPILE_CACHE === undefined) assert.equal(nodeModule.getCompileCacheDir?.(), undefined);
});

test('repair: no JSON, a forbidden repair, a limit: exit 1, a message on stderr, nothing on stdout', () => {
  for (const [args, input, message] of [
    [['repair'], 'I cannot help with that.', /no JSON object or array found/],
    [['repair', '--forbid', 'trailing_comma'], '[1,]', /trailing_comma/],
    [['repair', '--strict'], '[1,]', /./],
    [['repair', '--max-depth', '3'], '[[[[[1]]]]]', /deeper than the limit of 3 levels/],
  ]) {
    const r = run(args, input);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.out, '');
    assert.match(r.err, message);
    assert.match(r.err, /^llm-response-sanitizer: /);
  }
});

test('clean: the text without reasoning and prefixes; options', () => {
  assert.deepEqual(run(['clean'], '<think>hmm</think>\n  The door opens.  '), {
    code: 0,
    out: 'The door opens.\n',
    err: '',
  });
  assert.equal(run(['clean', '--remove-assistant-prefix'], 'Assistant: Hi').out, 'Hi\n');
  assert.equal(run(['clean', '--think-start', '[[', '--think-end', ']]'], '[[plan]] Go.').out, 'Go.\n');
  assert.equal(run(['clean', '--remove-prefix', 'Sure!', '--remove-prefix', 'Okay.'], 'Okay. Go.').out, 'Go.\n');
  assert.equal(run(['clean', '--no-trim'], ' x  ').out, 'x  \n');
  assert.equal(run(['clean', '--common-think-tags'], '<reasoning>r</reasoning>y').out, 'y\n');
  assert.equal(run(['clean'], '<reasoning>r</reasoning>y').out, '<reasoning>r</reasoning>y\n');
  assert.equal(run(['clean'], ' x  ').out, 'x\n');
  assert.equal(run(['clean', '--think-start', '[['], 'x').code, 2);
});

test('extract: the value (coerced) or each issue on stderr with exit 1; schema problems are exit 2', () => {
  assert.deepEqual(run(['extract', '--schema', schemaFile], MESSY), {
    code: 0,
    out: '{"chosenIndex":2,"speech":"Hello"}\n',
    err: '',
  });
  assert.equal(run(['extract', '--schema', schemaFile, '--no-coerce'], MESSY).code, 1);
  const bad = run(['extract', '--schema', schemaFile], '{"chosenIndex": "two", "mood": "calm"}');
  assert.equal(bad.code, 1);
  assert.equal(bad.out, '');
  const lines = bad.err.trim().split('\n');
  assert.ok(
    lines.some((l) => /^\/chosenIndex: .* \[type\]$/.test(l)),
    bad.err,
  );
  assert.ok(
    lines.some((l) => /^\/speech: .* \[required\]$/.test(l)),
    bad.err,
  );
  assert.ok(
    lines.some((l) => /^\/mood: .* \[additionalProperties\]$/.test(l)),
    bad.err,
  );
  assert.match(run(['extract'], '{}').err, /extract needs --schema FILE/);
  assert.equal(run(['extract', '--schema', file('bad.json', '{"type": "object",}')], '{}').code, 2);
  const uncompilable = run(['extract', '--schema', file('ref.json', '{"$ref": "#/nowhere"}')], '{}');
  assert.equal(uncompilable.code, 2);
  assert.match(uncompilable.err, /does not compile/);
  assert.equal(run(['extract', '--schema', join(dir, 'missing.json')], '{}').code, 2);
});

test('usage errors are exit 2 with a message; --help reads like a man page; --version', () => {
  for (const args of [
    [],
    ['frobnicate'],
    ['repair', '--frob'],
    ['repair', 'a', 'b'],
    ['repair', join(dir, 'nope.txt')],
    ['repair', '--indent', 'x'],
    ['repair', '--jsonl', '--indent', '2'],
    ['repair', '--field', 'x'],
    ['clean', '--schema', schemaFile],
    ['repair', '--forbid', 'no_such_kind'],
  ]) {
    const r = run(args, '[1]');
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.out, '');
    assert.match(r.err, /^llm-response-sanitizer: .+/);
  }
  const help = run(['--help']);
  assert.equal(help.code, 0);
  for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'JSONL MODE', 'EXIT STATUS', 'EXAMPLES'])
    assert.match(help.out, new RegExp(`^${section}$`, 'm'));
  assert.equal(run(['-h']).out, help.out);
  assert.equal(
    run(['--version']).out.trim(),
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
  );
});

test('--jsonl: one output line per input line, in order, bad lines isolated, CRLF and a last line without newline', () => {
  const input = [
    '"{\\"a\\": 1,}"',
    '"no json here"',
    '42',
    '',
    '{"x": 1}',
    '"<think>t</think>[1, 2"',
    'not json',
    '"{\\n \\"pretty\\": true\\n}"\r',
    '"[3]"',
  ].join('\n');
  const r = run(['repair', '--jsonl', file('batch.jsonl', input)]);
  assert.equal(r.code, 1, 'some lines failed');
  assert.equal(r.err, '');
  const out = r.out.split('\n');
  assert.equal(out.pop(), '');
  assert.deepEqual(
    out.map((l) => JSON.parse(l)),
    [
      { ok: true, value: { a: 1 } },
      {
        ok: false,
        error: 'line 2: no JSON object or array found, and the text is not valid JSON (at line 1, column 1, index 0)',
      },
      { ok: false, error: 'line 3: expected a JSON string holding a response, got number' },
      { ok: false, error: 'line 4: not JSON (an empty line)' },
      { ok: false, error: 'line 5: expected a JSON string holding a response, got object' },
      { ok: true, value: [1, 2] },
      { ok: false, error: 'line 7: not JSON' },
      { ok: true, value: { pretty: true } },
      { ok: true, value: [3] },
    ],
  );
  assert.ok(out.every((l) => !l.includes('\r')));
  // All good: exit 0.
  assert.equal(run(['repair', '--jsonl'], '"[1]"\n"[2,"\n').code, 0);
  // clean, and extract with its issues.
  assert.equal(run(['clean', '--jsonl'], '"<think>a</think>b"\n').out, '{"ok":true,"value":"b"}\n');
  const ex = run(
    ['extract', '--jsonl', '--schema', schemaFile],
    `${JSON.stringify(MESSY)}\n"{\\"chosenIndex\\": 1}"\n`,
  );
  const [good, bad] = ex.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(good, { ok: true, value: { chosenIndex: 2, speech: 'Hello' } });
  assert.equal(bad.ok, false);
  assert.match(bad.error, /^line 2: 1 issue; \/speech: /);
  assert.deepEqual(
    bad.issues.map((i) => i.keyword),
    ['required'],
  );
});

test('a failed write (a full disk) is exit 2 with a message, in both modes', { skip: !existsSync('/dev/full') }, () => {
  for (const args of [['repair'], ['repair', '--jsonl']]) {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [cli, ...args], {
        input: args.length > 1 ? '"[1]"\n' : '[1]',
        stdio: ['pipe', full, 'pipe'],
        encoding: 'utf8',
      });
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, /^llm-response-sanitizer: cannot write the output: .*ENOSPC/);
    } finally {
      closeSync(full);
    }
  }
});

test('--jsonl --field reads a property; --max-line-bytes fails a long line without holding it', () => {
  const r = run(['repair', '--jsonl', '--field', 'content'], '{"content": "[1,"}\n{"other": 1}\n');
  assert.deepEqual(
    r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    [
      { ok: true, value: [1] },
      { ok: false, error: 'line 2: nothing at "content"' },
    ],
  );
  const long = JSON.stringify(`[${'1,'.repeat(5000)}1]`);
  const l = run(['repair', '--jsonl', '--max-line-bytes', '1000'], `"[1]"\n${long}\n"[2]"\n`);
  assert.deepEqual(
    l.out
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x)),
    [
      { ok: true, value: [1] },
      { ok: false, error: 'line 2: longer than --max-line-bytes (1000)' },
      { ok: true, value: [2] },
    ],
  );
});

test('--jsonl shows progress on a terminal and clears it at the end; not when stderr is not a terminal', async () => {
  async function* slow() {
    for (let batch = 0; batch < 3; batch++) {
      yield Buffer.from('"[1, 2,"\n'.repeat(512));
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  const collect = (isTTY) => {
    const parts = [];
    return {
      parts,
      stream: Object.assign(new Writable({ write: (c, _e, cb) => (parts.push(String(c)), cb()) }), { isTTY }),
    };
  };
  const out = collect(false);
  const err = collect(true);
  const code = await main(['repair', '--jsonl'], {
    stdin: Readable.from(slow()),
    stdout: out.stream,
    stderr: err.stream,
  });
  assert.equal(code, 0);
  assert.equal(out.parts.join('').split('\n').length, 1537);
  const progress = err.parts.join('');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape is what it checks
  assert.match(progress, /\r\x1b\[K\d+ lines, 0 failed, [\d.]+ MB in [\d.]+ s \([\d.]+ MB\/s\)/);
  assert.ok(progress.endsWith('\r\x1b[K'), 'the progress line is cleared');
  const quiet = collect(false);
  await main(['repair', '--jsonl'], {
    stdin: Readable.from(slow()),
    stdout: collect(false).stream,
    stderr: quiet.stream,
  });
  assert.equal(quiet.parts.join(''), '');
});

test('a large JSONL batch: every line right, in order, in bounded memory', async () => {
  const large = join(dir, 'large.jsonl');
  const n = await writeJsonl(large, 128);
  // A JavaScript heap of 32 MB for 128 MB of input: anything that held the input or the output would die.
  const r = await runBatch(large, ['repair', '--jsonl', '--stats'], ['--max-old-space-size=32']);
  assert.equal(r.lines, n);
  assert.equal(r.mismatches, 0, 'every output line holds the value its input must give');
  assert.equal(r.code, 1, 'the pool holds responses without JSON');
  const rss = Number(/peak RSS (\d+) MB/.exec(r.stats)[1]);
  assert.ok(rss < 200, r.stats);
});

const lines = (out) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

test('--field takes a dotted path with array indices; a name with dots is taken whole first', () => {
  const input = [
    { choices: [{ message: { content: '[1,' } }] },
    { 'choices.0.message.content': '[2,' },
    { choices: [] },
    { choices: 'x' },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n');
  assert.deepEqual(lines(run(['repair', '--jsonl', '--field', 'choices.0.message.content'], input).out), [
    { ok: true, value: [1] },
    { ok: true, value: [2] },
    { ok: false, error: 'line 3: nothing at "choices.0.message.content"' },
    { ok: false, error: 'line 4: nothing at "choices.0.message.content"' },
  ]);
});

test('--from reads the model text out of a provider batch file, line by line, failures isolated', () => {
  const completion = (content) => ({ choices: [{ index: 0, message: { role: 'assistant', content } }] });
  // OpenAI's Batch API output: the response body under response.body, or an error and no response.
  const openai = [
    { custom_id: 'a', response: { status_code: 200, body: completion(MESSY) }, error: null },
    { custom_id: 'b', response: null, error: { code: 'batch_expired', message: 'expired' } },
    {
      custom_id: 'c',
      response: { status_code: 200, body: completion(null) },
      error: null,
    },
  ];
  openai[2].response.body.choices[0].message.refusal = 'I cannot help with that.';
  const r = run(
    ['extract', '--schema', schemaFile, '--jsonl', '--field', 'response.body', '--from', 'openai'],
    openai.map((o) => JSON.stringify(o)).join('\n'),
  );
  const out = lines(r.out);
  assert.equal(r.code, 1);
  assert.deepEqual(out[0], { ok: true, value: { chosenIndex: 2, speech: 'Hello' } });
  assert.equal(out[1].error, 'line 2: nothing at "response.body"');
  assert.match(out[2].error, /^line 3: ProviderError: openai: the model refused: I cannot help/);
  // Anthropic's Message Batches results; --from auto tells each line's provider.
  const anthropic = {
    custom_id: 'a',
    result: { type: 'succeeded', message: { type: 'message', content: [{ type: 'text', text: '[1, 2,]' }] } },
  };
  const a = run(['repair', '--jsonl', '--field', 'result.message', '--from', 'auto'], JSON.stringify(anthropic));
  assert.deepEqual(lines(a.out), [{ ok: true, value: [1, 2] }]);
  assert.equal(run(['repair', '--from', 'bedrock'], '{}').code, 2);
});

test('--from reads a whole response or the stream the API sent: events, JSON lines, a JSON array', () => {
  const text = MESSY;
  const pieces = text.match(/.{1,7}/gsu);
  const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
  const bodies = {
    'openai whole': JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: text } }] }),
    'openai stream': `${sse(pieces.map((content) => ({ choices: [{ index: 0, delta: { content } }] })))}data: [DONE]\n\n`,
    'responses stream': pieces
      .map(
        (delta) =>
          `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta })}\n\n`,
      )
      .join(''),
    'anthropic stream': pieces
      .map(
        (t) =>
          `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } })}\n\n`,
      )
      .join(''),
    'gemini array': JSON.stringify(pieces.map((t) => ({ candidates: [{ content: { parts: [{ text: t }] } }] }))),
    'ollama lines': pieces.map((content) => `${JSON.stringify({ message: { content }, done: false })}\n`).join(''),
  };
  for (const [name, body] of Object.entries(bodies)) {
    const r = run(['extract', '--schema', schemaFile, '--from', 'auto'], body);
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.deepEqual(JSON.parse(r.out), { chosenIndex: 2, speech: 'Hello' }, name);
  }
  assert.deepEqual(JSON.parse(run(['repair', '--from', 'anthropic'], bodies['anthropic stream']).out), {
    chosenIndex: '2',
    speech: 'Hello',
  });
  const bad = run(['repair', '--from', 'auto'], 'Just some text.');
  assert.equal(bad.code, 1);
  assert.equal(bad.out, '');
  assert.match(bad.err, /--from auto: the input is neither a provider's JSON response nor its stream/);
  // Named, the provider's reader says what it found.
  assert.match(run(['repair', '--from', 'ollama'], 'Just some text.').err, /ollama: a stream event is not JSON/);
  const refused = run(
    ['repair', '--from', 'auto'],
    JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
  );
  assert.equal(refused.code, 1);
  assert.match(refused.err, /ProviderError: anthropic: Overloaded/);
});
