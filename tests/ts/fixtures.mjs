// Reads the shared fixture corpus (tests/fixtures/repair): the same cases every runner uses.
import { readdirSync, readFileSync, existsSync } from 'node:fs';

const dir = new URL('../fixtures/repair/', import.meta.url);

export function repairFixtures() {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.in'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -3);
      const read = (ext) => (existsSync(new URL(name + ext, dir)) ? readFileSync(new URL(name + ext, dir), 'utf8') : undefined);
      return {
        name,
        input: read('.in'),
        expected: read('.out.json'),
        error: read('.error')?.trim(),
        repairs: (read('.repairs') ?? '').split('\n').filter(Boolean),
      };
    });
}
