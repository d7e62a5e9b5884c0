// The one-command demo of the EntityScout example (`npm run example:entity-scout`): starts a local
// OpenAI-compatible server with a stand-in code-analysis model (local-model.mjs), and runs the agent over
// sample/ against it, streaming each answer. Every report is printed as a JSON line; the summary goes to
// stderr. Expected: 3 files processed after repairs, coercions and corrections, 2 skipped (extension, size),
// 1 error (a file the model never answers with JSON), and two transport errors retried on the way.
import { fileURLToPath } from 'node:url';
import { startOpenAIServer } from './openai-server.mjs';
import { codeAnalystModel } from './local-model.mjs';
import { main } from './entity-scout.mjs';

const server = await startOpenAIServer(codeAnalystModel());
process.stderr.write(`local OpenAI-compatible model at ${server.url}\n`);
try {
  const sample = fileURLToPath(new URL('./sample/', import.meta.url));
  const code = await main([
    '--base-url',
    server.url,
    '--model',
    'local-code-analyst',
    '--max-size',
    '4096',
    '--stream',
    sample,
  ]);
  process.stderr.write(`${server.requests.length} requests to the model\n`);
  // One file ends in "error" on purpose; only bad usage (2) fails the demo.
  process.exitCode = code === 2 ? 2 : 0;
} finally {
  await server.close();
}
