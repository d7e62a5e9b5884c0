// The functions the benchmark times, by name: this package's entry points and the competitors as their
// users call them. Shared by bench.mjs and cell.mjs, so that a cell measured in its own process times
// exactly what the main process checks for correctness.
import { parseAndRepair, parseDetailed, repairJson, PartialJsonParser } from 'llm-response-sanitizer';
import { JSONParser as StreamParser } from '@streamparser/json';
import { jsonrepair } from 'jsonrepair';
import { repairJson as toolsyRepair } from '@toolsycc/json-repair';
import { parse as partialParse } from 'partial-json';
import * as bestEffort from 'best-effort-json-parser';

bestEffort.disableErrorLogging?.();

/** What users of jsonrepair write around it for reasoning and for a fenced response. */
const stripThink = (t) => t.replace(/<think>[\s\S]*?<\/think>/g, '');
const fenceBody = (t) => /```(?:json)?\n([\s\S]*?)```/.exec(t)?.[1] ?? t;

export const contenders = {
  'llm-response-sanitizer': (t) => parseAndRepair(t),
  jsonrepair: (t) => JSON.parse(jsonrepair(t)),
  '@toolsycc/json-repair': (t) => JSON.parse(toolsyRepair(t)),
  'partial-json': (t) => partialParse(t),
  'best-effort-json-parser': (t) => bestEffort.parse(t),
  'JSON.parse': (t) => JSON.parse(t),
  repairJson: (t) => repairJson(t),
  parseDetailed: (t) => parseDetailed(t),
  'jsonrepair (text)': (t) => jsonrepair(t),
  'a think-tag regex, then jsonrepair': (t) => JSON.parse(jsonrepair(stripThink(t))),
  'a fence regex, then jsonrepair': (t) => JSON.parse(jsonrepair(fenceBody(t))),
};

/** The value after each chunk, kept where the optimizer cannot prove it unused. */
export let sink;
/** Streaming parsers, each reading `text` in chunks of `size` characters and returning the final value. */
export const streamers = {
  'llm-response-sanitizer': (text, size, options) => {
    const p = new PartialJsonParser(options);
    // The value is requested after every chunk, as a UI would.
    for (let i = 0; i < text.length; i += size) sink = p.push(text.slice(i, i + size)).value;
    return p.finish();
  },
  '@streamparser/json': (text, size) => {
    let last;
    const p = new StreamParser({ paths: ['$'] });
    p.onValue = ({ value }) => {
      last = value;
    };
    for (let i = 0; i < text.length; i += size) p.write(text.slice(i, i + size));
    return last;
  },
};
