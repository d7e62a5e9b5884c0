// The demo page: repairs what is pasted, shows the JSON, and highlights each repair at its position.
import { init, parseDetailed, cleanDetailed, COMMON_THINK_TAGS } from '/dist/browser.js';
import { samples } from './samples.js';

const $ = (id) => document.getElementById(id);
const input = $('input');

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

/** The input with a mark at each repair position (positions are UTF-16 indices, as String#slice expects). */
function highlight(text, repairs) {
  const marks = [...new Set(repairs.map((r) => Math.min(r.position, text.length)))].sort((a, b) => a - b);
  let html = '';
  let at = 0;
  for (const p of marks) {
    html += escapeHtml(text.slice(at, p));
    const ch = text.slice(p, p + 1);
    const title = repairs.filter((r) => r.position === p).map((r) => r.kind).join(', ');
    html += `<mark title="${escapeHtml(title)}">${ch === '' || ch === '\n' ? '⏎' + (ch === '\n' ? '\n' : '') : escapeHtml(ch)}</mark>`;
    at = p + ch.length;
  }
  return html + escapeHtml(text.slice(at));
}

const cleanOptions = { thinkTags: COMMON_THINK_TAGS, removeAssistantPrefix: true };

function render() {
  const text = input.value;
  const cleaned = cleanDetailed(text, cleanOptions);
  $('cleaned').textContent = cleaned.text;
  $('reasoning').textContent = cleaned.reasoning ?? '(none)';
  const status = $('status');
  try {
    const r = parseDetailed(text);
    $('output').textContent = JSON.stringify(r.value, null, 2);
    status.textContent = r.status;
    status.className = 'badge';
    $('repairs').innerHTML = r.repairs
      .map((x) => `<li><code>${x.kind}</code> line ${x.line}, column ${x.column}: ${escapeHtml(x.message.replace(/ at line \d+, column \d+$/, ''))}</li>`)
      .join('');
    $('highlighted').innerHTML = highlight(text, r.repairs);
  } catch (e) {
    status.textContent = e.kind ?? 'error';
    status.className = 'badge error';
    $('output').innerHTML = `<span class="error-text">${escapeHtml(`${e.name}: ${e.message}`)}</span>`;
    $('repairs').innerHTML = '';
    $('highlighted').textContent = text;
  }
}

await init();
const select = $('samples');
select.innerHTML = samples.map((s, i) => `<option value="${i}">${escapeHtml(s.name)}</option>`).join('');
select.addEventListener('change', () => {
  input.value = samples[Number(select.value)].text;
  render();
});
input.addEventListener('input', render);
input.value = samples[0].text;
render();
document.body.dataset.ready = 'true';
