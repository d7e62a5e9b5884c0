//! Finding the JSON in a response: reasoning blocks, fenced code blocks, prose.
//!
//! Every scan here moves forward only and looks ahead a bounded distance from each position (a tag name, a
//! fence's language tag, one word), so locating is linear in the length of the text.

use super::chars::{
    find_byte, find_byte3, find_byte3_far, find_byte_far, find_tag_or_fence, invisible_len,
    is_ident_start, is_json_ws, is_string_prefix, is_word_byte, quote_at, skip_json_ws,
    starts_with_at, NBSP,
};
use crate::prelude::*;
use crate::reasoning::{any_tag_at, is_at, tag_at, LONGEST_CLOSING_TAG, REASONING_TAGS};
use crate::record::{Repair, RepairKind};

/// Where the parser should start, and what the locator removed on the way.
#[derive(Debug)]
pub(crate) struct Source {
    /// Byte offset of the opening `{` or `[`.
    pub start: usize,
    /// The fence marker (```` ``` ```` or `~~~`) that ends the source outside strings, for fenced sources.
    pub fence: Option<u8>,
    /// Repairs made while locating, in text order.
    pub repairs: Vec<Repair>,
    /// No text appended later can change this source: the reasoning question is decided and the source
    /// is the first fenced block (a later fence cannot come before it).
    pub settled: bool,
}

/// The pair of [`REASONING_TAGS`] that is gpt-oss's analysis channel.
const HARMONY: usize = 5;

/// What else ends gpt-oss's analysis channel: a message in the commentary channel, a tool call's (`…<|end|>
/// <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{…}
/// <|call|>`) or a preamble before one. A turn that calls a tool has no final channel.
const HARMONY_COMMENTARY: &[u8] = b"<|channel|>commentary";

/// Byte offset just after the first closing tag of pair `name` of [`REASONING_TAGS`] at or after `from`;
/// `None` when there is none. Only that tag's first byte stops the scan (no closing tag is a prefix of
/// another, so where it matches no other tag does). Out of line: four sites, once per text or per push
/// of a stream in a block.
#[inline(never)]
fn end_of_block(s: &[u8], from: usize, name: usize) -> Option<usize> {
    let close = REASONING_TAGS[name].1.as_bytes();
    let mut p = from;
    while let Some(at) = find_byte_far(s, p, close[0]) {
        for tag in [close, HARMONY_COMMENTARY] {
            if is_at(s, at, tag) && (tag == close || name == HARMONY) {
                return Some(at + tag.len());
            }
        }
        p = at + 1;
    }
    None
}

/// The offset of the first reasoning tag opened by `[` (`[THINK]`) at or after `from`, or the text's end.
fn next_bracket_tag(s: &[u8], from: usize) -> usize {
    let mut p = from;
    while let Some(at) = find_byte(s, p, b'[') {
        if tag_at(s, at, false).is_some() {
            return at;
        }
        p = at + 1;
    }
    s.len()
}

/// The reasoning block that opens at `p`, if one does: `Some(Some(end))` with `end` just past its closing
/// tag, `Some(None)` when it never closes (the rest of the text is reasoning), `None` when no tag opens there.
/// Every scan for a source skips such blocks this way.
fn block_at(s: &[u8], p: usize) -> Option<Option<usize>> {
    let (len, name) = tag_at(s, p, false)?;
    Some(end_of_block(s, p + len, name))
}

/// Records a repair the locator made. Out of line: seven sites, once per text.
#[inline(never)]
fn note(repairs: &mut Vec<Repair>, kind: RepairKind, offset: usize) {
    repairs.push(Repair { kind, offset });
}

/// Skips whitespace, invisible characters and no-break spaces from `i`, recording the non-JSON ones.
fn skip_space(s: &[u8], mut i: usize, repairs: &mut Vec<Repair>) -> usize {
    loop {
        if i < s.len() && is_json_ws(s[i]) {
            i += 1;
        } else if i < s.len() && matches!(s[i], 0x0B | 0x0C) {
            // A vertical tab or form feed is JavaScript whitespace, not JSON: the text is not valid.
            note(repairs, RepairKind::NonstandardWhitespace, i);
            i += 1;
        } else if invisible_len(s, i) > 0 {
            note(repairs, RepairKind::InvisibleCharacter, i);
            i += 3;
        } else if starts_with_at(s, i, NBSP) {
            note(repairs, RepairKind::NonstandardWhitespace, i);
            i += 2;
        } else {
            return i;
        }
    }
}

/// Where a tag that a scan for `<`, `[` and 0x97 hit at `hit` would start: there, or for 0x97 the byte
/// before when it is 0xE2 and not before `from`. `◁` (E2 97 81) is found by its second byte, so the
/// typographic punctuation of prose (E2 80 xx: dashes, curly quotes) does not stop the scans.
fn tag_start(s: &[u8], from: usize, hit: usize) -> Option<usize> {
    if s[hit] != 0x97 {
        return Some(hit);
    }
    hit.checked_sub(1).filter(|&at| at >= from && s[at] == 0xE2)
}

/// The first reasoning tag the scans find at or after `from` (one that starts with `<`, `[` or `◁`): its
/// offset, its length and whether it closes.
#[inline(never)]
fn next_think_tag(s: &[u8], from: usize) -> Option<(usize, usize, bool)> {
    let mut p = from;
    while let Some(hit) = find_byte3_far(s, p, b'<', b'[', 0x97) {
        let tag = tag_start(s, from, hit).and_then(|at| Some((at, any_tag_at(s, at)?)));
        if let Some((at, (len, _, closing))) = tag {
            return Some((at, len, closing));
        }
        p = hit + 1;
    }
    None
}

/// Whether a closing reasoning tag (`</think>`, `[/THINK]`, `◁/think▷`, …, any case) starts at or after
/// `from`, or a gpt-oss commentary message, which ends the analysis too ([`end_of_block`]).
pub(crate) fn has_closing_think_tag(s: &[u8], from: usize) -> bool {
    let mut p = from;
    while let Some((at, _, closing)) = next_think_tag(s, p) {
        if closing {
            return true;
        }
        p = at + 1;
    }
    // What else ends gpt-oss's analysis (a commentary message), as a block of it ends.
    end_of_block(s, from, HARMONY).is_some()
}

/// Whether a reasoning tag of either kind that starts with `<`, `[` or `◁` starts at or after `from`.
pub(crate) fn has_think_tag(s: &[u8], from: usize) -> bool {
    next_think_tag(s, from).is_some()
}

/// Whether a closing tag that starts with `[` or `◁` (`[/THINK]`, `◁/think▷`) occurs at or after `from`:
/// such a tag with no opening one before it ends reasoning even in text with no `<`, fence or tilde.
fn has_bare_closing_tag(s: &[u8], from: usize) -> bool {
    let mut p = from;
    while let Some(hit) = find_byte3_far(s, p, b'[', 0x97, 0x97) {
        if tag_start(s, from, hit).is_some_and(|at| tag_at(s, at, true).is_some()) {
            return true;
        }
        p = hit + 1;
    }
    false
}

/// The longest closing reasoning tag: how far back a search resumed on a longer text looks.
pub(crate) const CLOSING_THINK_TAG_MAX: usize = LONGEST_CLOSING_TAG;

/// [`Reasoning::Open`] for the block of pair `name` opened at `begin` in `s`, whose closing tag is not in
/// `s`: a longer text's may start within a tag's length of its end.
fn open_block(s: &[u8], name: usize, begin: usize) -> Reasoning {
    let (open, close) = REASONING_TAGS[name];
    let resume = (s.len() + 1)
        .saturating_sub(close.len())
        .max(begin + open.len());
    Reasoning::Open {
        name,
        begin,
        resume,
    }
}

/// Removes a leading reasoning block (SPEC §2.3). Returns the offset where the answer starts, or `None`
/// when the whole text is reasoning (an opening tag that is never closed); and whether a longer text
/// could answer differently (no reasoning tag seen yet, so a closing one may still come).
#[cfg_attr(shipped, optimize(size))]
fn skip_reasoning(s: &[u8], from: usize, repairs: &mut Vec<Repair>) -> (Option<usize>, bool) {
    if let Some((len, name)) = tag_at(s, from, false) {
        let Some(end) = end_of_block(s, from + len, name) else {
            return (None, false);
        };
        note(repairs, RepairKind::ReasoningRemoved, from);
        return (Some(end), true);
    }
    // A closing tag with no opening tag before it: the chat template emitted the opening tag. Not one
    // inside a string of a value that starts before it (`{"tags": ["</think>"],}`, also after prose or
    // a fence's opening line): that is content. Prose's quotes come in pairs, so counting from its
    // first bracket (`I consider [a, b] and {"c": "d"}.</think>`) finds the tag outside any string.
    match next_think_tag(s, from) {
        Some((_, _, false)) => (Some(from), true),
        Some((at, _, true))
            if s[from..at]
                .iter()
                .position(|&b| b == b'{' || b == b'[')
                .is_some_and(|v| in_string(s, from + v, at)) =>
        {
            (Some(from), true)
        }
        Some((at, len, true)) => {
            note(repairs, RepairKind::ReasoningRemoved, from);
            (Some(at + len), true)
        }
        None => (Some(from), false),
    }
}

/// A fence opener at `s[i..]`: a run of three or more backticks or tildes.
struct Fence {
    marker: u8,
    /// Offset just after the run.
    after_run: usize,
    /// Whether the language tag is empty or json/jsonc/json5.
    json_tag: bool,
    /// Whether it is empty (as [`find_fenced`] returns a block: whether it is a weak one).
    bare: bool,
    /// Offset of the first non-whitespace byte after the tag.
    content: usize,
}

fn fence_at(s: &[u8], i: usize) -> Option<Fence> {
    let marker = s[i];
    if !(marker == b'`' || marker == b'~') || !starts_with_at(s, i, &[marker; 3]) {
        return None;
    }
    let mut j = i + 3;
    while s.get(j) == Some(&marker) {
        j += 1;
    }
    let after_run = j;
    while matches!(s.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    let tag_start = j;
    // A backslash ends the tag too: a response escaped once writes its line breaks as `\n`.
    while j < s.len()
        && !s[j].is_ascii_whitespace()
        && !matches!(s[j], b'{' | b'[' | b'`' | b'~' | b'\\')
    {
        j += 1;
    }
    let tag = &s[tag_start..j];
    let json_tag = tag.is_empty()
        || [&b"json"[..], b"jsonc", b"json5"]
            .iter()
            .any(|t| tag.len() == t.len() && is_at(tag, 0, t));
    let k = past_space(s, j);
    Some(Fence {
        marker,
        after_run,
        json_tag,
        bare: tag.is_empty(),
        content: k,
    })
}

/// Offset just after the fence that closes a block whose content starts at `from` (end of text if none).
fn end_of_fence(s: &[u8], from: usize, marker: u8) -> usize {
    let run = [marker; 3];
    let mut p = from;
    while let Some(at) = find_byte(s, p, marker) {
        p = at;
        if starts_with_at(s, p, &run) {
            p += 3;
            while s.get(p) == Some(&marker) {
                p += 1;
            }
            return p;
        }
        p += 1;
    }
    s.len()
}

/// The first fenced block tagged json (or untagged) whose content starts with `{` or `[` (SPEC §2.4).
/// Reasoning blocks and the contents of other blocks are skipped; with `tags` false the text from `from`
/// holds no reasoning tag (`skip_reasoning` looked for every tag), and only fences stop the scan.
#[cfg_attr(shipped, optimize(size))]
fn find_fenced(s: &[u8], from: usize, tags: bool) -> Option<(usize, Fence)> {
    let mut p = from;
    // The first untagged block whose content does not read as JSON (`[server]` of TOML, `{ int x; }`):
    // the source only if no other block is.
    let mut weak = None;
    // The next `[THINK]`-style tag at or after `p`, kept while `p` has not passed it (the text's end when
    // there is none to look for).
    let mut bracket_tag = (!tags).then_some(s.len());
    while p < s.len() {
        if bracket_tag.map_or(true, |at| at < p) {
            bracket_tag = Some(next_bracket_tag(s, p));
        }
        let marker = if tags {
            find_tag_or_fence(s, p)
        } else {
            find_byte3_far(s, p, b'`', b'~', b'~')
        };
        p = marker
            .unwrap_or(s.len())
            .min(bracket_tag.unwrap_or(s.len()));
        if p >= s.len() {
            break;
        }
        if matches!(s[p], b'<' | b'[' | 0xE2) {
            p = match block_at(s, p) {
                Some(end) => end?,
                None => p + 1,
            };
            continue;
        }
        match fence_at(s, p) {
            Some(mut f) if f.json_tag && matches!(s.get(f.content), Some(b'{' | b'[')) => {
                if !f.bare || is_strong_start(s, f.content) {
                    // `bare` now says whether the block returned is a weak one.
                    f.bare = false;
                    return Some((p, f));
                }
                let end = end_of_fence(s, f.after_run, f.marker);
                weak = weak.or(Some((p, f)));
                p = end;
            }
            Some(f) => p = end_of_fence(s, f.after_run, f.marker),
            None => p += 1,
        }
    }
    weak
}

/// The offset past the whitespace at `j`, escaped whitespace included: JSON or a fence's opening line
/// that was escaped once writes its line breaks as `\n` (see `source::is_escaped`).
fn past_space(s: &[u8], mut j: usize) -> usize {
    loop {
        match (s.get(j), s.get(j + 1)) {
            (Some(b'\\'), Some(b'n' | b'r' | b't')) => j += 2,
            (Some(&b), _) if b.is_ascii_whitespace() => j += 1,
            _ if starts_with_at(s, j, NBSP) => j += NBSP.len(),
            _ => return j,
        }
    }
}

/// Whether the `{` or `[` at `i` starts something that reads as JSON rather than prose such as
/// `[1]`-style references are accepted; `{name}` placeholders and `[see below]` are not.
#[cfg_attr(shipped, optimize(size))]
fn is_strong_start(s: &[u8], i: usize) -> bool {
    let j = past_space(s, i + 1);
    let Some(&b) = s.get(j) else { return false };
    // A quote, also after the prefix of a Python string (`{u'name': …`, `[b'data']`).
    let prefix = is_string_prefix(b) && matches!(s.get(j + 1), Some(b'\'' | b'"'));
    if quote_at(s, j).is_some()
        || prefix
        || starts_with_at(s, j, b"\\\"")
        || starts_with_at(s, j, b"//")
        || starts_with_at(s, j, b"/*")
    {
        return true;
    }
    if s[i] == b'{' {
        if b == b'}' {
            return true;
        }
        if is_ident_start(b) || b.is_ascii_digit() {
            // An unquoted key: a word, optional spaces, then a colon; or `=` for one (`title = "x"`, as
            // the parser reads it; not `==`) in a brace that opens its line, unlike code in prose
            // (`set {i = 0} first`).
            let mut k = j;
            while k < s.len() && is_word_byte(s[k]) {
                k += 1;
            }
            while matches!(s.get(k), Some(b' ' | b'\t')) {
                k += 1;
            }
            return match s.get(k) {
                Some(b':') => true,
                Some(b'=') => {
                    s.get(k + 1) != Some(&b'=')
                        && s[..i]
                            .iter()
                            .rev()
                            .take_while(|&&c| c != b'\n')
                            .all(|&c| c == b' ' || c == b'\t')
                }
                _ => false,
            };
        }
        return false;
    }
    match b {
        b'{' | b'[' | b']' => true,
        b'0'..=b'9' => true,
        b'-' => s.get(j + 1).is_some_and(u8::is_ascii_digit),
        _ => [&b"true"[..], b"false", b"null"].iter().any(|kw| {
            starts_with_at(s, j, kw) && !s.get(j + kw.len()).is_some_and(|&c| is_word_byte(c))
        }),
    }
}

/// Whether a key starts at `i`: a double-quoted string on one line, then a colon.
#[cfg_attr(shipped, optimize(size))]
fn key_at(s: &[u8], i: usize) -> bool {
    if s.get(i) != Some(&b'"') {
        return false;
    }
    let mut k = i + 1;
    while k < s.len() && !matches!(s[k], b'"' | b'\n') {
        k += 1;
    }
    s.get(k) == Some(&b'"') && s.get(skip_json_ws(s, k + 1, s.len())) == Some(&b':')
}

/// Whether the answer at `i` is an object's members without its opening brace, as a response reads whose
/// `{` was written into the request to start the reply (a prefill: `"name": "Ada", "age": 36}`): a key,
/// then a `}` that closes nothing opened after it, or, in a text that ends before one (cut off), a comma
/// and a key outside every bracket. Strings are passed over; one pass.
#[cfg_attr(shipped, optimize(size))]
#[inline(never)]
fn braceless_at(s: &[u8], i: usize) -> bool {
    if !key_at(s, i) {
        return false;
    }
    let (mut depth, mut quoted, mut members) = (0usize, false, false);
    let mut k = i;
    while k < s.len() {
        match s[k] {
            b'\\' if quoted => k += 1,
            b'"' => quoted = !quoted,
            _ if quoted => {}
            b'{' | b'[' => depth += 1,
            c @ (b'}' | b']') if depth == 0 => return c == b'}',
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => members |= key_at(s, skip_json_ws(s, k + 1, s.len())),
            _ => {}
        }
        k += 1;
    }
    members
}

/// The end of a control token at `p`: a chat-template token (`<|message|>`, `<|python_tag|>`) or a
/// bracketed one (`[TOOL_CALLS]`, `[INST]`, `[/INST]`: capitals and underscores). Such tokens are never
/// a value (SPEC §2.4), and a bracket right after one is where an answer starts.
#[cfg_attr(shipped, optimize(size))]
fn control_token_end(s: &[u8], p: usize) -> Option<usize> {
    let (close, start) = match s.get(p..p + 2)? {
        b"<|" => (b'|', p + 2),
        [b'[', b'/'] => (b']', p + 2),
        [b'[', _] => (b']', p + 1),
        _ => return None,
    };
    let k = control_name_end(s, start, close);
    // A bracketed token's name has two bytes at least: `[A]` may be an array of a bare word.
    let shortest = if close == b']' { 2 } else { 1 };
    if k < start + shortest || s.get(k) != Some(&close) {
        return None;
    }
    match close {
        b']' => Some(k + 1),
        _ => (s.get(k + 1) == Some(&b'>')).then_some(k + 2),
    }
}

/// Past a control token at `p`: where the scan goes on, and where a bracket may start weakly (as the
/// answer's first character may), after the spaces that follow the token.
fn past_control_token(s: &[u8], p: usize) -> Option<(usize, usize)> {
    let end = control_token_end(s, p)?;
    let mut weak = end;
    while weak < s.len() && s[weak].is_ascii_whitespace() {
        weak += 1;
    }
    Some((end, weak))
}

/// The end of a control token's name from `start`: letters, digits and `_` in a `<|…|>` token
/// (`close` is `|`), capitals and `_` in a bracketed one; a name is at most 40 bytes.
fn control_name_end(s: &[u8], start: usize, close: u8) -> usize {
    let limit = s.len().min(start + 40);
    let mut k = start;
    while k < limit
        && (s[k].is_ascii_uppercase()
            || s[k] == b'_'
            || (close == b'|' && s[k].is_ascii_alphanumeric()))
    {
        k += 1;
    }
    k
}

/// Whether the text from the `[` at `p` to its end may still become a bracketed control token
/// (`[TOOL_CA` of a stream): a stream shows no value from such a bracket until it is decided.
pub(crate) fn may_become_control_token(s: &[u8], p: usize) -> bool {
    let start = p + 1 + usize::from(s.get(p + 1) == Some(&b'/'));
    s.get(p) == Some(&b'[') && start <= s.len() && control_name_end(s, start, b']') == s.len()
}

/// The first `{` or `[` in prose that starts a value (SPEC §2.4). The first non-space character of the
/// answer is accepted even when it starts weakly (`[active, idle]`); later ones must start strongly.
/// Reasoning blocks are skipped; with `tags` false the text holds no reasoning tag, and only `<` (a
/// control token) and fences stop the scan, not the `◁` of Kimi-VL's tags.
#[cfg_attr(shipped, optimize(size))]
fn find_in_prose(s: &[u8], from: usize, tags: bool) -> Option<usize> {
    let (mut p, mut weak) = (from, from);
    // The next bracket at or after `p`, kept while `p` has not passed it, so no byte is searched twice.
    let mut next_bracket: Option<usize> = None;
    while p < s.len() {
        let bracket = match next_bracket {
            Some(b) if b >= p => b,
            _ => find_byte3_far(s, p, b'{', b'[', b'[').unwrap_or(s.len()),
        };
        next_bracket = Some(bracket);
        // The markers that can hide a bracket (reasoning, other languages' fences) come first.
        let marker = if tags {
            find_tag_or_fence(&s[..bracket], p)
        } else {
            find_byte3_far(&s[..bracket], p, b'`', b'~', b'<')
        };
        p = marker.unwrap_or(bracket);
        if p >= s.len() {
            return None;
        }
        if let Some(end) = block_at(s, p) {
            p = end?;
            continue;
        }
        if let Some(token) = past_control_token(s, p) {
            (p, weak) = token;
            continue;
        }
        match s[p] {
            b'{' | b'[' if p == weak || is_strong_start(s, p) => return Some(p),
            b'`' | b'~' => {
                p = match fence_at(s, p) {
                    // Another language's block is never a source; a json or untagged one is prose here.
                    Some(f) if !f.json_tag => end_of_fence(s, f.after_run, f.marker),
                    Some(f) => f.after_run,
                    None => p + 1,
                };
            }
            _ => p += 1,
        }
    }
    None
}

/// Whether `at` lies inside a double-quoted string of the value that starts at `from`: quotes counted
/// from there, a backslash in a string escaping the byte after it.
fn in_string(s: &[u8], from: usize, at: usize) -> bool {
    let (mut inside, mut i) = (false, from);
    while i < at {
        match s[i] {
            b'"' => inside = !inside,
            b'\\' if inside => i += 1,
            _ => {}
        }
        i += 1;
    }
    inside
}

/// Whether the text between `from` and `start` ends with a JSONP callback, `name(`.
#[cfg_attr(shipped, optimize(size))]
fn is_jsonp_prefix(s: &[u8], from: usize, start: usize) -> bool {
    let mut k = start;
    while k > from && s[k - 1].is_ascii_whitespace() {
        k -= 1;
    }
    if k == from || s[k - 1] != b'(' {
        return false;
    }
    k -= 1;
    let name_end = k;
    while k > from && (s[k - 1].is_ascii_alphanumeric() || matches!(s[k - 1], b'_' | b'$' | b'.')) {
        k -= 1;
    }
    k < name_end
}

/// The reasoning question of a text that grows at its end (a stream's), as far as it is decided: text
/// appended later cannot change what it records, so [`locate_in`] need not read that part again.
#[derive(Debug, Clone)]
pub(crate) enum Reasoning {
    /// No reasoning tag yet: a closing tag may still come and end reasoning.
    Undecided,
    /// The text (from `begin`, after leading whitespace) opens a block of pair `name` of [`REASONING_TAGS`]
    /// whose closing tag does not start before `resume`.
    Open {
        name: usize,
        begin: usize,
        resume: usize,
    },
    /// Decided: the answer starts at `at`, after `repairs` (those of leading whitespace and reasoning).
    Answer { at: usize, repairs: Vec<Repair> },
}

/// Locates the source of the JSON value in the text `s` (SPEC §2.2–2.4), or `None` when there is
/// none. It reads bytes: ASCII, and the UTF-8 sequences of the no-break space and invisible characters
/// (which Latin-1 text read by [`super::repair_latin1`] cannot hold).
pub(crate) fn locate(s: &[u8]) -> Option<Source> {
    locate_in(s, &mut Reasoning::Undecided)
}

/// [`locate`] for a text whose start was located before as `known`, which it updates: past a decided
/// reasoning question it reads only the answer, and in an open block only the text a closing tag may end
/// in, so a stream that locates again after each chunk reads the reasoning once.
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn locate_in(s: &[u8], known: &mut Reasoning) -> Option<Source> {
    if let &mut Reasoning::Open {
        name,
        begin,
        resume,
    } = known
    {
        if end_of_block(s, resume, name).is_none() {
            *known = open_block(s, name, begin);
            return None;
        }
        // Closed: the whole text is read once more, as the first time.
        *known = Reasoning::Undecided;
    }
    let (answer, mut repairs, decided, plain) = match known {
        Reasoning::Answer { at, repairs } => (*at, repairs.clone(), true, false),
        _ => {
            let mut repairs = Vec::new();
            let begin = skip_space(s, 0, &mut repairs);
            // Most JSON holds no byte that can begin a tag or a fence: one scan then settles both.
            let plain = find_tag_or_fence(s, begin).map_or(true, |p| {
                find_byte3_far(s, p, b'<', b'`', b'~').is_none() && !has_bare_closing_tag(s, p)
            }) && tag_at(s, begin, false).is_none();
            let (answer, decided) = if plain {
                (Some(begin), false)
            } else {
                skip_reasoning(s, begin, &mut repairs)
            };
            let Some(answer) = answer else {
                // Only a leading block that never closes leaves no answer.
                *known = tag_at(s, begin, false)
                    .map_or(Reasoning::Undecided, |(_, name)| open_block(s, name, begin));
                return None;
            };
            if decided {
                *known = Reasoning::Answer {
                    at: answer,
                    repairs: repairs.clone(),
                };
            }
            (answer, repairs, decided, plain)
        }
    };
    let answer = skip_space(s, answer, &mut repairs);
    // No reasoning tag was seen from `answer` on unless the reasoning question was decided.
    let fenced = if plain {
        None
    } else {
        find_fenced(s, answer, decided)
    };
    // A fence inside a string of the value that starts before it is that string's content
    // (`{"a": "```json{}", "b": 1}`), not the source.
    let fenced = fenced.filter(|&(open, _)| {
        find_byte3(s, answer, b'{', b'[', b'[').map_or(true, |b| b > open)
            || find_in_prose(s, answer, decided)
                .map_or(true, |p| p > open || !in_string(s, p, open))
    });
    // A weak block (see `find_fenced`) gives way to a block further on.
    let mut settled = decided;
    let (start, fence, prefix_end) = match fenced {
        Some((open, f)) => {
            settled &= !f.bare;
            (f.content, Some(f.marker), open)
        }
        None if braceless_at(s, answer) => {
            // repair: `"name": "Ada", "age": 36}`: the object's `{` is missing
            note(&mut repairs, RepairKind::MissingBracket, answer);
            (answer, None, answer)
        }
        None => {
            let start = find_in_prose(s, answer, decided)?;
            (start, None, start)
        }
    };
    if prefix_end > answer {
        let kind = if fence.is_none() && is_jsonp_prefix(s, answer, start) {
            RepairKind::Jsonp
        } else {
            RepairKind::SurroundingText
        };
        note(&mut repairs, kind, answer);
    }
    if fence.is_some() {
        note(&mut repairs, RepairKind::CodeFence, prefix_end);
    }
    Some(Source {
        start,
        fence,
        repairs,
        settled: settled && fence.is_some(),
    })
}

/// Where the scan for the next candidate (see [`candidates_from`]) goes on after a value ending at `end`:
/// past the block's closing fence for a fenced value.
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn after_candidate(text: &str, end: usize, fence: Option<u8>) -> usize {
    match fence {
        Some(marker) => end_of_fence(text.as_bytes(), end, marker),
        None => end,
    }
}

/// The next source at or after `from`, in textual order: a json (or untagged) fenced block whose
/// content starts with `{` or `[`, or a bracket in prose that starts a value. Reasoning blocks and other
/// languages' blocks are skipped. `first` accepts a weak start at `from` itself (the answer's first
/// character). Schema-guided extraction reads every candidate this way (SPEC §5).
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn next_candidate(text: &str, from: usize, first: bool) -> Option<Source> {
    let s = text.as_bytes();
    let mut p = from;
    // Just after the last control token passed (none yet).
    let mut weak = usize::MAX;
    // The next marker and bracket at or after `p`, kept while `p` has not passed them, so no byte is
    // searched twice.
    let (mut marker, mut bracket): (Option<usize>, Option<usize>) = (None, None);
    while p < s.len() {
        if marker.map_or(true, |at| at < p) {
            marker = Some(find_tag_or_fence(s, p).unwrap_or(s.len()));
        }
        if bracket.map_or(true, |at| at < p) {
            bracket = Some(find_byte3_far(s, p, b'{', b'[', b'[').unwrap_or(s.len()));
        }
        let (m, b) = (marker.unwrap_or(s.len()), bracket.unwrap_or(s.len()));
        p = m.min(b);
        if p >= s.len() {
            return None;
        }
        if let Some(end) = block_at(s, p) {
            p = end?;
            continue;
        }
        if let Some(token) = past_control_token(s, p) {
            (p, weak) = token;
            continue;
        }
        match s[p] {
            b'{' | b'[' if (first && p == from) || p == weak || is_strong_start(s, p) => {
                return Some(Source {
                    start: p,
                    fence: None,
                    repairs: Vec::new(),
                    settled: true,
                });
            }
            b'`' | b'~' => match fence_at(s, p) {
                Some(f) if f.json_tag && matches!(s.get(f.content), Some(b'{' | b'[')) => {
                    return Some(Source {
                        start: f.content,
                        fence: Some(f.marker),
                        repairs: Vec::new(),
                        settled: true,
                    });
                }
                Some(f) if !f.json_tag => p = end_of_fence(s, f.after_run, f.marker),
                Some(f) => p = f.after_run,
                None => p += 1,
            },
            _ => p += 1,
        }
    }
    None
}

/// Where the answer starts: after leading whitespace and a reasoning block; `None` when the whole text
/// is reasoning.
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn answer_start(text: &str) -> Option<usize> {
    let s = text.as_bytes();
    let mut ignored = Vec::new();
    let begin = skip_space(s, 0, &mut ignored);
    let answer = skip_reasoning(s, begin, &mut ignored).0?;
    Some(skip_space(s, answer, &mut ignored))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(t: &str) -> Option<usize> {
        locate(t.as_bytes()).map(|s| s.start)
    }

    #[test]
    fn leading_think_block_is_skipped() {
        let t = "<THINK>{\"no\":1}</think>{\"yes\":1}";
        assert_eq!(start(t), t.find("{\"yes"));
    }

    #[test]
    fn unclosed_reasoning_has_no_json() {
        assert_eq!(start("<thinking>{\"a\":1}"), None);
    }

    #[test]
    fn a_block_ends_at_its_own_closing_tag_in_any_case() {
        let t = "<think>a</thinking>{\"no\":1} [/THINK] </reasoning> <b>b</b></THINK>{\"x\":1}";
        assert_eq!(start(t), t.find("{\"x"));
        let t = "[THINK]a</think>{\"no\":1} [x] [/think][1]";
        assert_eq!(start(t), t.find("[1]"));
        // Never closed: the whole text is reasoning.
        assert_eq!(start("<thinking>{\"a\": 1}</think>"), None);
    }

    #[test]
    fn tags_that_start_beyond_ascii_end_reasoning_among_typography() {
        // Kimi-VL's tags start with the byte that starts dashes and curly quotes too.
        let t = "◁think▷Sure \u{2014} \u{201c}ok\u{201d} {\"no\":1}◁/think▷ {\"yes\":1}";
        assert_eq!(start(t), t.find("{\"yes"));
        let t = "\u{201c}Draft\u{201d} \u{2014} {\"no\":1}.◁/THINK▷ [1]";
        assert_eq!(start(t), t.find("[1]"));
        // A `◁` that opens no tag, and one split from its 0xE2 by where the scan starts, end nothing.
        let t = "Draft ◁ {\"a\":1} \u{2014} ▷";
        assert_eq!(start(t), t.find("{\"a"));
        assert_eq!(next_think_tag("◁/think▷".as_bytes(), 1), None);
    }

    #[test]
    fn blocks_opened_by_a_tag_beyond_ascii_are_skipped_after_the_answer_starts() {
        // In prose, in a fenced draft, and for the candidates schema-guided extraction reads.
        let t = "Sure \u{2014} ok. ◁think▷Maybe {\"n\": 1}◁/think▷ Here: {\"n\": 2}";
        assert_eq!(start(t), t.find("{\"n\": 2"));
        let t = "Sure. ◁think▷Draft:\n```json\n{\"n\":1}\n```\n◁/think▷\n```json\n{\"n\":2}\n```";
        let src = locate(t.as_bytes()).unwrap();
        assert_eq!(
            (src.start, src.fence),
            (t.find("{\"n\":2").unwrap(), Some(b'`'))
        );
        let t = "Sure. ◁think▷Maybe [1]◁/think▷ [2] and [3]";
        let first = next_candidate(t, 0, true).unwrap().start;
        assert_eq!(first, t.find("[2]").unwrap());
        // A `◁` that opens no tag hides nothing.
        let t = "Sure. ◁ Maybe [1] ▷ then [2]";
        assert_eq!(start(t), t.find("[1]"));
    }

    #[test]
    fn gpt_oss_analysis_ends_at_the_final_or_the_commentary_channel() {
        assert!(REASONING_TAGS[HARMONY].0.starts_with("<|channel|>analysis"));
        let t = "<|channel|>analysis<|message|>Use {\"x\": 0}?<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"x\": 1}<|call|>";
        assert_eq!(start(t), t.find("{\"x\": 1"));
        // Not a block of another pair.
        let t = "<think>a<|channel|>commentary {\"no\": 1}</think>{\"x\": 1}";
        assert_eq!(start(t), t.find("{\"x\": 1"));
    }

    #[test]
    fn orphan_closing_tag_ends_reasoning() {
        let t = "I consider {\"x\":1}.</reasoning>\n[1]";
        assert_eq!(start(t), t.find("[1]"));
        // Unless the text starts with a value that holds it in a string.
        let t = "[{\"tag\": \"</think>\"}, {\"tag\": \"<think>\"},]";
        assert_eq!(start(t), Some(0));
        let t = "{\"a\": \"[/THINK] x\", \"b\": 2,}";
        assert_eq!(start(t), Some(0));
        let t = "Here it is:\n```json\n{\"a\": \"x</think> y\", \"b\": 2,}\n```";
        assert_eq!(start(t), t.find("{\"a"));
    }

    #[test]
    fn first_json_fence_wins_over_prose_and_other_languages() {
        let t = "Use {\"a\":1} like this:\n```python\nx = {\"p\": 1}\n```\n```JSON\n{\"b\":2}\n```";
        let src = locate(t.as_bytes()).unwrap();
        assert_eq!(src.start, t.find("{\"b").unwrap());
        assert_eq!(src.fence, Some(b'`'));
    }

    #[test]
    fn prose_brackets_that_are_not_json_are_passed_over() {
        let t = "Fill in {name} and [see below]: {\"ok\": true}";
        assert_eq!(start(t), t.find("{\"ok"));
        assert_eq!(start("[active, idle]"), Some(0));
        assert_eq!(start("The answer is 42."), None);
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// A text located again as it grows, from what the locations before decided, is located as a
        /// whole text is: leading blocks of every pair, closed, left open or closed by another pair's
        /// tag, and tags, fences and brackets after them, the text growing by a byte or more at a time.
        #[test]
        fn locating_from_what_was_decided_equals_locating_the_whole_text(
            lead in proptest::sample::select(&["", " ", "\n\u{feff} ", "\u{a0}"][..]),
            pair in 0..REASONING_TAGS.len() + 2,
            close in 0..REASONING_TAGS.len() + 2,
            parts in proptest::collection::vec(proptest::sample::select(&[
                "<think>", "</think>", "[/THINK]", "◁/think▷", "[BEGIN FINAL RESPONSE]", "<b>",
                "{\"a\": 1}", "[1, 2]", "{", "[", "}", "\"", "```json\n", "```\n", "~~~", " ", "\n",
                "a \u{2014} b", "x",
            ][..]), 0..12),
            keep in proptest::collection::vec(proptest::bool::ANY, 0..400),
        ) {
            let tags = |n: usize| REASONING_TAGS.get(n).copied().unwrap_or(("", ""));
            let text = format!("{lead}{}{}{}", tags(pair).0, parts.concat(), tags(close).1);
            let mut known = Reasoning::Undecided;
            let ends = (1..=text.len()).filter(|&e| {
                text.is_char_boundary(e) && (e == text.len() || keep.get(e).copied().unwrap_or(true))
            });
            for end in ends {
                let s = &text.as_bytes()[..end];
                let summary =
                    |src: Option<Source>| src.map(|src| (src.start, src.fence, src.repairs, src.settled));
                let whole = summary(locate(s));
                proptest::prop_assert_eq!(summary(locate_in(s, &mut known)), whole, "{:?}", text.get(..end));
            }
        }

        /// Where `skip_reasoning` saw no reasoning tag, the fenced search that does not stop at `<` and
        /// `[` finds what the one that does finds: markup, brackets and fences in any order.
        #[test]
        fn fences_are_found_alike_without_reasoning_tags(
            parts in proptest::collection::vec(proptest::sample::select(&[
                "<div>", "</p>", "<", "[1]", "[", "[/x]", "```json\n", "```\n", "```", "~~~\n",
                "```python\n", "{", "}", "\"", "a", " ", "\n", "`", "<think", "[THIN",
            ][..]), 0..24),
        ) {
            let text = parts.concat();
            let s = text.as_bytes();
            let (answer, decided) = skip_reasoning(s, 0, &mut Vec::new());
            proptest::prop_assume!(!decided && answer == Some(0));
            let found = |tags| find_fenced(s, 0, tags).map(|(open, f)| (open, f.marker, f.content));
            proptest::prop_assert_eq!(found(false), found(true), "{:?}", text);
        }
    }

    #[test]
    fn jsonp_prefix_is_named() {
        let src = locate(b"callback({\"a\":1});").unwrap();
        assert_eq!(src.repairs[0].kind, RepairKind::Jsonp);
    }
}
