// Deterministic LLM-like workloads for the benchmark: each pairs a raw response with the value a correct
// repairer must return. Documents look like what models produce for games and code analysis.

/** A small seeded PRNG (mulberry32), so every run measures the same inputs. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LATIN1_WORDS = [
  'goblin',
  'cavern',
  'torch',
  'parser',
  'module',
  'export',
  'the',
  'quietly',
  'ancient',
  'café',
  'naïve',
  'function',
  'returns',
  'value',
  'shield',
  'north',
  'gate',
  'merchant',
  'déjà',
  'vu',
  'cache',
  'index',
];
const ASCII_WORDS = LATIN1_WORDS.filter((w) => /^[ -~]*$/.test(w));

/**
 * The words of a document's strings, by script: ASCII, with Latin-1 letters (the default, what the speed
 * ratios were first measured on), and with what models write beyond it — typographic punctuation, emoji,
 * other scripts, as words among English ones (`cjk`) or alone (`cjk-dense`, `cyrillic`: a response written
 * in Chinese, Japanese, Korean or Russian, its keys still ASCII). `typographic-single` leaves out the curly
 * double quotes, for documents whose strings are themselves delimited by them.
 */
export const SCRIPTS = {
  ascii: ASCII_WORDS,
  latin1: LATIN1_WORDS,
  typographic: [...ASCII_WORDS, 'it’s', '“ready”', '—', 'wait…', '‘fine’', 'north–south'],
  'typographic-single': [...ASCII_WORDS, 'it’s', '—', 'wait…', '‘fine’', 'north–south'],
  emoji: [...ASCII_WORDS, '🚀', '✨', 'ok 👍', '🔥'],
  cjk: [...ASCII_WORDS, '你好', '世界', '解析器', 'モジュール', '검사'],
  'cjk-dense': ['你好', '世界', '解析器', '模块', '数据', '检查', '结果', 'モジュール', '検査', '검사', '사용자'],
  cyrillic: ['привет', 'мир', 'парсер', 'модуль', 'данные', 'проверка', 'результат', 'ошибка'],
};

function words(r, n, list = SCRIPTS.latin1) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(list[Math.floor(r() * list.length)]);
  return out.join(' ');
}

/** One entity, keys in a fixed order. */
export function entity(r, id, list = SCRIPTS.latin1) {
  return {
    id,
    name: `entity_${id}`,
    type: ['Function', 'Class', 'Variable'][id % 3],
    text: words(r, 8 + Math.floor(r() * 20), list),
    tags: [words(r, 1, list), words(r, 1, list), words(r, 1, list)],
    score: Math.round(r() * 10000) / 100,
    active: r() < 0.5,
    parent: r() < 0.5 ? null : id - 1,
  };
}

// ----- serializers, one per defect class. Each returns text whose repaired value is `expected(item)`. -----

const q = (s) => JSON.stringify(s);
const pyStr = (s) => (s.includes("'") ? q(s) : `'${s}'`);
const lit = (v, style) => {
  if (v === null) return style === 'python' ? 'None' : 'null';
  if (v === true) return style === 'python' ? 'True' : 'true';
  if (v === false) return style === 'python' ? 'False' : 'false';
  return String(v);
};

/** Serializes a flat-ish entity with per-class defects. */
function serialize(item, defect) {
  const key = (k) =>
    defect === 'unquoted_keys' ? k : defect === 'single_quotes' || defect === 'python_literals' ? pyStr(k) : q(k);
  const str = (s) => {
    if (defect === 'single_quotes' || defect === 'python_literals') return pyStr(s);
    if (defect === 'curly_quotes') return `“${s}”`;
    if (defect === 'raw_newlines') return `"${s.replace(/ /g, (m, i) => (i % 3 === 0 ? '\n' : m))}"`;
    return q(s);
  };
  const value = (v) => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) {
      const parts = v.map(value);
      const sep = defect === 'missing_commas' ? ' ' : ', ';
      return `[${parts.join(sep)}${defect === 'trailing_commas' ? ',' : ''}]`;
    }
    return lit(v, defect === 'python_literals' ? 'python' : 'json');
  };
  const members = Object.entries(item).map(([k, v]) => {
    if (defect === 'js_literals' && k === 'score') return `${key(k)}: NaN`;
    if (defect === 'js_literals' && k === 'parent' && v === null) return `${key(k)}: undefined`;
    return `${key(k)}: ${value(v)}`;
  });
  if (defect === 'comments' || defect === 'js_comments') {
    // `js_comments`: the same comments without the `#` form (what jsonrepair reads).
    const end = defect === 'comments' ? '# end' : '// end';
    return `{\n    // entity ${item.id}\n    ${members.join(', /* next */\n    ')} ${end}\n  }`;
  }
  const sep = defect === 'missing_commas' ? '\n    ' : ',\n    ';
  return `{\n    ${members.join(sep)}${defect === 'trailing_commas' ? ',' : ''}\n  }`;
}

/** The value a correct repairer returns for `item` serialized with `defect`. */
function expected(item, defect) {
  const v = structuredClone(item);
  if (v.text !== undefined && defect === 'raw_newlines')
    v.text = v.text.replace(/ /g, (m, i) => (i % 3 === 0 ? '\n' : m));
  if (defect === 'js_literals') {
    v.score = null;
  }
  return v;
}

export const DEFECTS = [
  'trailing_commas',
  'missing_commas',
  'single_quotes',
  'unquoted_keys',
  'python_literals',
  'js_literals',
  'comments',
  'raw_newlines',
  'curly_quotes',
];
export const WRAPPERS = ['fence_and_prose', 'think_block', 'truncated'];

/** Wraps a document's text as a response: fenced with prose around, after a think block, or cut off. */
function wrap(body, how) {
  switch (how) {
    case 'fence_and_prose':
      return `Sure! Here is the JSON you asked for:\n\n\`\`\`json\n${body}\n\`\`\`\n\nLet me know if you need anything else.`;
    case 'think_block':
      return `<think>\nThe user wants entities. A draft: {"entities": [1, 2]} is too short.\n</think>\n\n${body}`;
    default:
      return body;
  }
}

/**
 * A document of `n` entities with `defect` applied to each (a defect class, or 'mixed' to rotate through
 * every class), wrapped as `how` ('none', a wrapper, or 'all'), its strings written in `script` (see
 * SCRIPTS). Truncation cuts inside the last entity's `text`; the expected value then ends with that entity
 * holding the cut text and nothing after it.
 */
export function document(seed, n, defect, how = 'none', script = 'latin1') {
  const r = rng(seed);
  // Strings delimited by curly double quotes cannot also hold them.
  const list = SCRIPTS[script === 'typographic' && defect === 'curly_quotes' ? 'typographic-single' : script];
  const items = Array.from({ length: n }, (_, i) => entity(r, i, list));
  const classOf = (i) => (defect === 'mixed' ? DEFECTS[i % DEFECTS.length] : defect);
  const truncate = how === 'truncated' || how === 'all';
  const parts = items.map((it, i) => serialize(it, classOf(i)));
  const values = items.map((it, i) => expected(it, classOf(i)));
  const topClass = defect === 'mixed' ? 'trailing_commas' : defect;
  const topKey =
    topClass === 'unquoted_keys'
      ? 'entities'
      : topClass === 'single_quotes' || topClass === 'python_literals'
        ? "'entities'"
        : '"entities"';
  const sep = topClass === 'missing_commas' ? '\n  ' : ',\n  ';
  let body = `{\n  ${topKey}: [\n  ${parts.join(sep)}\n  ]\n}`;
  let value = { entities: values };
  if (truncate) {
    // Cut the last entity halfway through its text (not for classes that rewrite the text's quotes or spaces).
    const last = parts[parts.length - 1];
    if (!['curly_quotes', 'raw_newlines'].includes(classOf(n - 1))) {
      const textStart = last.indexOf(items[n - 1].text.slice(0, 5), last.indexOf('text'));
      const chars = Array.from(items[n - 1].text);
      const keep = chars.slice(0, Math.max(1, Math.floor(chars.length / 2))).join('');
      body = `{\n  ${topKey}: [\n  ${parts.slice(0, -1).join(sep)}${sep}${last.slice(0, textStart)}${keep}`;
      const lastValue = values[n - 1];
      const cutValue = {};
      for (const k of Object.keys(lastValue)) {
        if (k === 'text') {
          cutValue.text = keep;
          break;
        }
        cutValue[k] = lastValue[k];
      }
      value = { entities: [...values.slice(0, -1), cutValue] };
    }
  }
  let text = body;
  if (how === 'all') text = wrap(`\`\`\`json\n${body}`, 'think_block');
  else text = wrap(body, how);
  return { text, value };
}

/**
 * Sentences as models write them, by language: English with typographic punctuation, Chinese and Japanese
 * (no spaces between words, full-width punctuation), Russian, Korean (short words of Hangul between spaces),
 * with dialogue in curly quotes. Strings of prose are long runs of one script, where the word lists above
 * alternate every few characters.
 */
export const PROSE = {
  en: [
    'We looked at the module’s structure — and found three “main” problems.',
    'First, the data’s format isn’t consistent; second, errors are swallowed…',
    'Users report that loading is noticeably faster: about 2× on average.',
    'The function returns a list with every result, sorted by score.',
    'Next release: rework the interface and add unit tests — soon.',
    'It’s a small change, but it touches ‘core’ paths.',
    '“Fine,” she said — “but the release is on you.”',
  ],
  zh: [
    '我们分析了这个模块的结构，发现它有三个主要的问题。',
    '首先，数据的格式不一致；其次，错误处理不完整。',
    '建议在下一个版本中重新设计接口，并增加单元测试。',
    '用户反馈表明，加载速度明显提高了。',
    '这个函数返回一个包含所有结果的列表，按分数排序。',
    '改动不大，但涉及“核心”路径。',
  ],
  ja: [
    'このモジュールは入力を解析して、結果を返します。',
    'エラーが発生した場合は、詳細なメッセージを表示します。',
    '次のバージョンでは、パフォーマンスが改善される予定です。',
    'ユーザーの設定は自動的に保存されます。',
    '変更は小さいですが、「コア」の処理に関わります。',
  ],
  ru: [
    'Мы проанализировали структуру модуля и нашли три основные проблемы.',
    'Во-первых, формат данных несовместим; во-вторых, обработка ошибок неполная.',
    'Рекомендуем переработать интерфейс в следующей версии и добавить модульные тесты.',
    'Отзывы пользователей показывают, что скорость загрузки заметно выросла.',
    'Изменение небольшое, но затрагивает «основные» пути.',
  ],
  ko: [
    '우리는 모듈의 구조를 분석했고 세 가지 주요 문제를 발견했습니다.',
    '첫째, 데이터 형식이 일관되지 않습니다. 둘째, 오류 처리가 불완전합니다.',
    '사용자 의견에 따르면 로딩 속도가 눈에 띄게 빨라졌습니다.',
    '다음 버전에서는 인터페이스를 다시 설계하고 단위 테스트를 추가할 예정입니다.',
    '“좋아요,” 그녀가 말했다. “하지만 배포는 당신 책임이에요.”',
    '변경은 작지만 “핵심” 경로에 영향을 줍니다.',
  ],
};

/**
 * A response of about 1–2 KB whose strings are prose in `lang` (see PROSE): five items of a title, a text
 * of a few sentences and two tags, serialized with `defect` as `document` does.
 */
export function proseDocument(seed, lang, defect) {
  const r = rng(seed);
  const list = PROSE[lang];
  const pick = () => list[Math.floor(r() * list.length)];
  const join = lang === 'zh' || lang === 'ja' ? '' : ' ';
  const items = Array.from({ length: 5 }, (_, id) => ({
    id,
    title: pick(),
    text: Array.from({ length: 2 + Math.floor(r() * 3) }, pick).join(join),
    tags: [pick().slice(0, 6), pick().slice(0, 4)],
    done: r() < 0.5,
  }));
  const sep = defect === 'missing_commas' ? '\n  ' : ',\n  ';
  const key = defect === 'single_quotes' || defect === 'python_literals' ? "'items'" : '"items"';
  const text = `{${key}: [\n  ${items.map((it) => serialize(it, defect)).join(sep)}\n]}`;
  // `expected` rewrites only an entity's `text` for raw line breaks; here titles and tags have spaces too.
  const broken = (v) => (defect === 'raw_newlines' ? v.replace(/ /g, (m, i) => (i % 3 === 0 ? '\n' : m)) : v);
  const value = items.map((it) => ({
    ...it,
    title: broken(it.title),
    text: broken(it.text),
    tags: it.tags.map(broken),
  }));
  return { text, value: { items: value } };
}

/**
 * Ways models (and the editors their answers pass through) write a document's structure itself beyond
 * ASCII: keys and strings in typographic quotes, full-width `：` and `，` between members (Chinese and
 * Japanese), indentation and spaces in no-break and ideographic spaces, keys in Chinese with no quotes.
 */
export const SHAPES = [
  'curly_quotes_everywhere',
  'curly_single_everywhere',
  'fullwidth_punctuation',
  'unicode_spaces',
  'unquoted_cjk_keys',
];

const CJK_KEYS = {
  entities: '实体',
  id: '编号',
  name: '名称',
  type: '类型',
  text: '文本',
  tags: '标签',
  score: '分数',
  active: '活跃',
  parent: '父级',
};

/**
 * A ~2 KB response of entities whose structure is written in `shape` (see SHAPES), its strings in a script
 * that shape leaves unambiguous: typographic punctuation but no curly double quote inside `“…”`, emoji
 * inside `‘…’`, CJK words elsewhere.
 */
export function structureDocument(seed, shape) {
  const r = rng(seed);
  const script = {
    curly_quotes_everywhere: 'typographic-single',
    curly_single_everywhere: 'emoji',
    unicode_spaces: 'typographic',
  };
  const items = Array.from({ length: entitiesFor(2000) }, (_, i) => entity(r, i, SCRIPTS[script[shape] ?? 'cjk']));
  const str =
    shape === 'curly_quotes_everywhere' ? (s) => `“${s}”` : shape === 'curly_single_everywhere' ? (s) => `‘${s}’` : q;
  const cjkKeys = shape === 'unquoted_cjk_keys';
  const key = cjkKeys ? (k) => CJK_KEYS[k] : str;
  const colon = shape === 'fullwidth_punctuation' ? '：' : shape === 'unicode_spaces' ? ':\u00a0' : ': ';
  const comma = shape === 'fullwidth_punctuation' ? '，' : ',';
  const line =
    shape === 'unicode_spaces' ? (depth) => `\n${'\u3000'.repeat(depth)}` : (depth) => `\n${'  '.repeat(depth)}`;
  const value = (v) =>
    typeof v === 'string' ? str(v) : Array.isArray(v) ? `[${v.map(value).join(`${comma} `)}]` : JSON.stringify(v);
  const object = (it) =>
    `{${line(3)}${Object.entries(it)
      .map(([k, v]) => `${key(k)}${colon}${value(v)}`)
      .join(`${comma}${line(3)}`)}${line(2)}}`;
  const text = `{${line(1)}${key('entities')}${colon}[${line(2)}${items.map(object).join(`${comma}${line(2)}`)}${line(1)}]\n}`;
  const renamed = (it) => (cjkKeys ? Object.fromEntries(Object.entries(it).map(([k, v]) => [CJK_KEYS[k], v])) : it);
  return { text, value: { [cjkKeys ? CJK_KEYS.entities : 'entities']: items.map(renamed) } };
}

/**
 * What models put in JSON besides the entity documents' words: strings holding source code (escaped line
 * breaks and quotes, braces, backticks), Markdown with a fenced block, HTML, URLs and paths; and values of
 * other shapes: a long array of numbers, deep nesting, many small records. See `contentDocument`.
 */
export const CONTENTS = ['code', 'markdown', 'html', 'urls_and_paths', 'number_array', 'deep_nesting', 'small_records'];

/**
 * A ~1–3 KB response whose value is of `content` (see CONTENTS), written as `JSON.stringify(value, null, 2)`
 * with `defect` applied to its structure: 'trailing_commas' before every closing bracket, or 'unquoted_keys'.
 * The strings hold no raw line break, so each line of the text is structure.
 */
export function contentDocument(seed, content, defect) {
  const r = rng(seed);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const words = (n) => Array.from({ length: n }, () => pick(ASCII_WORDS)).join(' ');
  const code = () =>
    `function ${pick(ASCII_WORDS)}(a, b) {\n  if (a > b) {\n    return "${pick(ASCII_WORDS)}";\n  }\n  const x = { k: [1, 2, 3] };\n  return \`\${a}-\${b}\`;\n}\n`;
  const make = {
    code: () => ({
      files: Array.from({ length: 8 }, (_, i) => ({ path: `src/${pick(ASCII_WORDS)}/${i}.ts`, content: code() })),
    }),
    markdown: () => ({
      sections: Array.from({ length: 8 }, () => ({
        title: words(3),
        body: `## ${words(3)}\n\n- ${words(5)}\n- \`${pick(ASCII_WORDS)}\` and **${pick(ASCII_WORDS)}**\n\n\`\`\`js\nconst a = ${Math.floor(r() * 99)};\n\`\`\`\n`,
      })),
    }),
    html: () => ({
      blocks: Array.from({ length: 12 }, () => ({
        html: `<div class="${pick(ASCII_WORDS)}"><p>${words(6)}</p><a href="/${pick(ASCII_WORDS)}">${pick(ASCII_WORDS)}</a></div>`,
      })),
    }),
    urls_and_paths: () => ({
      links: Array.from({ length: 20 }, (_, i) => ({
        url: `https://example.com/${pick(ASCII_WORDS)}/${i}?q=${pick(ASCII_WORDS)}#top`,
        file: `/home/user/${pick(ASCII_WORDS)}/${i}.txt`,
      })),
    }),
    number_array: () => ({
      dims: 200,
      embedding: Array.from({ length: 200 }, () => Math.round((r() * 2 - 1) * 1e6) / 1e6),
    }),
    deep_nesting: () => {
      const level = (d) =>
        d === 0 ? { leaf: words(2), n: Math.floor(r() * 100) } : { level: d, child: level(d - 1), side: [d, d + 1] };
      return { roots: Array.from({ length: 2 }, () => level(8)) };
    },
    small_records: () => ({
      rows: Array.from({ length: 24 }, (_, i) => ({
        id: i,
        ok: r() > 0.5,
        tag: pick(ASCII_WORDS),
        note: null,
        v: Math.floor(r() * 1000),
      })),
    }),
  }[content];
  const value = make();
  const json = JSON.stringify(value, null, 2);
  const text =
    defect === 'trailing_commas'
      ? json.replace(/([^\s,[{])\n(\s*)([}\]])/g, '$1,\n$2$3')
      : json.replace(/\n(\s*)"([A-Za-z_]\w*)":/g, '\n$1$2:');
  return { text, value };
}

/** Strictly valid JSON of about `bytes` bytes. */
export function validDocument(seed, bytes, script = 'latin1') {
  const r = rng(seed);
  const items = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const e = entity(r, i, SCRIPTS[script]);
    items.push(e);
    size += JSON.stringify(e).length + 1;
  }
  const value = { entities: items };
  return { text: JSON.stringify(value, null, 1), value };
}

/** The number of entities that makes a document of about `bytes` bytes. */
export function entitiesFor(bytes) {
  return Math.max(1, Math.round(bytes / 330));
}

/**
 * `count` distinct responses of about 0.3–4 KB for batch runs, each with the value a correct repairer
 * returns (`null` when there is no JSON): every defect class under every wrapper, valid JSON, and chatter
 * without JSON.
 */
export function responsePool(seed, count) {
  const pool = [];
  const hows = ['none', ...WRAPPERS, 'all'];
  for (let i = 0; i < count; i++) {
    const kind = i % (DEFECTS.length + 3);
    const n = 1 + (i % 12);
    if (kind === DEFECTS.length) {
      const { text, value } = validDocument(seed + i, 330 * n);
      pool.push({ text, value });
    } else if (kind === DEFECTS.length + 1) {
      pool.push({ text: `I'm sorry, I can't produce that list right now (request ${i}).`, value: null });
    } else {
      pool.push(document(seed + i, n, kind === DEFECTS.length + 2 ? 'mixed' : DEFECTS[kind], hows[i % hows.length]));
    }
  }
  return pool;
}
