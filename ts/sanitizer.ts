/**
 * `LLMResponseSanitizer`: the Cognitive Triangulation Pipeline's facade. Each of its helpers
 * maps onto the repair engine with only that class of repair allowed, so the facade keeps the
 * original contract (helpers never throw) while the engine does the work once, correctly.
 */
import { parseDetailed, repairJson, type RepairClass, type RepairKind } from './repair.js';
import { assertString } from './errors.js';

function attempt(text: string, allow: readonly (RepairKind | RepairClass)[]): string {
  try {
    const r = parseDetailed(text, { allow });
    return r.status === 'valid' ? text : r.json;
  } catch {
    return text;
  }
}

export class LLMResponseSanitizer {
  private constructor() {}

  /**
   * Sanitized JSON text for a raw response: reasoning, fences and prose removed, every repair applied.
   *
   * @throws {TypeError} when `rawResponse` is not a string.
   * @throws {JsonRepairError} when nothing salvageable is there (empty, whitespace, prose).
   */
  static sanitize(rawResponse: string): string {
    assertString(rawResponse, 'LLMResponseSanitizer.sanitize');
    return repairJson(rawResponse);
  }

  /** The content of the first JSON (or untagged) fenced block, or the text unchanged when there is none. */
  static _extractJsonFromMarkdown(text: string): string {
    assertString(text, 'LLMResponseSanitizer._extractJsonFromMarkdown');
    try {
      const r = parseDetailed(text, { allow: ['extraction'] });
      return r.repairs.some((x) => x.kind === 'code_fence') ? text.slice(r.span.start, r.span.end) : text;
    } catch {
      return text;
    }
  }

  /** The text with trailing commas removed; text that is not JSON passes through unchanged. */
  static _removeTrailingCommas(jsonString: string): string {
    assertString(jsonString, 'LLMResponseSanitizer._removeTrailingCommas');
    return attempt(jsonString, ['trailing_comma']);
  }

  /** The text with open strings and containers closed; anything else passes through unchanged. */
  static _fixTruncatedObject(jsonString: string): string {
    assertString(jsonString, 'LLMResponseSanitizer._fixTruncatedObject');
    return attempt(jsonString, ['truncation', 'mismatched_bracket']);
  }
}
