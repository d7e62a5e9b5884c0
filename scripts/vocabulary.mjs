// Writes pkg/vocabulary.js and its declarations from the core's vocabulary (`vocabulary` in src/wire.rs,
// printed by examples/vocabulary.rs): the repair kinds and classes, the reasoning tags, the limits and the
// wire format's codes. The TypeScript side imports them from there, so nothing the core defines is written
// a second time by hand. Run by scripts/build.sh; the output is generated, like the rest of pkg/.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = `${root}pkg/`;
const v = JSON.parse(
  execFileSync('cargo', ['run', '--quiet', '--example', 'vocabulary'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);

const kinds = v.repairKinds.map((k) => k.kind);
const tags = v.reasoningTags.map(([start, end]) => ({ start, end }));
const q = (x) => JSON.stringify(x);
const frozen = (x) =>
  Array.isArray(x)
    ? `Object.freeze([${x.map(frozen).join(', ')}])`
    : typeof x === 'object' && x !== null
      ? `Object.freeze({ ${Object.entries(x)
          .map(([k, y]) => `${k}: ${frozen(y)}`)
          .join(', ')} })`
      : q(x);
const union = (xs) => xs.map(q).join(' | ');
const record = (o) =>
  `{ ${Object.entries(o)
    .map(([k, n]) => `readonly ${k}: ${n}`)
    .join('; ')} }`;

const header = "// Generated at build time from the core's vocabulary. Do not edit.\n";
writeFileSync(
  `${pkg}vocabulary.js`,
  header +
    `export const REPAIR_KIND_INFO = ${frozen(v.repairKinds)};\n` +
    `export const REPAIR_KINDS = ${frozen(kinds)};\n` +
    `export const REPAIR_CLASSES = ${frozen(v.repairClasses)};\n` +
    `export const CORE_ISSUE_KEYWORDS = ${frozen(v.issueKeywords)};\n` +
    `export const REASONING_TAGS = ${frozen(tags)};\n` +
    `export const DEFAULT_MAX_DEPTH = ${v.defaultMaxDepth};\n` +
    `export const REPORT_MAX = ${v.reportMax};\n` +
    `export const CLEAN_FLAGS = ${frozen(v.cleanFlags)};\n` +
    `export const OPS = ${frozen(v.ops)};\n` +
    `export const FORMS = ${frozen(v.forms)};\n`,
);
// The declarations twice: as an ES module, and (.d.cts) for the CommonJS declarations in dist/cjs.
const declarations =
  header +
  `/** Every repair kind, in the core's order. */\n` +
  `export declare const REPAIR_KINDS: readonly [${kinds.map(q).join(', ')}];\n` +
  `/** The classes repair kinds fall in. */\n` +
  `export declare const REPAIR_CLASSES: readonly [${v.repairClasses.map(q).join(', ')}];\n` +
  `/** Every keyword an issue of the core's schema engine and extraction can carry. */\n` +
  `export declare const CORE_ISSUE_KEYWORDS: readonly [${v.issueKeywords.map(q).join(', ')}];\n` +
  `/** Each repair kind with its class and description. */\n` +
  `export declare const REPAIR_KIND_INFO: readonly { readonly kind: ${union(kinds)}; readonly class: ${union(v.repairClasses)}; readonly description: string }[];\n` +
  `/** The reasoning tag pairs the locator skips. */\n` +
  `export declare const REASONING_TAGS: readonly { readonly start: string; readonly end: string }[];\n` +
  `export declare const DEFAULT_MAX_DEPTH: ${v.defaultMaxDepth};\n` +
  `/** The most repairs a report lists. */\n` +
  `export declare const REPORT_MAX: ${v.reportMax};\n` +
  `/** The bits of the core cleaner's flags argument. */\n` +
  `export declare const CLEAN_FLAGS: ${record(v.cleanFlags)};\n` +
  `/** The stream view's operation codes. */\n` +
  `export declare const OPS: ${record(v.ops)};\n` +
  `/** The codes of the forms a repair result's JSON text comes in. */\n` +
  `export declare const FORMS: ${record(v.forms)};\n`;
writeFileSync(`${pkg}vocabulary.d.ts`, declarations);
writeFileSync(`${pkg}vocabulary.d.cts`, declarations);
