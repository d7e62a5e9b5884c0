// The streaming example against a real local HTTP server that speaks the OpenAI chat-completions SSE
// protocol, replaying a malformed answer (think block, prose, fence, single quotes, trailing comma).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const ANSWER =
  '<think>The player looks calm; pick option 2.</think>Assistant: Sure!\n```json\n{\'chosenIndex\': 2, "speech": "Welcome, traveller. Sit by the fire.", "mood": "calm",}\n```';

test('examples/openai-stream.mjs shows the value growing and ends with the repaired value', async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      assert.equal(req.url, '/v1/chat/completions');
      assert.equal(JSON.parse(body).stream, true);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < ANSWER.length; i += 4) {
        const chunk = { choices: [{ index: 0, delta: { content: ANSWER.slice(i, i + 4) } }] };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const example = fileURLToPath(new URL('../../examples/openai-stream.mjs', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [example], {
      env: { ...process.env, OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, OPENAI_API_KEY: 'test' },
    });
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const final = { chosenIndex: 2, speech: 'Welcome, traveller. Sit by the fire.', mood: 'calm' };
    assert.deepEqual(lines.at(-1), final);
    const speeches = lines.map((v) => v.speech).filter((s) => s !== undefined);
    assert.ok(speeches.length > 3, 'the speech grew over several updates');
    assert.ok(speeches.every((s, i) => i === 0 || s.startsWith(speeches[i - 1])));
    // The enum value never showed as a prefix.
    assert.ok(lines.every((v) => v.mood === undefined || v.mood === 'calm'));
  } finally {
    server.close();
  }
});
