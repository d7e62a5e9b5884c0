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

/** `s` with each lone surrogate as U+FFFD, as it crosses into the core (in every mode alike). */
export const lonesAsReplacement = (s) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/**
 * The reasoning cleanDetailed reports, and what a StreamCleaner fed the text in two chunks reports, for
 * reasoning of every script before and after other text, short texts and long, with lone surrogates in the
 * reasoning or elsewhere. cleanDetailed slices it from the caller's string where it can: it must be the
 * core's text all the same (a lone surrogate as U+FFFD), whatever form the text crossed in. Gives
 * `[result, the expected one, a label]`: cleanDetailed's, then the stream's reasoning.
 */
export function reasoningCases(api) {
  const bodies = [
    'r',
    'plan',
    'déjà ÿ',
    'it’s “ready” — wait…',
    '你好，世界。',
    'привет',
    '😀 ok',
    'x\ud800y',
    '\udc00',
    'a\ud83d',
  ];
  const tails = ['', ' answer', ' réponse é', ' — “answer”', ' 答案', ' \ud800 after', ' 😀'];
  const leads = ['', 'Sure. ', 'ça ', '“', '你好 ', '\udfff'];
  const out = [];
  for (const body of bodies)
    for (const tail of tails)
      for (const lead of leads)
        for (const pad of ['', 'p'.repeat(40)]) {
          const reasoning = pad + body + pad;
          for (const [options, text] of [
            [undefined, `${lead}<think>${reasoning}</think>${tail}`],
            [{ expectOnlyClosingThinkTag: true }, `${reasoning}</think>${tail}`],
            [{ startThinkTag: '[THINK]', endThinkTag: '[/THINK]' }, `${lead}[THINK]${reasoning}[/THINK]${tail}`],
          ]) {
            const got = api.cleanDetailed(text, options);
            const s = new api.StreamCleaner(options);
            const cut = Math.floor(text.length / 2);
            const streamedText = s.push(text.slice(0, cut)) + s.push(text.slice(cut)) + s.finish();
            const expected = { text: streamedText, reasoning: lonesAsReplacement(reasoning) };
            out.push([got, expected, JSON.stringify(text)]);
            out.push([s.reasoning, expected.reasoning, `${JSON.stringify(text)}, streamed`]);
          }
        }
  return out;
}
