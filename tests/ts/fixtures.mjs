// Reads the shared fixture corpus (tests/fixtures/repair): the same cases every runner uses.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { COMMON_THINK_TAGS } from 'llm-response-sanitizer';

const dir = new URL('../fixtures/repair/', import.meta.url);

export function repairFixtures() {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.in'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -3);
      const read = (ext) =>
        existsSync(new URL(name + ext, dir)) ? readFileSync(new URL(name + ext, dir), 'utf8') : undefined;
      return {
        name,
        input: read('.in'),
        expected: read('.out.json'),
        error: read('.error')?.trim(),
        // `kind position` per line, in the report's order; undefined when the file is missing.
        repairs: read('.repairs')?.split('\n').filter(Boolean),
      };
    });
}

// Cutting text into chunks, shared with the files that must not import the package.
export { cutAt } from './door-text.mjs';

/** Whether `t` holds a reasoning tag the locator knows: a stream's JSON may move when its closing tag arrives. */
export function mentionsReasoning(t) {
  const lower = t.toLowerCase();
  return COMMON_THINK_TAGS.some(
    ({ start, end }) => lower.includes(start.toLowerCase()) || lower.includes(end.toLowerCase()),
  );
}
