// Batch throughput of the CLI: `repair --jsonl` on a generated JSONL file of SIZE megabytes (default 1000),
// one raw LLM response per line, drawn from a pool of 512 distinct responses (every defect class and
// wrapper, valid JSON, and chatter without JSON). Prints time, MB/s and peak memory, and checks every
// output line against the value it must hold.
//
//   npm run build && node benches/jsonl.mjs [SIZE_MB] [FILE]
import { createWriteStream, statSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { responsePool } from './workloads.mjs';

export const POOL = responsePool(7, 512);

/** Writes about `mb` megabytes of JSONL; line i holds POOL[i % POOL.length]. Returns the line count. */
export async function writeJsonl(path, mb) {
  const out = createWriteStream(path);
  const lines = POOL.map((p) => `${JSON.stringify(p.text)}\n`);
  let size = 0;
  let n = 0;
  let chunk = '';
  while (size < mb * 1e6) {
    const line = lines[n % lines.length];
    chunk += line;
    size += Buffer.byteLength(line);
    n++;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return n;
}

/** Runs the CLI on `path`; resolves to {lines, mismatches, stats (the --stats line), ms}. */
export async function runBatch(path, args = ['repair', '--jsonl', '--stats'], nodeArgs = []) {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, cli, ...args, path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let lines = 0;
  let mismatches = 0;
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    const expected = POOL[lines % POOL.length].value;
    const got = JSON.parse(line);
    const right =
      expected === null ? got.ok === false : got.ok === true && JSON.stringify(got.value) === JSON.stringify(expected);
    if (!right) mismatches++;
    lines++;
  }
  const [code] = await once(child, 'close');
  return { code, lines, mismatches, stats: stderr.trim(), ms: performance.now() - started };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mb = Number(process.argv[2] ?? 1000);
  const path = process.argv[3] ?? join(tmpdir(), `lrs-batch-${mb}mb.jsonl`);
  const t = performance.now();
  const n = await writeJsonl(path, mb);
  const bytes = statSync(path).size;
  console.log(
    `wrote ${n} lines, ${(bytes / 1e6).toFixed(0)} MB, in ${((performance.now() - t) / 1000).toFixed(1)} s: ${path}`,
  );
  const r = await runBatch(path);
  console.log(`repair --jsonl: exit ${r.code}, ${r.lines} lines out, ${r.mismatches} wrong`);
  console.log(r.stats);
  console.log(`${(bytes / 1e6 / (r.ms / 1000)).toFixed(1)} MB/s end to end (including checking every output line)`);
  if (process.argv[3] === undefined) rmSync(path);
  if (r.lines !== n || r.mismatches !== 0) process.exitCode = 1;
}
