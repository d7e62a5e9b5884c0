#!/usr/bin/env bash
# Differential test against WilmerAI's own cleaning code (not run by CI: it needs a WilmerAI checkout).
#   bash scripts/compat/wilmer.sh /path/to/WilmerAI [CASES]
# Generates random responses and configs, runs them through WilmerAI's post_process_llm_output,
# remove_thinking_from_text and StreamingThinkRemover (Python), and through clean()/StreamCleaner with
# wilmerCleanOptions() (the built package), and counts the differences.
set -euo pipefail
wilmer=$(cd "$1" && pwd)
cases=${2:-4000}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Middleware/utilities"
cp "$wilmer/Middleware/utilities/streaming_utils.py" "$work/Middleware/utilities/"
touch "$work/Middleware/__init__.py" "$work/Middleware/utilities/__init__.py"
# The two modules streaming_utils imports, reduced to what cleaning needs.
printf 'def sensitive_log(*args, **kwargs):\n    pass\n' > "$work/Middleware/utilities/sensitive_logging_utils.py"
printf "FLAGS = {'assistant': False}\ndef get_is_chat_complete_add_user_assistant():\n    return FLAGS['assistant']\ndef get_is_chat_complete_add_missing_assistant():\n    return FLAGS['assistant']\n" > "$work/Middleware/utilities/config_utils.py"
PYTHONPATH="$work" python3 "$root/scripts/compat/wilmer_cases.py" "$cases" > "$work/cases.json"
node "$root/scripts/compat/wilmer_compare.mjs" "$work/cases.json"
