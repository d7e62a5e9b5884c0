// WilmerAI's cleaning contract (seed 002): its endpoint and workflow node configs, read by
// wilmerCleanOptions, give through clean() and StreamCleaner what WilmerAI's post-processor and streaming
// handler give: the think remover alone, the two prefix lists in order, and text drained before a tool call.
// Our own cases; every one runs whole and streamed at several chunk sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clean, cleanDetailed, StreamCleaner, wilmerCleanOptions } from 'llm-response-sanitizer';

const endpoint = { removeThinking: true, startThinkTag: '<think>', endThinkTag: '</think>', openingTagGracePeriod: 40 };
const harmony = {
  removeThinking: true,
  startThinkTag: '<|channel|>analysis<|message|>',
  endThinkTag: '<|start|>assistant<|channel|>final<|message|>',
  openingTagGracePeriod: 100,
};

/** `text` through a StreamCleaner in chunks of `size` code units. */
function streamed(text, options, size) {
  const s = new StreamCleaner(options);
  let out = '';
  for (let i = 0; i < text.length; i += size) out += s.push(text.slice(i, i + size));
  out += s.finish();
  s.free();
  return out;
}

/** Asserts `clean` gives `expected`, and so does every chunking tried. */
function same(text, options, expected, label = JSON.stringify(text)) {
  assert.equal(clean(text, options), expected, label);
  for (const size of [1, 2, 5, 13, 1000])
    assert.equal(streamed(text, options, size), expected, `${label}, chunks of ${size}`);
}

test('the think remover alone (thinkOnly): one block, case-insensitive, nothing else touched', () => {
  const think = wilmerCleanOptions(endpoint, {}, { thinkOnly: true });
  same('Intro. <think>weighing it</think> Outro. ', think, 'Intro.  Outro. ');
  same('Hi <THINK>hmm</tHiNk> there', think, 'Hi  there');
  same('<think>one</think>between<think>two</think>after', think, 'between<think>two</think>after');
  same('  \n<think>x</think>  kept  ', think, '  \n  kept  ');
  same('Unfinished <think>still going', think, 'Unfinished <think>still going');
  same('a stray </think> alone', think, 'a stray </think> alone');
  same('', think, '');
  // The grace period counts from the first character, whitespace included, and the tag must start within it.
  same(`${' '.repeat(40)}<think>x</think>y`, think, `${' '.repeat(40)}y`);
  same(`${' '.repeat(41)}<think>x</think>y`, think, `${' '.repeat(41)}<think>x</think>y`);
  same(`${'é'.repeat(38)}<think>straddles the window</think>z`, think, `${'é'.repeat(38)}z`);
  // Multi-character tags of gpt-oss's harmony format.
  same(
    '<|channel|>analysis<|message|>They greeted me.<|start|>assistant<|channel|>final<|message|>¡Hola! 👋',
    wilmerCleanOptions(harmony, {}, { thinkOnly: true }),
    '¡Hola! 👋',
  );
  // Off: removeThinking false, or a tag missing.
  for (const off of [{ ...endpoint, removeThinking: false }, { ...endpoint, endThinkTag: '' }, {}]) {
    same('Text <think>kept</think>', wilmerCleanOptions(off, {}, { thinkOnly: true }), 'Text <think>kept</think>');
  }
});

test('only-closing mode: everything through the first closing tag goes; without one the text stays', () => {
  const closing = wilmerCleanOptions({ ...endpoint, expectOnlyClosingThinkTag: true }, {}, { thinkOnly: true });
  same('drafting…</think>The answer.', closing, 'The answer.');
  same('a</THINK>b</think>c', closing, 'b</think>c');
  same('no tag in this reply — só texto', closing, 'no tag in this reply — só texto');
  assert.equal(cleanDetailed('no tag', closing).reasoning, null);
  assert.equal(cleanDetailed('why</think>so', closing).reasoning, 'why');
});

test('the full post-processing order: think block, workflow list, endpoint list, timestamp, Assistant:, trim', () => {
  const e = {
    ...endpoint,
    removeCustomTextFromResponseStartEndpointWide: true,
    responseStartTextToRemoveEndpointWide: ['  Narrator:  '],
    trimBeginningAndEndLineBreaks: true,
  };
  const w = {
    removeCustomTextFromResponseStart: true,
    responseStartTextToRemove: ['Scene 2:', 'Scene 1:'],
    addDiscussionIdTimestampsForLLM: true,
  };
  const options = wilmerCleanOptions(e, w, { removeAssistantPrefix: true });
  same(
    ' <think>plan</think> Scene 1: Narrator: [Sent less than a minute ago] Assistant: The rain stops. \n',
    options,
    'The rain stops.',
  );
  same('Scene 1:[Sent less than a minute ago]Rain.', options, 'Rain.');
  // The lists apply in their order only: the endpoint list never before the workflow list.
  same('Narrator: Scene 1: Rain.', options, 'Scene 1: Rain.');
  // Switches off: the lists are ignored; no trim keeps the end; leading whitespace goes regardless.
  const plain = wilmerCleanOptions(
    { ...e, removeCustomTextFromResponseStartEndpointWide: false, trimBeginningAndEndLineBreaks: false },
    { ...w, removeCustomTextFromResponseStart: false },
  );
  same(' \n Scene 1: Narrator: Rain. \t\n', plain, 'Scene 1: Narrator: Rain. \t\n');
  // A bare string is one prefix, not a list of characters.
  same(
    'EP: hello',
    wilmerCleanOptions({
      removeCustomTextFromResponseStartEndpointWide: true,
      responseStartTextToRemoveEndpointWide: '  EP:  ',
    }),
    'hello',
  );
  same(
    'WF: hello',
    wilmerCleanOptions({}, { removeCustomTextFromResponseStart: true, responseStartTextToRemove: 'WF: ' }),
    'hello',
  );
  // Assistant: only when asked (WilmerAI's two user settings).
  same('Assistant: Some text', wilmerCleanOptions({}), 'Assistant: Some text');
  same('  Assistant:', wilmerCleanOptions({}, {}, { removeAssistantPrefix: true }), '');
});

test('StreamCleaner.flush drains the start of the response before a mid-stream tool call', () => {
  const options = wilmerCleanOptions(
    endpoint,
    { removeCustomTextFromResponseStart: true, responseStartTextToRemove: ['Narrator:'] },
    { removeAssistantPrefix: true },
  );
  // The prefix has arrived: removed, and the rest goes out now.
  let s = new StreamCleaner(options);
  assert.equal(s.push('Narrator: Checking the map'), 'Checking the map');
  assert.equal(s.flush(), '');
  // A prefix still arriving is released as it is; prefixes are not looked for afterwards.
  s = new StreamCleaner(options);
  assert.equal(s.push('Narr'), '');
  assert.equal(s.flush(), 'Narr');
  assert.equal(s.push('ator: yes') + s.finish(), 'ator: yes');
  // Nothing held yet: prefixes stay armed for the text after the tool call.
  s = new StreamCleaner(options);
  assert.equal(s.push('  '), '');
  assert.equal(s.flush(), '');
  assert.equal(s.push('Assistant: After the call.') + s.finish(), 'After the call.');
  // An open reasoning block stays held; the stream decides it.
  s = new StreamCleaner(options);
  assert.equal(s.push('<think>should I call the tool'), '');
  assert.equal(s.flush(), '');
  assert.equal(s.push(' yes</think>Done.') + s.finish(), 'Done.');
  // Trailing whitespace held for trim is not released by flush.
  s = new StreamCleaner({ trim: true, removeAssistantPrefix: true });
  assert.equal(s.push('Assistant: Let me check.\n\n'), 'Let me check.');
  assert.equal(s.flush(), '');
  assert.equal(s.finish(), '');
  s.free();
  assert.throws(() => s.flush(), /freed/);
});
