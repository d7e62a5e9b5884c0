// Linear time on adversarial input, by counting work: every engine runs every shape of
// `examples/work.rs` under valgrind (cachegrind, no cache simulation), and the instructions it executes
// for 1 MB of a shape, less those for empty input, must be at most LIMIT times those for 100 KB. Linear work
// gives 10; quadratic work gives 100. Instruction counts are the same on every machine and every run, so
// this tests the algorithms, not the machine's speed (`npm run bench` reports wall-clock ratios).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const work = `${repo}target/release/examples/work`;
/** n log n work (sorting duplicate keys) gives about 12; anything quadratic is far above. */
const LIMIT = 13;
const SIZES = [0, 100_000, 1_000_000];
const run = promisify(execFile);

/** Instructions executed by `work ENGINE SHAPE BYTES` (valgrind reports them on stderr). */
async function count(engine, shape, bytes) {
  const args = [
    '--tool=cachegrind',
    '--cache-sim=no',
    '--cachegrind-out-file=/dev/null',
    work,
    engine,
    shape,
    String(bytes),
  ];
  const { stderr } = await run('valgrind', args, { maxBuffer: 1 << 20 });
  const m = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  assert.ok(m, `no instruction count in valgrind's output for ${engine} '${shape}' ${bytes}: ${stderr}`);
  return Number(m[1].replaceAll(',', ''));
}

execFileSync('cargo', ['build', '--quiet', '--release', '--example', 'work'], { cwd: repo, stdio: 'inherit' });
const cases = execFileSync(work, ['list'], { encoding: 'utf8' })
  .trim()
  .split('\n')
  .map((line) => line.split('\t'));

/** `${engine}\t${shape}` → instructions for each size, measured on every core at once. */
const counts = new Map();
before(async () => {
  const jobs = cases.flatMap(([engine, shape]) => SIZES.map((bytes) => [engine, shape, bytes]));
  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const [engine, shape, bytes] = job;
      const key = `${engine}\t${shape}`;
      if (!counts.has(key)) counts.set(key, {});
      counts.get(key)[bytes] = await count(engine, shape, bytes);
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() }, worker));
});

const rows = [];
for (const [engine, shape] of cases) {
  test(`${engine}: ${shape} grows linearly (work for 1 MB / work for 100 KB ≤ ${LIMIT})`, () => {
    const c = counts.get(`${engine}\t${shape}`);
    const small = c[100_000] - c[0];
    const large = c[1_000_000] - c[0];
    const ratio = large / small;
    rows.push(`| ${engine} | ${shape} | ${(small / 100_000).toFixed(1)} | ${ratio.toFixed(2)} |`);
    assert.ok(small > 0, 'the 100 KB run did some work');
    assert.ok(
      ratio <= LIMIT,
      `${engine} on '${shape}': ${large} instructions for 1 MB, ${small} for 100 KB (ratio ${ratio.toFixed(1)})`,
    );
  });
}

test('the table of work', () => {
  assert.equal(rows.length, cases.length);
  console.log(
    [
      '| engine | shape | instructions per byte at 100 KB | 1 MB / 100 KB |',
      '| --- | --- | ---: | ---: |',
      ...rows,
    ].join('\n'),
  );
});
