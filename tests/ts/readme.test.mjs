// Every JavaScript and TypeScript example in the README runs exactly as printed: each block becomes a module
// (TypeScript syntax and `using` lowered by esbuild for Node 20), after a prelude that supplies what the
// example leaves to the reader (a model, its deltas, a UI, a schema) and answers `fetch` like an
// OpenAI-compatible server. A block that throws, or that names something neither it nor the prelude defines,
// fails. The callbacks the examples hand their results to record them, and the results are checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const dir = join(repo, 'target/readme-blocks');

const prelude = `
import { z } from 'zod';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { writeFileSync } from 'node:fs';

const answer = "<think>Index 2, surely.</think>Sure! \`\`\`json\\n{'chosenIndex': '2', 'speech': 'Run!',}\\n\`\`\`";
const pieces = answer.match(/.{1,5}/gsu);
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const stop = { unified: 'stop', raw: 'stop' };
const calls = (globalThis.calls = {});
const record = (name) => (...args) => void (calls[name] ??= []).push(args.length === 1 ? args[0] : args);

globalThis.AI_SDK_LOG_WARNINGS = false;
globalThis.Turn = z.object({ chosenIndex: z.number().int().min(1), speech: z.string() });
globalThis.turnSchema = globalThis.turnActionSchema = {
  type: 'object',
  required: ['chosenIndex', 'speech'],
  properties: { chosenIndex: { type: 'integer', minimum: 1 }, speech: { type: 'string' }, thoughts: { type: 'string' } },
};
globalThis.prompt = 'Pick an action.';
globalThis.modelText = globalThis.reply = globalThis.rawLlmText = globalThis.text = answer;
globalThis.actorId = 'hero';
globalThis.model = new MockLanguageModelV4({
  doGenerate: async () => ({ content: [{ type: 'text', text: answer }], finishReason: stop, usage, warnings: [] }),
  doStream: async () => ({
    stream: convertArrayToReadableStream([{ type: 'text-start', id: 't' }, ...pieces.map((delta) => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }, { type: 'finish', finishReason: stop, usage }]),
  }),
});
globalThis.chatModel = new FakeListChatModel({ responses: [answer] });
globalThis.modelDeltas = (async function* () {
  yield* pieces;
})();
globalThis.ui = { append: record('ui.append'), showSpeech: record('ui.showSpeech') };
for (const name of ['act', 'render', 'save', 'report', 'dispatch', 'reask', 'showThoughts']) globalThis[name] = record(name);
globalThis.logger = { debug() {}, info() {}, warn() {}, error() {} };
globalThis.safeEventDispatcher = { dispatch: record('dispatch event') };
globalThis.response = new Response(answer);
globalThis.baseURL = 'http://localhost:11434/v1';
globalThis.headers = { 'content-type': 'application/json' };
globalThis.messages = [{ role: 'user', content: globalThis.prompt }];
globalThis.signal = new AbortController().signal;
process.env.OPENAI_API_KEY = 'sk-readme';
// An OpenAI-compatible server: the answer as one completion, or streamed as server-sent events.
globalThis.fetch = async (url, init) => {
  const body = JSON.parse(init.body);
  if (!String(url).endsWith('/chat/completions')) return new Response('not found', { status: 404 });
  if (body.stream === true) {
    const events = pieces.map((content) => 'data: ' + JSON.stringify({ choices: [{ index: 0, delta: { content } }] }) + '\\n\\n').join('') + 'data: [DONE]\\n\\n';
    return new Response(events, { headers: { 'content-type': 'text/event-stream' } });
  }
  return Response.json({ choices: [{ index: 0, message: { role: 'assistant', content: answer } }] });
};
process.on('exit', () => writeFileSync(process.env.CALLS_FILE, JSON.stringify(calls)));
`;

/** The README's js and ts blocks, with the line each starts on. */
function blocks() {
  const lines = readFileSync(join(repo, 'README.md'), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(js|ts)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    while (!/^```\s*$/.test(lines[++i]))
      if (i >= lines.length) throw new Error(`README: a block at line ${start} never closes`);
    out.push({ line: start, lang: open[1], code: lines.slice(start, i).join('\n') });
  }
  return out;
}

const expectedTurn = { chosenIndex: 2, speech: 'Run!' };

test('every JavaScript and TypeScript example in the README runs as printed', async () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prelude.mjs'), prelude);
  writeFileSync(
    join(dir, 'responses.jsonl'),
    `${[JSON.stringify({ content: 'Sure: {"chosenIndex": "3", "speech": "Go"}' }), JSON.stringify({ content: 'I cannot.' })].join('\n')}\n`,
  );
  const found = blocks();
  assert.ok(found.length >= 15, `${found.length} blocks`);
  const results = [];
  for (const b of found) {
    const { code } = await transform(b.code, { loader: 'ts', format: 'esm', target: 'node20' });
    const file = join(dir, `block-${b.line}.mjs`);
    writeFileSync(file, `import './prelude.mjs';\n${code}`);
    const callsFile = join(dir, `calls-${b.line}.json`);
    try {
      execFileSync('node', [file], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
        env: { ...process.env, CALLS_FILE: callsFile },
      });
    } catch (e) {
      assert.fail(`README block at line ${b.line} failed:\n${b.code}\n--- stderr:\n${e.stderr}`);
    }
    results.push({ ...b, calls: JSON.parse(readFileSync(callsFile, 'utf8')) });
  }
  // What the examples hand on is what they promise.
  const by = (text) => results.find((r) => r.code.includes(text));
  assert.deepEqual(by('if (r.ok) act(r.value)').calls.act, [expectedTurn]);
  assert.deepEqual(by('partialJsonValues(result.textStream').calls.save, [expectedTurn]);
  assert.ok(by('partialJsonValues(result.textStream').calls.render.length > 3);
  assert.equal(
    by('cleanChunks(streamText').calls['ui.append'].join(''),
    "Sure! ```json\n{'chosenIndex': '2', 'speech': 'Run!',}\n```",
  );
  for (const r of results.filter((r) => r.code.includes('showSpeech')))
    assert.ok(
      r.calls['ui.showSpeech'].some((s) => s === 'Run!'),
      `line ${r.line}`,
    );
  const bulk = by("createReadStream('responses.jsonl')").calls;
  assert.deepEqual(bulk.save, [{ chosenIndex: 3, speech: 'Go' }]);
  assert.equal(bulk.report.length, 1);
  assert.deepEqual(by('if (r.ok) dispatch(r.value)').calls.dispatch, [expectedTurn]);
});
