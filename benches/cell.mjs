// One cell of a speed table, run by bench.mjs in a new process: reads `{names, texts, budgetMs}` as JSON
// from stdin, warms the named contenders up, times them on the texts as `rates` does and prints their
// operations per second as a JSON array.
//
// Why a process per cell: a JIT-compiled competitor runs slower after it has read other workloads, so
// ratios measured late in one long process flattered this package by up to 40% (the median cell of the
// script table by 20%) against a user's measurement of the same documents in a fresh process. Each cell
// starts from the state a user's benchmark starts from.
//
// With `stream: {size, runs}` the contenders are streaming parsers (`streamers`) reading `texts[0]` in chunks
// of `size` characters; they take turns a run at a time and each one's least CPU time in `runs` runs is
// printed, in ms.
import { isDeepStrictEqual } from 'node:util';
import { contenders, streamers } from './contenders.mjs';
import { cpuMs, rates } from './measure.mjs';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { names, texts, budgetMs, stream } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const table = stream === undefined ? contenders : streamers;
const fns = names.map((n) => {
  const fn = table[n];
  if (fn === undefined) throw new Error(`cell: unknown contender ${n}`);
  return fn;
});
// Warm-up: this package's wasm is compiled by the baseline tier first and the optimizing tier takes over
// after about 100 ms of calls; a JavaScript competitor tiers up in about as long.
if (stream === undefined) {
  rates(fns, texts, Math.min(300, budgetMs));
  process.stdout.write(`${JSON.stringify(rates(fns, texts, budgetMs))}\n`);
} else {
  const text = texts[0];
  const expected = JSON.parse(text);
  for (const [i, fn] of fns.entries())
    if (!isDeepStrictEqual(fn(text, stream.size), expected))
      throw new Error(`cell: ${names[i]} streamed a wrong value`);
  const start = performance.now();
  while (performance.now() - start < 300) for (const fn of fns) fn(text, stream.size);
  const best = fns.map(() => Infinity);
  for (let r = 0; r < stream.runs; r++)
    for (const [i, fn] of fns.entries()) best[i] = Math.min(best[i], (await cpuMs(() => fn(text, stream.size)))[0]);
  process.stdout.write(`${JSON.stringify(best)}\n`);
}
