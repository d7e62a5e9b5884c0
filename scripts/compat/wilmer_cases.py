"""Random responses and WilmerAI configs with WilmerAI's own results (run by wilmer.sh)."""
import json
import logging
import random
import sys

from Middleware.utilities import config_utils
from Middleware.utilities.streaming_utils import (StreamingThinkRemover, post_process_llm_output,
                                                  remove_thinking_from_text)

logging.disable(logging.CRITICAL)
rng = random.Random(2026)
PIECES = ['<think>', '</think>', '<THINK>', '</Think>', '<thi', 'nk>', ' ', '  ', '\n', '\t', 'é', '😀', 'Bonjour. ',
          'Assistant:', 'Assistant: ', '[Sent less than a minute ago]', '[Sent less than a minute ago] ', 'Narrator:',
          'Narr', 'Scene 1: ', 'x' * 30, 'y' * 45, '<|channel|>analysis<|message|>',
          '<|start|>assistant<|channel|>final<|message|>', 'EP:']
TAGS = [('<think>', '</think>'), ('<|channel|>analysis<|message|>', '<|start|>assistant<|channel|>final<|message|>'),
        ('<think>', '')]
out = []
for _ in range(int(sys.argv[1])):
    text = ''.join(rng.choice(PIECES) for _ in range(rng.randint(0, 10)))
    start, end = rng.choice(TAGS)
    endpoint = {'removeThinking': rng.random() < 0.8, 'startThinkTag': start, 'endThinkTag': end,
                'expectOnlyClosingThinkTag': rng.random() < 0.3, 'openingTagGracePeriod': rng.choice([0, 5, 40, 50, 100]),
                'removeCustomTextFromResponseStartEndpointWide': rng.random() < 0.4,
                'responseStartTextToRemoveEndpointWide': rng.choice([['  EP:  '], ['Narrator:'], ' Scene 1: ', ['', 'Narr']]),
                'trimBeginningAndEndLineBreaks': rng.random() < 0.5}
    node = {'removeCustomTextFromResponseStart': rng.random() < 0.4,
            'responseStartTextToRemove': rng.choice([['Scene 1: '], ['Narrator:', 'Narr'], 'Narr', ['', 'Scene 1:']]),
            'addDiscussionIdTimestampsForLLM': rng.random() < 0.4}
    assistant = rng.random() < 0.5
    config_utils.FLAGS['assistant'] = assistant
    size = rng.choice([1, 3, 7, 50])
    remover = StreamingThinkRemover(endpoint)
    streamed = ''.join(remover.process_delta(text[i:i + size]) for i in range(0, len(text), size)) + remover.finalize()
    out.append({'text': text, 'endpoint': endpoint, 'node': node, 'assistant': assistant, 'size': size,
                'full': post_process_llm_output(text, endpoint, node),
                'think': remove_thinking_from_text(text, endpoint), 'streamed': streamed})
json.dump(out, sys.stdout, ensure_ascii=False)
