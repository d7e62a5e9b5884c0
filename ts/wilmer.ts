/**
 * WilmerAI's cleaning configuration, read as WilmerAI reads it, turned into {@link CleanOptions}: an
 * endpoint config and a workflow node config, as they sit in WilmerAI's JSON files, give the options under
 * which `clean` and `StreamCleaner` produce what WilmerAI produces.
 */
import type { CleanOptions } from './clean.js';

/** The cleaning keys of a WilmerAI endpoint config. Other keys are ignored. */
export interface WilmerEndpointConfig {
  readonly removeThinking?: boolean;
  readonly startThinkTag?: string;
  readonly endThinkTag?: string;
  readonly expectOnlyClosingThinkTag?: boolean;
  readonly openingTagGracePeriod?: number;
  readonly removeCustomTextFromResponseStartEndpointWide?: boolean;
  readonly responseStartTextToRemoveEndpointWide?: readonly string[] | string;
  readonly trimBeginningAndEndLineBreaks?: boolean;
  readonly [key: string]: unknown;
}

/** The cleaning keys of a WilmerAI workflow node config. Other keys are ignored. */
export interface WilmerWorkflowNodeConfig {
  readonly removeCustomTextFromResponseStart?: boolean;
  readonly responseStartTextToRemove?: readonly string[] | string;
  readonly addDiscussionIdTimestampsForLLM?: boolean;
  readonly [key: string]: unknown;
}

/** What WilmerAI takes from elsewhere than the two configs. */
export interface WilmerCleanSettings {
  /**
   * Remove a leading `Assistant:`: WilmerAI does when both of its user settings "add user/assistant" and
   * "add missing assistant" are on [false].
   */
  readonly removeAssistantPrefix?: boolean;
  /** Only the think remover (WilmerAI's `StreamingThinkRemover` and `remove_thinking_from_text`) [false]. */
  readonly thinkOnly?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Cleaning options equivalent to a WilmerAI endpoint config and workflow node config:
 * - reasoning is removed only with `removeThinking` and both tags, the grace period counted from the first
 *   character, and in only-closing mode a text without the closing tag is kept;
 * - the workflow list, then the endpoint-wide list, each only when its `removeCustom…` switch is on;
 * - the timestamp with `addDiscussionIdTimestampsForLLM`;
 * - both ends trimmed only with `trimBeginningAndEndLineBreaks` (leading whitespace is stripped regardless).
 *
 * @throws {TypeError} when a config is not an object.
 */
export function wilmerCleanOptions(
  endpointConfig: WilmerEndpointConfig,
  workflowNodeConfig: WilmerWorkflowNodeConfig = {},
  settings: WilmerCleanSettings = {},
): CleanOptions {
  if (!isObject(endpointConfig)) throw new TypeError('wilmerCleanOptions: endpointConfig must be an object');
  if (!isObject(workflowNodeConfig)) throw new TypeError('wilmerCleanOptions: workflowNodeConfig must be an object');
  if (!isObject(settings)) throw new TypeError('wilmerCleanOptions: settings must be an object');
  const e = endpointConfig;
  const w = workflowNodeConfig;
  const start = e.startThinkTag ?? '';
  const end = e.endThinkTag ?? '';
  const thinking = Boolean(e.removeThinking) && start !== '' && end !== '';
  return {
    thinkTags: thinking ? [{ start, end }] : [],
    openingTagGracePeriod: e.openingTagGracePeriod ?? 100,
    graceIncludesLeadingWhitespace: true,
    expectOnlyClosingThinkTag: Boolean(e.expectOnlyClosingThinkTag),
    keepTextWithoutClosingTag: true,
    responseStartTextToRemove: w.removeCustomTextFromResponseStart ? (w.responseStartTextToRemove ?? []) : [],
    responseStartTextToRemoveEndpointWide: e.removeCustomTextFromResponseStartEndpointWide
      ? (e.responseStartTextToRemoveEndpointWide ?? [])
      : [],
    removeTimestampPrefix: Boolean(w.addDiscussionIdTimestampsForLLM),
    removeAssistantPrefix: Boolean(settings.removeAssistantPrefix),
    trim: Boolean(e.trimBeginningAndEndLineBreaks),
    thinkOnly: Boolean(settings.thinkOnly),
  };
}
