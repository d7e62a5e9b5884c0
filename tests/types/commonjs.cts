// A consumer in a CommonJS project compiled with `module: node16` (its imports become require() calls, which
// Node >= 20.19 answers with the package's ES module): the published types must resolve there.
import { parseAndRepair, extract, JsonRepairError, type ExtractResult } from 'llm-response-sanitizer';

const v: unknown = parseAndRepair('[1,');
const r: ExtractResult<{ a: number }> = extract<{ a: number }>('{"a": 1}', { type: 'object' });
const isError = (e: unknown): boolean => e instanceof JsonRepairError;
export = { v, r, isError };
