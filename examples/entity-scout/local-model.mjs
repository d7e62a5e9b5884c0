// A stand-in for a code-analysis model, served by openai-server.mjs, so the entity-scout demo and its test
// run offline. It really reads the file in the prompt (declarations, line ranges) and answers the way real
// models misbehave:
//   - most answers: a think block, chatter, a fence, single quotes, trailing commas, numbers as strings
//     (repaired and coerced, accepted on the first answer);
//   - Python files: the first answer uses "line" instead of "startLine"/"endLine" and forgets "type"
//     (rejected by the schema, fixed after the correction prompt);
//   - TypeScript files: the first answer has a range that ends before it starts (rejected by the check);
//   - a file that mentions "haunted": never any JSON (ends in status "error");
//   - the first request of the session is rate-limited (429) and the fourth meets a 503.

const IDENT = '[A-Za-z_$][\\w$]*';
const JS_RULES = [
  [new RegExp(`^(?:export\\s+)?(?:default\\s+)?(?:async\\s+)?function\\*?\\s*(${IDENT})`), 'FunctionDefinition'],
  [new RegExp(`^(?:export\\s+)?(?:default\\s+)?(?:abstract\\s+)?class\\s+(${IDENT})`), 'ClassDefinition'],
  [new RegExp(`^(?:export\\s+)?(?:type|interface|enum)\\s+(${IDENT})`), 'TypeDefinition'],
  [new RegExp(`^(?:export\\s+)?(?:const|let|var)\\s+(${IDENT})`), 'VariableDeclaration'],
  [/^import\s.*from\s+['"]([^'"]+)['"]/, 'ImportStatement'],
];
const JS_METHOD = new RegExp(`^\\s+(?:static\\s+)?(?:async\\s+)?(${IDENT})\\s*\\([^)]*\\)\\s*(?::[^{]*)?\\{\\s*$`);
const NOT_METHODS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function']);
const PY_RULES = [
  [/^(\s*)(?:async\s+)?def\s+(\w+)/, 'FunctionDefinition'],
  [/^(\s*)class\s+(\w+)/, 'ClassDefinition'],
  [/^()(?:from\s+(\S+)\s+import|import\s+(\S+))/, 'ImportStatement'],
];

/** The source lines of the file in an analysis prompt (the `NNNN| ` prefixes removed). */
function fileOf(prompt) {
  const start = prompt.indexOf('\n<<<FILE\n');
  const end = prompt.lastIndexOf('\nFILE>>>');
  if (start === -1 || end < start) return undefined;
  const path = /^File: (.*)$/m.exec(prompt)?.[1] ?? '';
  const lines = prompt
    .slice(start + 9, end)
    .split('\n')
    .map((l) => l.replace(/^ *\d+\| ?/, ''));
  return { path, lines };
}

function braceEnd(lines, from) {
  let depth = 0;
  let opened = false;
  for (let i = from; i < lines.length; i++) {
    for (const c of lines[i]) {
      if (c === '{') depth++, (opened = true);
      else if (c === '}') depth--;
    }
    if (opened && depth <= 0) return i + 1;
    if (!opened && i > from) return from + 1;
  }
  return from + 1;
}

function indentEnd(lines, from, indent) {
  let last = from;
  for (let i = from + 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    if (lines[i].length - lines[i].trimStart().length <= indent) break;
    last = i;
  }
  return last + 1;
}

/** The declarations a careful model would report. */
export function analyse({ path, lines }) {
  const pois = [];
  if (path.endsWith('.py')) {
    lines.forEach((line, i) => {
      for (const [re, type] of PY_RULES) {
        const m = re.exec(line);
        if (m === null) continue;
        const indent = m[1].length;
        const name = m[2] ?? m[3];
        const kind = type === 'FunctionDefinition' && indent > 0 ? 'MethodDefinition' : type;
        pois.push({
          name,
          type: kind,
          startLine: i + 1,
          endLine: type === 'ImportStatement' ? i + 1 : indentEnd(lines, i, indent),
          confidence: 0.9,
        });
        break;
      }
    });
    return pois;
  }
  lines.forEach((line, i) => {
    for (const [re, type] of JS_RULES) {
      const m = re.exec(line);
      if (m === null) continue;
      pois.push({
        name: m[1],
        type,
        startLine: i + 1,
        endLine: type === 'ImportStatement' ? i + 1 : braceEnd(lines, i),
        confidence: 0.95,
      });
      return;
    }
    const m = JS_METHOD.exec(line);
    if (m !== null && !NOT_METHODS.has(m[1]))
      pois.push({
        name: m[1],
        type: 'MethodDefinition',
        startLine: i + 1,
        endLine: braceEnd(lines, i),
        confidence: 0.85,
      });
  });
  return pois;
}

/** JSON the way a sloppy model writes it: single quotes, numbers as strings, trailing commas. */
function sloppy(pois) {
  const items = pois.map(
    (p) =>
      `    {'name': '${p.name}', 'type': '${p.type}', 'startLine': ${p.startLine}, 'endLine': "${p.endLine}", 'confidence': "${p.confidence}",},`,
  );
  return `{\n  "pois": [\n${items.join('\n')}\n  ],\n}`;
}

/** The `respond` function for startOpenAIServer. */
export function codeAnalystModel() {
  return (request, n) => {
    if (n === 0) return { status: 429, error: 'Rate limit reached for requests', headers: { 'retry-after-ms': '40' } };
    if (n === 3) return { status: 503, error: 'The model is overloaded' };
    const prompt = String(request.prompt);
    const file = fileOf(prompt);
    if (file === undefined) return { content: 'I can only analyse source files.' };
    const correction = prompt.includes('Your previous response did not match');
    if (file.lines.some((l) => l.includes('haunted')))
      return { content: 'I sense something in this file, but I cannot say what it is.' };
    const pois = analyse(file);
    if (correction) return { content: JSON.stringify({ pois }), chunkSize: 16 };
    if (file.path.endsWith('.py')) {
      const forgetful = pois.map(({ name, startLine }) => ({ name, line: startLine, confidence: 0.8 }));
      return {
        content: `Here are the entities I found:\n${JSON.stringify({ pois: forgetful }, null, 2)}`,
        chunkSize: 16,
      };
    }
    if (file.path.endsWith('.ts') && pois.length > 0) {
      const [first, ...rest] = pois;
      return {
        content: JSON.stringify({ pois: [{ ...first, startLine: first.endLine, endLine: first.startLine }, ...rest] }),
        chunkSize: 16,
      };
    }
    const think = `<think>The file ${file.path} has ${file.lines.length} lines. I will list its declarations.</think>`;
    return {
      content: `${think}\nSure! Here is the analysis:\n\`\`\`json\n${sloppy(pois)}\n\`\`\`\nLet me know if you need more.`,
      chunkSize: 16,
    };
  };
}
