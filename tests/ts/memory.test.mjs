// Memory: 100,000 create/use/free cycles of StreamCleaner and of PartialJsonParser must not grow the wasm
// memory, whether the object is freed with free(), with `using` (Symbol.dispose), by finish() (even in one
// synchronous loop, where no finalizer runs), or left to the FinalizationRegistry; nor must extract with a
// library schema made anew for every call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  StreamCleaner,
  PartialJsonParser,
  wasmMemorySize,
  clean,
  parseAndRepair,
  parseDetailed,
  repairJson,
  extract,
  JsonRepairError,
} from 'llm-response-sanitizer';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const CYCLES = 100_000;
const TEXT = ['<think>The guard ', 'looks tired.</think>', 'Assistant: Halt! ', 'Who goes there?\n'];

function use(cleaner) {
  let out = '';
  for (const chunk of TEXT) out += cleaner.push(chunk);
  return out + cleaner.finish();
}

const BATCH = 10_000;

/**
 * A collection, then time for finalizers to run, as an idle server's event loop would give them: four
 * times, each time until a sentinel of our own has been finalized too, or at most a second. Under the
 * parallel test runner, two rounds of 5 ms were sometimes not enough for 10,000 dropped objects.
 */
const sentinels = new FinalizationRegistry((resolve) => resolve());
async function settle() {
  for (let round = 0; round < 4; round++) {
    const finalized = new Promise((resolve) => sentinels.register({}, resolve));
    gc();
    await Promise.race([finalized, new Promise((r) => setTimeout(r, 1000))]);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Runs `cycle` CYCLES times in batches with a collection between them; returns how much the wasm memory
 * grew, measured after one warm-up batch (the allocator keeps what it once needed, and reuses it).
 */
async function growth(cycle) {
  for (let i = 0; i < BATCH; i++) cycle();
  await settle();
  const before = wasmMemorySize();
  for (let i = 0; i < CYCLES; i++) {
    cycle();
    if (i % BATCH === BATCH - 1) await settle();
  }
  return wasmMemorySize() - before;
}

/**
 * {@link growth} without time for finalizers: the cycles in one synchronous loop, as a batch job or a
 * benchmark runs them. What is not freed in the cycle itself stays allocated until the loop ends.
 */
async function growthInOneLoop(cycle, cycles = CYCLES) {
  for (let i = 0; i < BATCH; i++) cycle();
  await settle();
  const before = wasmMemorySize();
  for (let i = 0; i < cycles; i++) cycle();
  return wasmMemorySize() - before;
}

test('StreamCleaner, finish() (which frees): no growth over 100,000 cycles in one synchronous loop', async () => {
  const grew = await growthInOneLoop(() => {
    const c = new StreamCleaner({ removeAssistantPrefix: true });
    assert.equal(use(c), 'Halt! Who goes there?');
  });
  assert.equal(grew, 0);
});

test('free(): no growth over 100,000 cycles', async () => {
  const grew = await growth(() => {
    const c = new StreamCleaner({ removeAssistantPrefix: true });
    assert.equal(use(c), 'Halt! Who goes there?');
    c.free();
  });
  assert.equal(grew, 0);
});

test('using (Symbol.dispose): no growth over 100,000 cycles', async () => {
  const grew = await growth(() => {
    const c = new StreamCleaner();
    try {
      use(c);
    } finally {
      c[Symbol.dispose]();
    }
  });
  assert.equal(grew, 0);
});

test('neither: the FinalizationRegistry reclaims dropped cleaners', async () => {
  // Each cleaner holds about 1 KB in wasm memory: 100,000 leaked ones would need over 100 MB.
  const grew = await growth(() => {
    const c = new StreamCleaner();
    c.push('<think>an open block that is never closed, never finished, never freed ');
  });
  assert.equal(grew, 0);
});

test('one-shot calls do not grow memory either', async () => {
  const big = `{"a": [${'1, '.repeat(100)}]`;
  const grew = await growth(() => {
    clean(TEXT.join(''));
    parseAndRepair(big);
  });
  assert.equal(grew, 0);
});

const TURN = ['{"chosenIndex": 2, "spe', 'ech": "Halt! Who goes ', 'there?", "tags": [\'a\',', ' True,]}'];

function parse(p) {
  let v;
  for (const chunk of TURN) v = p.push(chunk).value;
  return v;
}

test('PartialJsonParser, finish() (which frees): no growth over 100,000 cycles', async () => {
  const grew = await growth(() => {
    const p = new PartialJsonParser();
    parse(p);
    assert.deepEqual(p.finish(), { chosenIndex: 2, speech: 'Halt! Who goes there?', tags: ['a', true] });
  });
  assert.equal(grew, 0);
});

test('PartialJsonParser, finish(): no growth over 100,000 cycles in one synchronous loop', async () => {
  const grew = await growthInOneLoop(() => {
    const p = new PartialJsonParser();
    parse(p);
    p.finish();
  });
  assert.equal(grew, 0);
});

test('PartialJsonParser, free() mid-stream and using: no growth over 100,000 cycles', async () => {
  const grew = await growth(() => {
    const p = new PartialJsonParser();
    try {
      parse(p);
    } finally {
      p[Symbol.dispose]();
    }
  });
  assert.equal(grew, 0);
});

test('PartialJsonParser, neither: the FinalizationRegistry reclaims dropped parsers', async () => {
  const grew = await growth(() => {
    const p = new PartialJsonParser();
    p.push('{"an open object": ["never finished", ');
  });
  assert.equal(grew, 0);
});

const TURN_SCHEMA = {
  type: 'object',
  properties: { chosenIndex: { type: 'integer' }, speech: { type: 'string' }, tags: { type: 'array' } },
};

test('PartialJsonParser with a schema: finishExtract, and dropped mid-stream (its compiled schema too): no growth', async () => {
  const grew = await growth(() => {
    const p = new PartialJsonParser({ schema: TURN_SCHEMA });
    parse(p);
    assert.equal(p.finishExtract().ok, true);
    const dropped = new PartialJsonParser({ schema: TURN_SCHEMA });
    dropped.push('{"chosenIndex": "3", "speech": "never finished');
  });
  assert.equal(grew, 0);
});

test('extract with a zod schema made anew for every call: no growth over 20,000 calls in one synchronous loop', async () => {
  const { z } = await import('zod');
  const text = 'Sure: {"chosenIndex": "2", "speech": "Halt!", "tags": [\'a\',],}';
  const schema = () => z.object({ chosenIndex: z.number().int(), speech: z.string(), tags: z.array(z.string()) });
  const grew = await growthInOneLoop(() => assert.equal(extract(text, schema()).ok, true), CYCLES / 5);
  assert.equal(grew, 0);
});

test('a parser keeps the compiled schema it shares with other zod schemas after the cache let it go', async () => {
  const { z } = await import('zod');
  const turn = () => z.object({ chosenIndex: z.number().int(), speech: z.string() });
  const p = new PartialJsonParser({ schema: turn() });
  p.push('{"chosenIndex": "2", "speech": "Ha');
  // Schemas of 64 other JSON Schema texts push the shared one out of the cache, then a collection.
  for (let i = 0; i < 64; i++) extract('{"x": 1}', z.object({ [`k${i}`]: z.number().optional() }));
  await settle();
  p.push('lt!"}');
  const r = p.finishExtract();
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { chosenIndex: 2, speech: 'Halt!' });
  assert.equal(extract('{"chosenIndex": "3", "speech": "x"}', turn()).value.chosenIndex, 3);
});

test('objectStream, 100,000 cycles read to the end or left after the first update: no growth', async () => {
  const { objectStream } = await import('llm-response-sanitizer');
  // Even cycles read a stream to its end, odd ones leave it after the first update.
  const cycle = async (i) => {
    const stream = objectStream(TURN, { schema: TURN_SCHEMA });
    if (i % 2 === 0) {
      for await (const update of stream) void update;
      assert.equal((await stream.result).ok, true);
    } else {
      for await (const update of stream) if (update) break;
    }
  };
  for (let i = 0; i < BATCH; i++) await cycle(i);
  await settle();
  const before = wasmMemorySize();
  for (let i = 0; i < CYCLES; i++) {
    await cycle(i);
    if (i % BATCH === BATCH - 1) await settle();
  }
  assert.equal(wasmMemorySize() - before, 0);
});

test('a text over maxInputLength is rejected without being copied into wasm memory, whole or streamed', async () => {
  const big = `[${'1,'.repeat(10_000_000)}`;
  const options = { maxInputLength: 4_096 };
  parseAndRepair('[1]', options);
  await settle();
  const before = wasmMemorySize();
  for (const call of [
    () => parseAndRepair(big, options),
    () => parseDetailed(big, options),
    () => repairJson(big, options),
  ]) {
    assert.throws(call, (e) => e instanceof JsonRepairError && e.kind === 'input_too_long' && e.limit === 4_096);
  }
  assert.match(extract(big, { type: 'array' }, options).issues[0].message, /longer than the limit of 4096/);
  const parser = new PartialJsonParser(options);
  assert.throws(
    () => {
      for (let i = 0; i < big.length; i += 1 << 20) parser.push(big.slice(i, i + (1 << 20)));
    },
    (e) => e.kind === 'input_too_long',
  );
  parser.free();
  // 20 MB of input; the memory may grow by the small buffers of the calls, not by the input.
  assert.ok(wasmMemorySize() - before < 1 << 20, `grew by ${wasmMemorySize() - before} bytes`);
});

test('a text needing a repair per byte: the report lists 10,000 and counts the rest, so memory stays small', async () => {
  const text = `[1${','.repeat(1_000_000)}]`;
  parseDetailed('[1,]');
  await settle();
  const before = wasmMemorySize();
  const r = parseDetailed(text);
  assert.deepEqual(r.value, [1]);
  assert.equal(r.repairs.length, 10_000);
  const total = r.repairs.length + r.omittedRepairs;
  assert.ok(total >= 999_999, String(total));
  const x = extract(text, { type: 'array' });
  assert.deepEqual([x.ok, x.repairs.length, x.omittedRepairs], [true, 10_000, r.omittedRepairs]);
  const p = new PartialJsonParser();
  for (let i = 0; i < text.length; i += 65_536) p.push(text.slice(i, i + 65_536));
  const streamed = p.finishDetailed();
  assert.deepEqual([streamed.repairs.length, streamed.omittedRepairs], [10_000, r.omittedRepairs]);
  // A report of a million repairs took 338 MiB; the repairs themselves take 16 bytes each.
  assert.ok(wasmMemorySize() - before < 64 << 20, `grew by ${wasmMemorySize() - before} bytes`);
  assert.equal('omittedRepairs' in parseDetailed('[1,,2]'), false);
});
