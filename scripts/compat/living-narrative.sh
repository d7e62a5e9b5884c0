#!/usr/bin/env bash
# Runs the Living Narrative Engine's own tests of its LLM response services against this package (not run
# by CI: it needs a checkout of joeloverbeck/living-narrative-engine and npm to install Jest).
#   bash scripts/compat/living-narrative.sh /path/to/living-narrative-engine
# The engine's LlmJsonService, LLMResponseProcessor, LLMProcessingError and JsonProcessingError become
# plain re-exports of ours, installed from the packed tarball; its tests of them then run under Jest.
set -euo pipefail
engine=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "work directory: $work"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
mapfile -t tests < <(cd "$engine" && ls tests/unit/llms/llmJsonService.test.js tests/unit/turns/services/LLMResponseProcessor*.test.js \
  tests/unit/utils/jsonRepair.test.js tests/integration/llms/llmJsonService.realModules.integration.test.js \
  tests/e2e/LLMResponseProcessor.e2e.test.js)
cp -r "$engine/src" "$engine/babel.config.js" "$work/"
mkdir -p "$work/tests/common"
cp -r "$engine/tests/common/." "$work/tests/common/"
for t in "${tests[@]}"; do mkdir -p "$work/$(dirname "$t")"; cp "$engine/$t" "$work/$t"; done
(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
cd "$work"
printf '{"name":"engine-compat","private":true}\n' > package.json
printf "module.exports = { testEnvironment: 'jsdom', setupFiles: ['./setup.js'] };\n" > jest.config.js
printf "const { TextEncoder, TextDecoder } = require('util');\nObject.assign(global, { TextEncoder, TextDecoder });\n" > setup.js
npm install --silent --no-audit --no-fund jest@30 babel-jest@30 @jest/globals@30 jest-environment-jsdom@30 @babel/core@7 \
  @babel/preset-env@7 @babel/plugin-syntax-import-assertions@7 babel-plugin-transform-import-meta@2 \
  @toolsycc/json-repair ./llm-response-sanitizer-*.tgz
echo "export { LlmJsonService } from 'llm-response-sanitizer';" > src/llms/llmJsonService.js
echo "export { LLMResponseProcessor, LLMProcessingError } from 'llm-response-sanitizer';" > src/turns/services/LLMResponseProcessor.js
# jsonRepair.js keeps its helpers; only its error class becomes ours.
node -e '
const fs = require("fs");
const f = "src/utils/jsonRepair.js";
const s = fs.readFileSync(f, "utf8");
const start = s.indexOf("export class JsonProcessingError");
const end = s.indexOf("\n}\n", start) + 3;
if (start < 0 || end < 3) throw new Error("JsonProcessingError not found in " + f);
fs.writeFileSync(f, s.slice(0, start) + "import { JsonProcessingError } from \"llm-response-sanitizer\";\nexport { JsonProcessingError };\n" + s.slice(end));
'
npx jest --verbose "${tests[@]}" 2>&1 | grep -E '^\s+(✓|✕)|^Tests:|^(PASS|FAIL)' || true
