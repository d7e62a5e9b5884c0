// The demo page: repair, clean, extract against a schema, and replay a response as a stream, all in the
// browser through the package's own entry (dist/browser.js), offline.
import {
  init,
  parseDetailed,
  parseAndRepair,
  cleanDetailed,
  extract,
  compileSchema,
  buildCorrectionPrompt,
  StreamCleaner,
  PartialJsonParser,
  COMMON_THINK_TAGS,
} from '/dist/browser.js';
import { samples } from './samples.js';

const $ = (id) => document.getElementById(id);
const input = $('input');
const schemaInput = $('schema');

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

const show = (v) => (v === undefined ? '—' : JSON.stringify(v, null, 2));

// ----- tabs -----

const tabs = [...document.querySelectorAll('[role="tab"]')];
function select(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
}
tabs.forEach((t, i) => {
  t.addEventListener('click', () => select(t));
  t.addEventListener('keydown', (e) => {
    const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (d !== 0) {
      const next = tabs[(i + d + tabs.length) % tabs.length];
      select(next);
      next.focus();
    }
  });
});

// ----- repair -----

/** The input with a mark at each repair position (UTF-16 indices, as String#slice expects). */
function highlight(text, repairs) {
  const at = new Map();
  repairs.forEach((r, i) => {
    const p = Math.min(r.position, text.length);
    at.set(p, [...(at.get(p) ?? []), i]);
  });
  let html = '';
  let from = 0;
  for (const p of [...at.keys()].sort((a, b) => a - b)) {
    html += escapeHtml(text.slice(from, p));
    // A whole code point, so a mark never splits a surrogate pair.
    const ch = p < text.length ? String.fromCodePoint(text.codePointAt(p)) : '';
    const ids = at.get(p);
    const title = ids.map((i) => repairs[i].kind).join(', ');
    const shown = ch === '' ? '⏎' : ch === '\n' ? '⏎\n' : escapeHtml(ch);
    html += `<mark data-repairs="${ids.join(' ')}" title="${escapeHtml(title)}">${shown}</mark>`;
    from = p + ch.length;
  }
  return html + escapeHtml(text.slice(from));
}

function focusRepair(i) {
  for (const el of document.querySelectorAll('.active')) el.classList.remove('active');
  const item = document.querySelector(`#repairs li[data-repair="${i}"]`);
  const mark = [...document.querySelectorAll('#highlighted mark')].find((m) =>
    m.dataset.repairs.split(' ').includes(String(i)),
  );
  item?.classList.add('active');
  mark?.classList.add('active');
  mark?.scrollIntoView({ block: 'nearest' });
}

function renderRepair(text) {
  const status = $('status');
  try {
    const r = parseDetailed(text);
    $('output').textContent = JSON.stringify(r.value, null, 2);
    status.textContent = r.status;
    status.className = `badge ${r.status}`;
    $('repairs').innerHTML = r.repairs
      .map(
        (x, i) =>
          `<li data-repair="${i}" tabindex="0"><code>${x.kind}</code> <span class="pos">${x.line}:${x.column}</span> ${escapeHtml(x.message.replace(/ at line \d+, column \d+$/, ''))}</li>`,
      )
      .join('');
    if (r.repairs.length === 0) $('repairs').innerHTML = '<li class="muted">none: the JSON was valid as written</li>';
    $('highlighted').innerHTML = highlight(text, r.repairs);
  } catch (e) {
    status.textContent = e.kind ?? 'error';
    status.className = 'badge error';
    $('output').innerHTML = `<span class="error-text">${escapeHtml(`${e.name}: ${e.message}`)}</span>`;
    $('repairs').innerHTML = '';
    $('highlighted').textContent = text;
  }
}

$('repairs').addEventListener('click', (e) => {
  const li = e.target.closest('li[data-repair]');
  if (li) focusRepair(Number(li.dataset.repair));
});
$('repairs').addEventListener('keydown', (e) => {
  const li = e.target.closest('li[data-repair]');
  if (li && (e.key === 'Enter' || e.key === ' ')) focusRepair(Number(li.dataset.repair));
});
$('highlighted').addEventListener('click', (e) => {
  const mark = e.target.closest('mark');
  if (mark) {
    select($('tab-json'));
    focusRepair(Number(mark.dataset.repairs.split(' ')[0]));
  }
});
$('copy-json').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText($('output').textContent);
    $('copy-json').textContent = 'Copied';
  } catch {
    $('copy-json').textContent = 'Copy failed';
  }
  setTimeout(() => ($('copy-json').textContent = 'Copy'), 1200);
});

// ----- cleaning -----

function cleanOptions() {
  return {
    ...($('opt-common-tags').checked ? { thinkTags: COMMON_THINK_TAGS } : {}),
    removeAssistantPrefix: $('opt-assistant').checked,
  };
}

function renderClean(text) {
  const c = cleanDetailed(text, cleanOptions());
  $('cleaned').textContent = c.text;
  $('reasoning').textContent = c.reasoning ?? '(none)';
}

// ----- schema -----

let compiled = { text: null, schema: null, error: null };

function schemaFor(text) {
  if (compiled.text === text) return compiled;
  compiled.schema?.free();
  compiled = { text, schema: null, error: null };
  try {
    compiled.schema = compileSchema(JSON.parse(text));
  } catch (e) {
    compiled.error = `${e.name}: ${e.message}`;
  }
  return compiled;
}

function cells(row) {
  return `<tr>${row.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
}

function renderSchema(text) {
  const { schema, error } = schemaFor(schemaInput.value);
  const badge = $('schema-badge');
  $('schema-error').hidden = error === null;
  $('schema-error').textContent = error ?? '';
  const issues = $('issues').tBodies[0];
  const coercions = $('coercions').tBodies[0];
  if (schema === null) {
    badge.textContent = 'schema error';
    badge.className = 'badge error';
    for (const id of ['extracted', 'correction']) $(id).textContent = '';
    issues.innerHTML = coercions.innerHTML = '';
    return;
  }
  const r = extract(text, schema, { coerce: $('opt-coerce').checked });
  badge.textContent = r.ok ? 'valid' : `${r.issues.length} issue${r.issues.length === 1 ? '' : 's'}`;
  badge.className = `badge ${r.ok ? 'valid' : 'error'}`;
  $('extracted').textContent = show(r.value);
  issues.innerHTML =
    r.issues.map((i) => cells([i.path === '' ? '(root)' : i.path, i.keyword, i.message])).join('') ||
    '<tr><td colspan="3" class="muted">none</td></tr>';
  coercions.innerHTML =
    r.coercions
      .map((c) => cells([c.path === '' ? '(root)' : c.path, JSON.stringify(c.from), JSON.stringify(c.to), c.rule]))
      .join('') || '<tr><td colspan="4" class="muted">none</td></tr>';
  $('correction').textContent = r.ok
    ? '(the answer matches: nothing would be sent)'
    : buildCorrectionPrompt({ issues: r.issues, invalidOutput: text, schema });
}

// ----- stream replay -----

const replay = { cleaner: null, parser: null, at: 0, text: '', timer: null, updates: 0 };

function resetReplay() {
  clearTimeout(replay.timer);
  replay.timer = null;
  replay.cleaner?.free();
  replay.parser?.free();
  replay.cleaner = new StreamCleaner(cleanOptions());
  replay.parser = new PartialJsonParser();
  replay.at = 0;
  replay.text = input.value;
  replay.updates = 0;
  $('stream-text').textContent = '';
  $('stream-value').textContent = '';
  $('stream-progress').value = 0;
  $('play').textContent = 'Play';
  $('stream-status').textContent = `Ready: ${replay.text.length} characters.`;
}

function feed(text) {
  if (text === '') return;
  $('stream-text').textContent += text;
  const { value } = replay.parser.push(text);
  replay.updates++;
  $('stream-value').textContent = show(value);
}

/** One chunk; returns false when the replay is over. */
function step() {
  if (replay.cleaner === null || replay.text !== input.value) resetReplay();
  if (replay.at >= replay.text.length) return false;
  const size = Math.max(1, Math.min(500, Number($('chunk-size').value) || 1));
  // Never split a surrogate pair: streams deliver whole code points.
  let end = Math.min(replay.text.length, replay.at + size);
  if (end < replay.text.length && /[\uD800-\uDBFF]/.test(replay.text[end - 1])) end++;
  feed(replay.cleaner.push(replay.text.slice(replay.at, end)));
  replay.at = end;
  $('stream-progress').value = replay.at / Math.max(1, replay.text.length);
  if (replay.at < replay.text.length) {
    $('stream-status').textContent = `${replay.at} of ${replay.text.length} characters, ${replay.updates} updates`;
    return true;
  }
  feed(replay.cleaner.finish());
  let final;
  try {
    final = replay.parser.finish();
    let same;
    try {
      same = JSON.stringify(final) === JSON.stringify(parseAndRepair(replay.text));
    } catch {
      same = false;
    }
    $('stream-value').textContent = show(final);
    $('stream-status').textContent =
      `Done: ${replay.updates} updates. ${same ? 'The final value equals parseAndRepair() of the whole response.' : 'The final value differs from parseAndRepair() of the raw response (the cleaner removed text first).'}`;
  } catch (e) {
    $('stream-status').textContent = `Done: ${e.name}: ${e.message}`;
  }
  $('play').textContent = 'Play';
  document.body.dataset.replay = 'done';
  return false;
}

function tick() {
  if (step()) replay.timer = setTimeout(tick, Number($('speed').value));
  else replay.timer = null;
}

$('play').addEventListener('click', () => {
  if (replay.timer !== null) {
    clearTimeout(replay.timer);
    replay.timer = null;
    $('play').textContent = 'Play';
    return;
  }
  if (replay.cleaner === null || replay.at >= replay.text.length || replay.text !== input.value) resetReplay();
  delete document.body.dataset.replay;
  $('play').textContent = 'Pause';
  tick();
});
$('step').addEventListener('click', () => {
  clearTimeout(replay.timer);
  replay.timer = null;
  $('play').textContent = 'Play';
  step();
});
$('reset').addEventListener('click', resetReplay);
$('speed').addEventListener('input', () => ($('speed-label').textContent = `${$('speed').value} ms`));

// ----- wiring -----

function render() {
  const text = input.value;
  $('input-stats').textContent = `${text.length} characters, ${text.split('\n').length} lines`;
  renderRepair(text);
  renderClean(text);
  renderSchema(text);
}

await init();
const picker = $('samples');
picker.innerHTML = samples.map((s, i) => `<option value="${i}">${escapeHtml(s.name)}</option>`).join('');
function load(i) {
  input.value = samples[i].text;
  schemaInput.value = JSON.stringify(samples[i].schema, null, 2);
  render();
  resetReplay();
}
picker.addEventListener('change', () => load(Number(picker.value)));
input.addEventListener('input', render);
schemaInput.addEventListener('input', () => renderSchema(input.value));
for (const id of ['opt-common-tags', 'opt-assistant'])
  $(id).addEventListener('change', () => (renderClean(input.value), resetReplay()));
$('opt-coerce').addEventListener('change', () => renderSchema(input.value));
load(0);
document.body.dataset.ready = 'true';
