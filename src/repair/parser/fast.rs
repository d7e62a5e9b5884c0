//! The fast lane: the common tokens inside an object or array, read without the general state machine.
//!
//! Most of an LLM response is plain JSON even when it needs repairs, and the repairs that fill whole
//! documents (single-quoted and typographic strings, raw line breaks in strings, unquoted keys, Python
//! and JavaScript literals, missing and trailing commas) are local. The fast lane reads those tokens in a
//! tight loop and, for a value string followed by a comma and a key, decides where the string ends and
//! reads the key in one scan instead of two.
//!
//! It is an optimisation only: every token it takes leaves the parser exactly as the general steps
//! would (the same output, repairs, stack and state), and at the first byte it is not sure of it
//! returns without having consumed that token, and the general step reads it. Whatever decision the
//! general parser would base on a look-ahead is taken here only when the same bytes are in view, so the
//! two are meant to agree on every input; a property test runs both on generated ones. It runs only on
//! complete input (`!more`): streams keep the general steps, whose suspensions carry the any-chunking
//! guarantee.
//!
//! The file is longer than the others because the lane is one loop whose cases must be read together
//! with the property test below that holds it to the general steps.

use super::numbers::{is_strict_number, is_token_end, Keyword};
use super::strings::{is_short_escape, may_follow_closing_typographic};
use super::value::may_open_set;
use super::{
    copy_from, push_bytes, push_control, Container, Ctx, Input, Parser, State, Step, KEYWORDS,
    SPECIAL_DOUBLE, SPECIAL_SINGLE,
};
use crate::record::RepairKind;
use crate::repair::chars::{
    closer_len, punct, quote_at, skip_json_ws, skip_plain_string_bytes, skip_to_escape_bytes,
    QuoteStyle, IDEOGRAPHIC_SPACE, NBSP,
};

/// Whether what follows the `{` at `pos`, past ASCII spaces, may be a Python set's first item or the
/// no-break space before it; only then is `set_at` asked, and only a set leaves the lane.
fn set_may_open(s: &[u8], pos: usize, end: usize) -> bool {
    let n = skip_json_ws(s, pos + 1, end);
    n < end && may_open_set(s[n])
}

/// Whether the byte at `k` ends a number or keyword in the lane: [`is_token_end`], or a full-width comma,
/// which the general steps end one at too.
#[inline(always)]
fn token_ends_at(s: &[u8], k: usize) -> bool {
    is_token_end(s[k]) || punct(s, k) == (b',', 3)
}

/// Bytes of an unquoted key the fast lane reads: ASCII identifier bytes that the general parser copies
/// verbatim and that also continue a word in its key look-ahead.
#[inline(always)]
fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-')
}

/// String content the fast lane can take: where its closing quote is, and whether it is copied as it
/// stands.
struct Content {
    close: usize,
    close_len: usize,
    /// Whether a typographic quote that could have closed the string was read as content.
    typographic: bool,
    /// Whether the content holds what the general steps write otherwise ([`Parser::write_escaped`]):
    /// a raw control character, a `"` in a single-quoted string, a `\'`.
    escapes: bool,
}

/// The keyword `rest` starts with, if any (no keyword is a prefix of another, so there is one at most).
#[inline(never)]
pub(super) fn keyword_prefix(rest: &[u8]) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|(word, _, _)| rest.starts_with(word))
}

/// Whether the typographic quote that ends just before `k` in a straight-quoted string is content for
/// certain. [`Parser::typographic_may_close`] looks past the same spaces ([`Input::peek_past_space`]):
/// with no line break among them, the quote is content before any character but a delimiter, a comment
/// or a fence (a letter of any script, a dash, another quote); past line breaks, before a letter that
/// starts no keyword, where [`Parser::ends_string`] keeps prose's quote inside the string (`“ready”` at
/// the end of a line, words on the next).
#[inline]
fn typographic_is_content(input: &Input<'_>, s: &[u8], k: usize, end: usize) -> bool {
    let (n, newline) = input.peek_past_space(k);
    let Some(&b) = s[..end].get(n) else {
        return false;
    };
    if newline {
        return b.is_ascii_alphabetic() && keyword_prefix(&s[n..end]).is_none();
    }
    // The look-ahead stops at a character beyond ASCII only where it is no space.
    !matches!(b, b'/' | b'#') && !may_follow_closing_typographic(b)
}

/// Scans string content starting at `i` to its closing quote when every byte before it is content the
/// general parser copies verbatim, or writes otherwise as [`Parser::write_escaped`] does: only valid
/// escapes and `\'`, no quote but content or the string's own closer (the quote rule is the general
/// steps' [`closer_len`]), a `"` in a single-quoted string, and raw control characters only with
/// `controls`. `None` when the content holds anything else or the input ends first. Inlined into its
/// caller: a call per string cost 1–4% of whole repairs (its prologue and spills), for about 300 bytes
/// of module gzipped.
#[inline(always)]
fn scan_content(
    input: &Input<'_>,
    s: &[u8],
    mut i: usize,
    end: usize,
    style: QuoteStyle,
    curly_closes: bool,
    controls: bool,
) -> Option<Content> {
    // The length of the string's own closing quote, as of its opening one.
    let own = if matches!(style, QuoteStyle::CurlyDouble | QuoteStyle::CurlySingle) {
        3
    } else {
        1
    };
    let single = matches!(style, QuoteStyle::Single | QuoteStyle::CurlySingle);
    let own_straight = match style {
        QuoteStyle::Double => b'"',
        QuoteStyle::Single => b'\'',
        _ => 0,
    };
    let table = if single {
        &SPECIAL_SINGLE
    } else {
        &SPECIAL_DOUBLE
    };
    let mut typographic = false;
    let mut escapes = false;
    loop {
        i = skip_plain_string_bytes(s, i, end, single);
        while i < end && !table[s[i] as usize] {
            i += 1;
        }
        if i >= end {
            return None;
        }
        let b = s[i];
        if b == b'\\' {
            match s.get(i + 1) {
                Some(&e) if is_short_escape(e) && i + 1 < end => i += 2,
                Some(b'\'') if i + 1 < end => {
                    escapes = true;
                    i += 2;
                }
                Some(b'u') if i + 6 <= end && s[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) => {
                    i += 6
                }
                _ => return None,
            }
        } else if b < 0x20 {
            if !controls {
                return None;
            }
            escapes = true;
            i += 1;
        } else if b == own_straight {
            // The common case first: the straight quote that closes a straight-quoted string.
            return Some(Content {
                close: i,
                close_len: 1,
                typographic,
                escapes,
            });
        } else {
            match closer_len(style, curly_closes, s, i) {
                // Content; a `"` (in a single-quoted string) is written escaped, as the general steps
                // write it.
                0 => {
                    escapes |= b == b'"';
                    i += 1;
                }
                // The string's own closing quote; whether it ends the string, what follows decides.
                n if n == own => {
                    return Some(Content {
                        close: i,
                        close_len: n,
                        typographic,
                        escapes,
                    })
                }
                // A typographic quote in a straight-quoted string, before what cannot end it.
                3 if own_straight != 0 && typographic_is_content(input, s, i + 3, end) => {
                    typographic = true;
                    i += 3;
                }
                // A quote of another kind that may close it: its role only the general steps decide.
                _ => return None,
            }
        }
    }
}

/// A key the fast lane can read at `i`: `(quote, content start, content end, offset after the colon)`,
/// for a quoted key with plain content (`quote` is its quote's first byte, 0xE2 for a typographic one) or
/// an unquoted identifier (`quote` 0), followed by spaces and a colon on the same line.
#[inline]
fn plain_key(
    s: &[u8],
    i: usize,
    end: usize,
    curly_closes: bool,
) -> Option<(u8, usize, usize, usize)> {
    let b = *s.get(i)?;
    let (quote, start, stop, after) = if b == b'"' || b == b'\'' {
        // Keys are short: a byte loop up to the closing quote, and anything a quote, an escape, a
        // control character or a typographic mark (0xE2) makes a matter of rules is left to the
        // general steps. `scan_content` inlined here cost about 300 bytes of module gzipped.
        let mut close = i + 1;
        while close < end && !matches!(s[close], b'"' | b'\'' | b'\\' | 0..=0x1F | 0xE2) {
            close += 1;
        }
        if close >= end || s[close] != b {
            return None;
        }
        (b, i + 1, close, close + 1)
    } else if b == 0xE2 {
        // In typographic quotes, a key of ASCII characters that need no escape and no quote (the
        // general steps copy them as they are), up to the closing quote its opening one takes.
        let (style, _) = quote_at(s, i)?;
        let mut k = i + 3;
        while k < end && matches!(s[k], b' '..=b'~') && !matches!(s[k], b'"' | b'\'' | b'\\') {
            k += 1;
        }
        if k + 3 > end || closer_len(style, curly_closes, s, k) != 3 {
            return None;
        }
        (b, i + 3, k, k + 3)
    } else if b.is_ascii_alphabetic()
        || matches!(b, b'_' | b'$')
        || b >= 0x80 && !matches!(b, 0xC2 | 0xE1..=0xE3 | 0xEF)
    {
        // Characters beyond ASCII too, except where a space, an invisible character, a typographic
        // quote, an ellipsis or full-width punctuation may start (what the general steps skip or read
        // otherwise before a key, or end it at).
        let mut k = i + 1;
        while k < end && (is_key_byte(s[k]) || s[k] >= 0x80 && s[k] != 0xEF) {
            k += 1;
        }
        (0, i, k, k)
    } else {
        return None;
    };
    let mut k = after;
    while k < end && matches!(s[k], b' ' | b'\t') {
        k += 1;
    }
    // A full-width colon only after quotes: the general look-ahead for a key (`key_ahead`) reads an
    // unquoted one as part of the word.
    let (colon, width) = if k < end { punct(s, k) } else { (0, 0) };
    (colon == b':' && (width == 1 || quote != 0)).then_some((quote, start, stop, k + width))
}

impl Parser<'_> {
    /// Reads tokens in the fast lane until one needs the general steps; see the module documentation.
    /// Returns the errors the general steps would return for the same tokens.
    #[inline(never)]
    pub(super) fn fast_lane(&mut self) -> Step {
        // Only complete input reaches the lane (`advance` checks), so no read of it needs to wait.
        let Some(s) = self.input.complete_bytes() else {
            return Ok(());
        };
        loop {
            // Again at each token: a closing fence ends the source.
            let end = self.input.end();
            // An object the parser opened around a key in an array is left to the general steps.
            let in_object = match self.st.stack.last() {
                Some(f)
                    if f.kind == Container::Object && self.st.implicit != self.st.stack.len() =>
                {
                    true
                }
                Some(f) if f.kind == Container::Array => false,
                _ => return Ok(()),
            };
            let pos = skip_json_ws(s, self.st.pos, end);
            // The general step skips the same whitespace first.
            self.st.pos = pos;
            if pos >= end {
                return Ok(());
            }
            let b = s[pos];
            // A no-break or ideographic space, skipped and recorded as the general step does.
            if b >= 0xC2 {
                let rest = &s[pos..end];
                let space = if rest.starts_with(NBSP) {
                    NBSP.len()
                } else if rest.starts_with(IDEOGRAPHIC_SPACE) {
                    IDEOGRAPHIC_SPACE.len()
                } else {
                    0
                };
                if space > 0 {
                    self.note(RepairKind::NonstandardWhitespace, pos)?;
                    self.st.pos = pos + space;
                    continue;
                }
            }
            if matches!(b, b'/' | b'#') {
                // A comment, perhaps: the general step skips it first, and so does this one.
                self.skip_space()?;
                if self.st.pos == pos {
                    return Ok(());
                }
                continue;
            }
            match self.st.state {
                State::AfterValue => {
                    let (p, width) = punct(s, pos);
                    match p {
                        b',' => {
                            if width > 1 {
                                // repair: `{"a": 1，"b": 2}`, as the general `separator` makes it
                                self.note(RepairKind::FullwidthPunctuation, pos)?;
                            }
                            self.st.pending_comma = Some(pos);
                            self.st.pos = pos + width;
                            self.st.state = State::item(in_object);
                        }
                        b'}' if in_object => self.close_with(b)?,
                        b']' if !in_object => self.close_with(b)?,
                        // A missing `}` before an array's next item: the general step decides.
                        b'{' | b'[' if in_object && self.objects_above_list() > 0 => return Ok(()),
                        // A quote right after a number or keyword may be a stray one: the general step
                        // decides.
                        b'"' if s[pos - 1].is_ascii_alphanumeric() => return Ok(()),
                        // repair: `[1 2]`, `{"a": 1 "b": 2}`
                        b'"' | b'\'' | b'{' | b'[' | b'_' | b'$' | b'-' | b'+' => {
                            self.missing_comma(in_object)?
                        }
                        _ if b.is_ascii_alphanumeric() => self.missing_comma(in_object)?,
                        _ => return Ok(()),
                    }
                }
                State::Key => match b {
                    b'}' | b']' => self.close_with(b)?,
                    _ => match plain_key(s, pos, end, self.st.curly_closes) {
                        Some(key) => self.fast_key(key)?,
                        None => return Ok(()),
                    },
                },
                State::Value => match b {
                    b'"' | b'\'' | 0xE2 => {
                        let Some((quote, _)) = quote_at(s, pos) else {
                            return Ok(());
                        };
                        if !self.fast_string(s, quote, in_object)? {
                            return Ok(());
                        }
                    }
                    b'{' => {
                        // A Python set (`{1, 2}`, `{'a', 'b'}`) is left to the general step.
                        if set_may_open(s, pos, end) && self.set_at(pos)? {
                            return Ok(());
                        }
                        self.open(Container::Object)?
                    }
                    b'[' => self.open(Container::Array)?,
                    b']' if !in_object => self.close_with(b)?,
                    b'-' | b'0'..=b'9' => {
                        let mut pos = pos;
                        loop {
                            let mut k = pos + 1;
                            while k < end
                                && matches!(s[k], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                            {
                                k += 1;
                            }
                            if k >= end || !token_ends_at(s, k) || !is_strict_number(&s[pos..k]) {
                                return Ok(());
                            }
                            // The general step reads a member's digits past a comma (`1,000`) and
                            // whatever follows a space (`5 kg`, `[2 eggs]`, `{ "a": 1 }`): a space after
                            // a number is rare in the lane's documents.
                            if match s[k] {
                                b',' => in_object && (k + 1 >= end || s[k + 1].is_ascii_digit()),
                                b' ' | b'\t' => true,
                                _ => false,
                            } {
                                return Ok(());
                            }
                            self.begin_value();
                            copy_from(&mut self.st.out, s, pos..k);
                            self.st.pos = k;
                            self.value_done();
                            if in_object {
                                break;
                            }
                            // In an array, a comma and the next number are read here, as the loop's
                            // `AfterValue` and `Value` steps read them: a list of numbers costs a
                            // dispatch per item less. Anything else between them goes back to the loop.
                            let comma = skip_json_ws(s, k, end);
                            let next = skip_json_ws(s, comma + 1, end);
                            if s[..end].get(comma) != Some(&b',')
                                || !matches!(s[..end].get(next), Some(b'-' | b'0'..=b'9'))
                            {
                                break;
                            }
                            self.st.pending_comma = Some(comma);
                            self.st.state = State::Value;
                            self.st.pos = next;
                            pos = next;
                        }
                    }
                    b't' | b'f' | b'n' | b'T' | b'F' | b'N' | b'u' | b'I' => {
                        let Some(&(word, json, kind)) =
                            keyword_prefix(&s[pos..end]).filter(|(word, _, _)| {
                                pos + word.len() < end && token_ends_at(s, pos + word.len())
                            })
                        else {
                            return Ok(());
                        };
                        self.begin_value();
                        if let Some(kind) = kind {
                            self.note(kind, pos)?;
                        }
                        push_bytes(&mut self.st.out, json);
                        self.st.pos = pos + word.len();
                        self.value_done();
                    }
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Writes the input bytes `content` as a JSON string, and a colon after it for a key.
    #[inline(always)]
    fn write_quoted(&mut self, content: core::ops::Range<usize>, colon: bool) {
        let out = &mut self.st.out;
        out.push(b'"');
        self.input.seen().copy(out, content.start, content.end);
        out.push(b'"');
        if colon {
            out.push(b':');
        }
    }

    /// Writes the string content `s[content]` as a JSON string as the general steps write it, with the
    /// repairs they record in it, in its order: raw control characters escaped (one repair, at the
    /// first), each `\'` as a quote (a repair each), a `"` in a single-quoted string escaped, other escapes
    /// copied whole (in `\\"` the quote follows an escaped backslash). Out of line: most strings need none
    /// of it.
    #[inline(never)]
    fn write_escaped(&mut self, s: &[u8], content: core::ops::Range<usize>) -> Step {
        self.st.out.push(b'"');
        let (mut run, mut i) = (content.start, content.start);
        let mut control = false;
        while i < content.end {
            // Eight bytes a step up to what may need attention, then a byte.
            i = skip_to_escape_bytes(s, i, content.end);
            if i >= content.end {
                break;
            }
            let b = s[i];
            i += 1;
            if b >= 0x20 && b != b'"' && b != b'\\' || b == b'\\' && s[i] != b'\'' {
                // A byte of the last eight, or an escape copied whole.
                i += usize::from(b == b'\\');
                continue;
            }
            copy_from(&mut self.st.out, s, run..i - 1);
            match b {
                b'"' => self.st.out.extend_from_slice(b"\\\""),
                b'\\' => {
                    // repair: `\'` is not a JSON escape; the quote is content
                    self.note(RepairKind::InvalidEscape, i - 1)?;
                    self.st.out.push(b'\'');
                    i += 1;
                }
                _ => {
                    if !control {
                        // repair: raw newline, tab or other control character inside a string
                        self.note(RepairKind::ControlCharacter, i - 1)?;
                        control = true;
                    }
                    push_control(&mut self.st.out, b);
                }
            }
            run = i;
        }
        copy_from(&mut self.st.out, s, run..content.end);
        self.st.out.push(b'"');
        Ok(())
    }

    /// [`Parser::record`] inlined in the lane (the common case, a repair the options allow, without a call;
    /// a forbidden one fails through `record`).
    #[inline(always)]
    fn note(&mut self, kind: RepairKind, offset: usize) -> Step {
        if self.st.forbid.contains(kind) {
            return self.record(kind, offset);
        }
        self.keep_repair(kind, offset);
        Ok(())
    }

    /// repair: a missing comma before the token at `pos`, as the general `after_value` makes it.
    #[inline]
    fn missing_comma(&mut self, in_object: bool) -> Step {
        self.note(RepairKind::MissingComma, self.st.pos)?;
        self.st.state = State::item(in_object);
        Ok(())
    }

    /// Writes a key found by [`plain_key`] at `pos` and its colon, as the general `key` (or
    /// `unquoted_key`) and `after_key` steps do.
    #[inline(always)]
    fn fast_key(&mut self, (quote, start, stop, after): (u8, usize, usize, usize)) -> Step {
        let at = self.st.pos;
        self.begin_item();
        match quote {
            b'"' => {}
            b'\'' => self.note(RepairKind::SingleQuotes, at)?,
            0 => {
                self.note(RepairKind::UnquotedKey, at)?;
                self.st.loose_keys = true;
            }
            _ => self.note(RepairKind::CurlyQuotes, at)?,
        }
        if self.input.seen()[after - 1] != b':' {
            // repair: `{"名前"："太郎"}`, as `after_key` makes it
            self.note(RepairKind::FullwidthPunctuation, after - 3)?;
        }
        self.write_quoted(start..stop, true);
        self.st.pos = after;
        self.st.state = State::Value;
        Ok(())
    }

    /// A value string opened by `quote` at `pos`, taken when its end is certain from what follows it:
    /// a closing bracket, a comma and what the container expects next, or spaces and another quote.
    /// Reads the key that follows a comma in an object too. `Ok(false)` when it took nothing.
    #[inline]
    fn fast_string(
        &mut self,
        s: &[u8],
        quote: QuoteStyle,
        in_object: bool,
    ) -> Result<bool, super::Stop> {
        let end = self.input.end();
        let open = self.st.pos;
        let open_len = if quote == QuoteStyle::Double || quote == QuoteStyle::Single {
            1
        } else {
            3
        };
        // Raw control characters are escaped, except in a fenced source, where a line break inside a
        // string may be where the closing fence cuts it.
        let controls = !self.input.fenced_source();
        let Some(Content {
            close,
            close_len,
            typographic,
            escapes,
        }) = scan_content(
            &self.input,
            s,
            open + open_len,
            end,
            quote,
            self.st.curly_closes,
            controls,
        )
        else {
            return Ok(false);
        };
        let after = close + close_len;
        let n = skip_json_ws(s, after, end);
        // After a comment the general rule may weigh the quotes taken as content: it decides.
        if n >= end || typographic && matches!(s[n], b'/' | b'#') {
            return Ok(false);
        }
        let mut key = None;
        let (next, width) = punct(s, n);
        let ends = match next {
            // A closer of the other kind: whether it ends the string, the general rule decides.
            b'}' => in_object,
            b']' => !in_object,
            // repair (made by the next step): a missing comma before the quote; in an object, only
            // before a key (else the general rule decides: prose's next quoted words, `"no" "yes"`)
            _ if quote_at(s, n).is_some() => {
                n > after && (!in_object || plain_key(s, n, end, self.st.curly_closes).is_some())
            }
            b',' => {
                let r = skip_json_ws(s, n + width, end);
                match s.get(r) {
                    _ if r >= end => false,
                    Some(b'}') if in_object => true,
                    Some(b'/' | b'#' | 0xC2 | 0xE3) if in_object => {
                        // Comments or Unicode spaces before the next member: the general rule looks
                        // past them for a key or the closing brace (`plain_key` finds a subset of its
                        // keys); the next steps read them.
                        let (k, _) = self.peek_past_space_and_comments(r, true)?;
                        s.get(k) == Some(&b'}') && k < end
                            || plain_key(s, k, end, self.st.curly_closes).is_some()
                    }
                    Some(_) if in_object => {
                        key = plain_key(s, r, end, self.st.curly_closes).map(|k| (r, k));
                        key.is_some()
                    }
                    Some(b'{' | b'[' | b']' | b'0'..=b'9') => true,
                    Some(_) if quote_at(s, r).is_some() => true,
                    Some(b'-') => s.get(r + 1).is_some_and(u8::is_ascii_digit) && r + 1 < end,
                    _ => false,
                }
            }
            _ => false,
        };
        // A comment after the string or its comma: the general rule decides, as it would (a comma or a
        // comment after a string leaves nothing for `after_string` to join). After a typographic quote,
        // or with one taken as content, it weighs the string's style and the quotes it took, which only
        // the general steps keep: they decide then. Without, the rule's count of them is 0 here, as
        // for the general steps (`string_body` resets it after every string).
        let ends = ends
            || (matches!(next, b',' | b'/' | b'#')
                && s[after - 1] < 0x80
                && !typographic
                && self.ends_string(after, Ctx::Value)?);
        if !ends {
            return Ok(false);
        }
        self.begin_value();
        match quote {
            QuoteStyle::Double => {}
            QuoteStyle::Single => self.note(RepairKind::SingleQuotes, open)?,
            _ => self.note(RepairKind::CurlyQuotes, open)?,
        }
        let content = open + open_len..close;
        if !escapes {
            self.write_quoted(content, false);
        } else {
            self.write_escaped(s, content)?;
        }
        self.st.pos = after;
        self.value_done();
        if let Some((r, k)) = key {
            if width > 1 {
                // repair: `{"a": "x"，"b": 2}`, as the general `separator` makes it
                self.note(RepairKind::FullwidthPunctuation, n)?;
            }
            self.st.pending_comma = Some(n);
            self.st.pos = r;
            self.fast_key(k)?;
        }
        Ok(true)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::{Fault, Output, Parser};
    use crate::record::RepairSet;
    use proptest::prelude::*;

    /// Fragments that sit on the fast lane's edges: what it takes, and the bytes next to it that it
    /// must leave to the general steps.
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\t",
        "\r",
        "\"",
        "'",
        "\"k\"",
        "'k'",
        "k",
        "k-1",
        "$k",
        "a.b",
        "\"v\"",
        "'v'",
        "\"a b\"",
        "\\",
        "\\\"",
        "\\'",
        "\\n",
        "\\u00e9",
        "\\u12",
        "\\d",
        "é",
        "“",
        "”",
        "‘",
        "’",
        "—",
        "…",
        "...",
        "：",
        "，",
        "\u{a0}",
        "\u{b}",
        "\u{c}",
        "\u{200b}",
        "1",
        "-",
        "0",
        "01",
        "1.5",
        "1.",
        "-2e+3",
        "1e",
        "+1",
        "12px",
        "000",
        ",5",
        ", 6",
        ",\n  -7.5",
        "1,000",
        "1_000",
        "k\":",
        "\"k:\"",
        "true",
        "false",
        "null",
        "True",
        "False",
        "None",
        "tru",
        "nullx",
        "NaN",
        "Infinity",
        "undefined",
        "f(",
        ")",
        "//",
        "/*",
        "*/",
        "#",
        "```",
        "~~~",
        "<|im_end|>",
        "=",
        "+",
        "\"k\": ",
        "'k': ",
        "k: ",
        ", \"k\":",
        ",\n  \"k\": ",
        // Shapes of issue 23: Unicode spaces, records missing a brace, numeric keys, words in a row.
        "\u{3000}",
        "\u{2009}",
        "}, {",
        ", {\"i\": ",
        "5: ",
        "a b",
        "foo\",",
        // Brackets inside strings, closers of the wrong kind.
        "{\"",
        "[\"",
        "\"]",
        "\"}",
        "\"] y\"",
        // Python tuples.
        "(",
        "(1, ",
        "('a', ",
        ",)",
        // Python sets.
        "{1, ",
        "{'a', ",
        // Closers written twice, closers that end a string cut before its quote, bare words with commas
        // and braces.
        "}}",
        "]]",
        " }\n",
        "ipsum, sic",
        ", datum.\"",
        "w{x}y",
        "a, \"b",
        // Members as one string, closing fences with no opening one, calls among bare words.
        "\"k:v\"",
        "}```",
        "\"```",
        "F(3)",
        // Template strings.
        "`",
        "`a b`",
        "\\`",
        // Typographic quotes inside straight-quoted strings, before words, spaces and delimiters.
        "”s",
        "” ",
        "” “",
        " “yes” ",
        "’t",
        "’ ",
        // The same before characters beyond ASCII: letters, dashes and quotes are content, spaces are
        // looked past.
        "”你",
        "” —",
        "’é",
        "”“",
        "” «",
        "”\u{a0}",
        "”\u{3000}",
        "”\u{2028}",
        "”\u{200b}",
        // Spaces and invisible characters beyond JSON's between tokens.
        "\u{feff}",
        "\u{2060}",
        "\u{1680}",
        // Full-width punctuation between members.
        "\"k\"：",
        "1，",
        "\"v\"，",
        "true，",
        // Unquoted keys beyond ASCII.
        "名前",
        "ключ",
        "名前：",
        // Keys and values in typographic quotes, apostrophes in them.
        "“k”",
        "‘k’",
        "“k”: ",
        "‘k’: ",
        "‘v’",
        "“a b”",
        "‘it’s’",
        // The same before line breaks, and the words or keywords on the next line.
        "”\n",
        "’\r\n  ",
        "\nready",
    ];

    fn soup() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.concat())
    }

    fn run(text: &str, fast: bool, forbid: RepairSet, fence: Option<u8>) -> Result<Output, Fault> {
        let mut p = Parser::new(text.as_bytes(), 0, fence, forbid, 64);
        p.st.fast = fast;
        p.run()
    }

    fn same(text: &str, forbid: RepairSet, fence: Option<u8>) -> Result<(), TestCaseError> {
        let (general, fast) = (
            run(text, false, forbid, fence),
            run(text, true, forbid, fence),
        );
        match (&general, &fast) {
            (Ok(g), Ok(f)) => {
                prop_assert_eq!(&g.json, &f.json, "json of {:?}", text);
                prop_assert_eq!(&g.repairs, &f.repairs, "repairs of {:?}", text);
                prop_assert_eq!(g.end, f.end, "end of {:?}", text);
            }
            (Err(g), Err(f)) => prop_assert_eq!(g, f, "error of {:?}", text),
            _ => prop_assert!(
                false,
                "{:?}: general {:?}, fast {:?}",
                text,
                general.map(|o| o.json),
                fast.map(|o| o.json)
            ),
        }
        Ok(())
    }

    /// `same` for each text, with repairs allowed and with every repair forbidden.
    fn same_with_and_without_repairs(texts: &[&str]) {
        for text in texts {
            for forbid in [RepairSet::NONE, RepairSet::ALL] {
                same(text, forbid, None).unwrap();
            }
        }
    }

    /// A value string followed by a comma and a comment: the fast lane decides where the string ends as
    /// the general rule does, whatever follows the comment.
    #[test]
    fn comments_after_a_comma_end_a_string_as_the_general_rule_says() {
        same_with_and_without_repairs(&[
            "{\"a\": \"x\", /* c */ \"b\": 1}",
            "{\"a\": \"x\", // c\n \"b\": 1}",
            "{\"a\": \"x\", # c\n b: 1}",
            "{\"a\": \"x\", /* c */ y z\", \"b\": 1}",
            "{\"a\": \"x\", /* c */ 1, \"b\": 2}",
            "{\"a\": \"x\", /* c */ [1], \"b\": 2}",
            "{\"a\": \"x\", /* c */ }",
            "{\"a\": \"x\", /* c */",
            "{\"a\": \"x\", /* unterminated",
            "{\"a\": \"x\", // c\n  y w\", z: 1}",
            "{\"a\": \"x\", #c\n \"b\" \"c\": 1}",
        ]);
    }

    /// A `"` in a single-quoted string, a `\'` in any string, raw control characters among them: the lane
    /// writes them as the general steps do, with the same repairs in the same order, beside escapes of
    /// every kind (an escaped quote, an escaped backslash before a raw quote, `\u0022`).
    #[test]
    fn quotes_to_escape_or_unescape_are_written_as_the_general_steps_write_them() {
        let texts = [
            "{'a': 'say \"hi\"', 'b': 1}",
            "{'code': 'print(\"hi\")', 'n': 2}",
            "['\"', '\"\"', 'x\"', 1]",
            "{'a': 'x\\\"y\"z', 'b': 2}",
            "{'a': 'x\\\\\"y', 'b': 2}",
            "{'a': '\\\\', 'b': '\"\\\\\"'}",
            "{'a': '\\u0022\"\\n', 'b': 3}",
            "[‘say \"hi\"’, ‘\"’]",
            "{'a': 'it\\'s \"ok\"', 'b': 1}",
            "{\"a\": \"it\\'s\", \"b\": '\\'\\''}",
            "{'a': 'x\n\\'y\"\tz\n', 'b': 1}",
            "{'a': 'line\nbreak \"q\"', 'b': 1}",
            "{'a': 'x\"', // c\n 'b': 1}",
            "{'a': 'x\" \"y', \"b\": 'z'}",
            "{'a': 'x\\\\'",
            "{'a': 'x\"'",
        ];
        same_with_and_without_repairs(&texts);
        let json = |text: &str| run(text, true, RepairSet::NONE, None).unwrap().json;
        assert_eq!(json(texts[3]), br#"{"a":"x\"y\"z","b":2}"#);
        assert_eq!(json(texts[4]), br#"{"a":"x\\\"y","b":2}"#);
        assert_eq!(json(texts[5]), br#"{"a":"\\","b":"\"\\\""}"#);
        assert_eq!(json(texts[10]), br#"{"a":"x\n'y\"\tz\n","b":1}"#);
    }

    /// A typographic quote at the end of a line in a straight-quoted string: content before words on
    /// the next line, whatever the general rule makes of it before a keyword, a delimiter or a comment.
    #[test]
    fn typographic_quotes_before_a_line_break_end_a_string_as_the_general_rule_says() {
        same_with_and_without_repairs(&[
            "{\"a\": \"the “ready”\nmodule\", \"b\": 1}",
            "{\"a\": \"it’s “done”  \r\n\t  north\"}",
            "[\"“a”\n\nb\", \"c\"]",
            "{\"a\": \"x”\ntrue, \"b\": 1}",
            "{\"a\": \"x”\ntrue, y\", \"b\": 1}",
            "[\"x”\nnull, y\", 2]",
            "{\"a\": \"x”\nNone}",
            "[\"x”\nnull]",
            "[\"x”\nnullable\"]",
            "{\"a\": \"x”\n\"b\": 1}",
            "{\"a\": \"x”\n// c\n\"b\": 1}",
            "{\"a\": \"x”\n}",
            "{\"a\": \"x”\nword",
            "{\"a\": \"x”\n",
        ]);
    }

    /// A typographic quote in a straight-quoted string before a character beyond ASCII: content before
    /// letters of any script, dashes and other quotes, which no delimiter is; a Unicode space or an
    /// invisible character the general rule looks past, to what follows.
    #[test]
    fn typographic_quotes_before_characters_beyond_ascii_end_a_string_as_the_general_rule_says() {
        same_with_and_without_repairs(&[
            "{\"a\": \"他说：“好的”。然后离开了\", \"b\": 1}",
            "[\"the “ready” — module\", \"c\"]",
            "[\"“a”…\", \"“b”“c”\"]",
            "{\"a\": \"l’été\", \"b\": \"don’t “x” 🚀\"}",
            "[1, \"x”\u{200b}, \"y\"]",
            "[1, \"x”\u{feff}]",
            "[1, \"x”\u{3000}, \"y\"]",
            "[1, \"x”\u{a0}, \"y\"]",
            "[1, \"x” \u{2009}}",
            "[1, \"x” «y»\", 1]",
            "[1, \"x”\u{2028}, \"y\"]",
            "[1, \"x”你",
            "[1, \"x”\u{200b}] and more\", 1]",
            "[1, \"x”\u{3000}] and more\", 1]",
            "[1, \"x”\u{a0}] and more\", 1]",
            "{\"a\": \"x”\u{200b}} or not\", \"b\": 1}",
            "{\"a\": \"x”\u{3000}, b: 2 \", \"c\": 1}",
            "{\"a\": \"x”\u{a0}, \"b\": 2 \", \"c\": 1}",
        ]);
    }

    /// Keys and values in typographic quotes, unquoted keys beyond ASCII, Unicode spaces and full-width
    /// punctuation between tokens: the lane reads them as the general steps do, and leaves what it
    /// cannot be sure of to them.
    #[test]
    fn keys_strings_and_spaces_beyond_ascii_read_as_the_general_steps_do() {
        same_with_and_without_repairs(&[
            "{“name”: “Ada”, “tags”: [“a”, “b”]}",
            "{‘name’: ‘Ada’, ‘n’: 1}",
            "{“a b-c”: 1, “”: 2}",
            "{“it’s”: 1}",
            "{‘it’s’: ‘it’s’}",
            "{“k\"q”: 1}",
            "{“k”“: 1}",
            "{“名前”: “太郎”}",
            "[‘a’, ‘b’]",
            "{\"a\":\u{a0}1,\u{3000}\"b\":\u{a0}\u{a0}[1,\u{3000}2]}",
            "{\"a\": 1,\n\u{a0}\u{a0}\"b\": 2}",
            "[1,\u{a0}",
            "{名前: 1, ключ: 2, é: 3, キー: 4}",
            "{\"a\": \"x\", 名前: 1, \"b\": \"y\",\u{3000}名前: 2}",
            "{名前 : 1, 名前：2, 名\u{3000}前: 3, 名前”: 4}",
            "{\"名前\"：\"太郎\"，\"n\"：1，\"b\"：true，\"c\"：[1，\"x\"，null]，}",
            "{'a'：'x'，'b'：None，“c”：1}",
            "{名前：1，\"a\"：\"x\"，名前：2}",
            "{\"a\": \"x\"，名前：f(1)}",
            "{\"a\": 1，000，\"b\": 2，}",
        ]);
    }

    /// A member's number followed by a comma and a digit: the fast lane leaves the digits past the comma
    /// to the general step (`1,000` is one number there).
    #[test]
    fn digits_after_a_members_comma_are_left_to_the_general_step() {
        same_with_and_without_repairs(&[
            "{\"n\": 1,000, \"m\": 2}",
            "{\"n\": 1,000}",
            "{\"n\": 12,50}",
            "{\"n\": 1,",
            "{\"n\": 1,0",
            "{\"n\": 1,2: 3}",
            "[1,000]",
        ]);
    }

    /// Lists of numbers, read item after item without the loop's dispatch: every separator the general
    /// steps read otherwise (a comment, a Unicode space, a full-width comma, a missing or doubled comma)
    /// goes back to the loop, and the list ends as they end it.
    #[test]
    fn lists_of_numbers_read_as_the_general_steps_do() {
        same_with_and_without_repairs(&[
            "[1, 2, 3]",
            "[\n  -0.5,\n  1e3,\n  2E-2\n]",
            "[1, 2, 3,]",
            "[1, 2, 3, ]",
            "[1, 2 3]",
            "[1,, 2]",
            "[1, /* c */ 2]",
            "[1, // c\n 2]",
            "[1, # c\n 2]",
            "[1,\u{a0}2]",
            "[1，2]",
            "[1, 01, 2]",
            "[1, 2.]",
            "[1, -, 2]",
            "[1, -]",
            "[1, 2, -\n]",
            "[1, 2, 01]",
            "[1, 2, \"a\", 3]",
            "[1, 2, [3, 4], 5]",
            "{\"a\": [1, 2], \"b\": 3}",
            "[1, 2",
            "[1, 2,",
            "[1, 2, 3",
            "[[1, 2], [3, 4]]",
        ]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// The fast lane leaves the parser exactly as the general steps do: same JSON, repairs, end.
        #[test]
        fn fast_lane_equals_general_steps(body in soup(), object in any::<bool>()) {
            let text = if object { format!("{{{body}") } else { format!("[{body}") };
            same(&text, RepairSet::NONE, None)?;
        }

        /// The same with every repair forbidden (the strict pass): same errors at the same offsets.
        #[test]
        fn fast_lane_equals_general_steps_when_strict(body in soup()) {
            same(&format!("{{{body}"), RepairSet::ALL, None)?;
        }

        /// The same in a fenced source, where a line break in a string may be where the fence cuts it.
        #[test]
        fn fast_lane_equals_general_steps_in_a_fence(body in soup()) {
            same(&format!("[{body}"), RepairSet::NONE, Some(b'`'))?;
        }
    }
}
