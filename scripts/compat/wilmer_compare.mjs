// Compares WilmerAI's results (wilmer_cases.py) with clean()/StreamCleaner under wilmerCleanOptions().
import { readFileSync } from 'node:fs';
import { clean, StreamCleaner, wilmerCleanOptions } from '../../dist/node.js';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const differ = { post_process_llm_output: 0, remove_thinking_from_text: 0, StreamingThinkRemover: 0 };
for (const c of cases) {
  const full = wilmerCleanOptions(c.endpoint, c.node, { removeAssistantPrefix: c.assistant });
  const think = wilmerCleanOptions(c.endpoint, c.node, { thinkOnly: true });
  const stream = new StreamCleaner(think);
  let streamed = '';
  for (let i = 0; i < c.text.length; i += c.size) streamed += stream.push(c.text.slice(i, i + c.size));
  streamed += stream.finish();
  stream.free();
  for (const [name, ours, theirs] of [
    ['post_process_llm_output', clean(c.text, full), c.full],
    ['remove_thinking_from_text', clean(c.text, think), c.think],
    ['StreamingThinkRemover', streamed, c.streamed],
  ]) {
    if (ours === theirs) continue;
    if (differ[name]++ < 3)
      console.log(name, JSON.stringify({ text: c.text, endpoint: c.endpoint, node: c.node, ours, theirs }));
  }
}
console.log(`${cases.length} cases; differences:`, differ);
process.exitCode = Object.values(differ).some((n) => n > 0) ? 1 : 0;
