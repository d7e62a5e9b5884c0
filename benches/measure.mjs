// How the benchmark times functions (bench.mjs, and cell.mjs in a process of its own).

/**
 * Operations per second of each function over `inputs`, measured in alternating slices of ~10 ms so that
 * every function sees the same machine conditions (this matters on shared virtual machines). A function
 * whose single run takes longer than a slice still gets at least one run per round. With `best`, the
 * functions take turns one run at a time and each one's fastest run decides: for a 1 MB document a slice
 * holds three or four calls, and where the garbage collector's pauses fell decided the ratio (the
 * typographic cell read 0.88–1.16× between runs, by total time and by the median slice alike).
 */
export function rates(fns, inputs, totalMs, best = false) {
  const ops = fns.map(() => 0);
  const ns = fns.map(() => 0);
  const fastest = fns.map(() => Infinity);
  const runOnce = (fn) => {
    for (const t of inputs) {
      try {
        fn(t);
      } catch {
        /* failures count as work done */
      }
    }
  };
  fns.forEach(runOnce);
  const start = process.hrtime.bigint();
  do {
    fns.forEach((fn, i) => {
      const s0 = process.hrtime.bigint();
      let elapsed = 0;
      do {
        runOnce(fn);
        ops[i] += inputs.length;
        elapsed = Number(process.hrtime.bigint() - s0);
      } while (!best && elapsed < 1e7);
      // With `best` the slice is one run (of all of `inputs`).
      if (best) fastest[i] = Math.min(fastest[i], elapsed);
      ns[i] += elapsed;
    });
  } while (Number(process.hrtime.bigint() - start) / 1e6 < totalMs);
  return best ? fastest.map((t) => inputs.length / (t / 1e9)) : ops.map((n, i) => n / (ns[i] / 1e9));
}

/** CPU time of one call of `fn` in ms (user + system), with its result. */
export const cpuMs = async (fn) => {
  const c0 = process.cpuUsage();
  const result = await fn();
  const c = process.cpuUsage(c0);
  return [(c.user + c.system) / 1000, result];
};
