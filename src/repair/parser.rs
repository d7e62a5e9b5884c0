//! The tolerant parser: one forward pass over the source that writes strict JSON text.
//!
//! The parser is an explicit state machine over an explicit stack of open containers, so input depth can
//! never overflow the call stack. It never re-parses: the only look-aheads are bounded by the next quote or
//! the next word (deciding whether a quote ends a string), and every rewind of the output is a truncation
//! to a length saved earlier. Output is compact JSON; `JSON.parse` (or any strict parser) builds the value.
//!
//! Commas are written lazily: an item writes the comma that separates it from the previous one when it
//! starts, so dropping an item (a truncated member, a placeholder) is a truncation to where it began.
//!
//! The same parser serves streams. Fed a prefix of the text with `more` set, every step that would need a
//! byte past the end of the prefix stops with [`Stop::SUSPEND`] before changing anything, and the caller
//! resumes it on a longer prefix ([`Parser::resume`]). A step therefore decides only on bytes that are
//! the same in every longer text, so a stream ends in exactly the state the one-shot parse reaches.

use super::chars::*;
use super::record::{Repair, RepairKind, RepairSet};
use crate::error::ErrorKind;
use std::cell::Cell;

mod fast;

/// Why the parser stopped before the value was complete: a fault, whose details the parser keeps
/// ([`Parser::fault`]), or, when it keeps none, [`Stop::SUSPEND`]. It carries nothing, so that a
/// step's result (`Result<(), Stop>`, `Result<bool, Stop>`) is one byte, returned as a plain value: in
/// wasm a larger result is returned through memory on every call of the token loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stop;

impl Stop {
    /// The next step needs bytes that have not arrived yet (only with `more`).
    pub const SUSPEND: Stop = Stop;
}

/// An error and the byte offset of the parsed text where it occurred.
pub(crate) type Fault = (ErrorKind, usize);

type Step = Result<(), Stop>;

/// What the parser expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A value (root, array element, member value, call argument).
    Value,
    /// Inside a string; its progress is in `Parser::str`.
    Str,
    /// A value string has closed; a `+` may still continue it (`"a" + "b"`).
    AfterString,
    /// A separator or closer after a complete value.
    AfterValue,
    /// A key or `}` in an object.
    Key,
    /// The `:` after a key.
    AfterKey,
    /// Finished: the root value is complete and nothing follows that belongs to it.
    Done,
}

/// Whether a string being read is a key or a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Key,
    Value,
}

/// Kinds of open container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    Object,
    Array,
    /// A wrapper call such as `ObjectId(`; its value is its argument.
    Call,
    /// The array inserted around comma-separated top-level values.
    Wrapper,
}

/// One open container.
#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: Container,
    /// Items written so far.
    count: u32,
    /// Output length before the current item (and its comma), for dropping it.
    item_out: usize,
}

/// Progress through a string, kept between steps so a stream can stop inside one.
#[derive(Clone, Copy, Debug)]
struct StrState {
    ctx: Ctx,
    style: QuoteStyle,
    noted_control: bool,
    noted_quote: bool,
    /// For a missing closing quote: output length, input offset and repairs recorded at a `, "` seen
    /// inside this string, and how many inner quotes had been seen then.
    comma_quote: Option<CommaQuote>,
    quotes_seen: usize,
    /// For a fenced source: output length and input offset where the closing fence begins a line inside
    /// this string.
    fence_cut: Option<(usize, usize)>,
}

/// A `, "` inside a value string, where the string may have been meant to end (see [`StrState`]).
#[derive(Clone, Copy, Debug)]
struct CommaQuote {
    out_len: usize,
    comma_at: usize,
    /// How many repairs had been recorded.
    repairs: usize,
    /// How many inner quotes had been seen.
    seen: usize,
}

const NO_STR: StrState = StrState {
    ctx: Ctx::Value,
    style: QuoteStyle::Double,
    noted_control: false,
    noted_quote: false,
    comma_quote: None,
    quotes_seen: 0,
    fence_cut: None,
};

/// The parser's result: strict JSON text, what was repaired, where the value ended.
#[derive(Debug)]
pub(crate) struct Output {
    /// UTF-8: every byte is copied from the `&str` input or written as ASCII.
    pub json: Vec<u8>,
    pub repairs: Vec<Repair>,
    /// Byte offset just after the last input byte that belongs to the value.
    pub end: usize,
}

pub(crate) struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    /// End of the source: the text's end, or a closing fence once one is met outside strings.
    end: usize,
    /// More input may follow `end` (a stream that has not finished, and no closing fence met yet).
    more: bool,
    /// A closing fence outside strings ended the source at `end`.
    fenced: bool,
    /// Comma-separated top-level values were wrapped in an array (its `[` inserted at `root_out`).
    wrapped: bool,
    out: Vec<u8>,
    repairs: Vec<Repair>,
    stack: Vec<Frame>,
    state: State,
    /// The string being read, in state `Str`.
    str: StrState,
    forbid: RepairSet,
    max_depth: usize,
    fence: Option<u8>,
    /// Input offset of a comma read in the current container that no item has followed yet.
    pending_comma: Option<usize>,
    /// Output offset where an item begins that may still be dropped because its value has not started
    /// (a member whose key has been read, a call with no argument yet). Streams show nothing past it.
    tentative: Option<usize>,
    /// Output offset where the root value starts, and whether it is an object.
    root_out: usize,
    root_is_object: bool,
    /// Input offset just after the last byte of the last complete value.
    value_end: usize,
    /// The locator found a JSONP callback, so a trailing `);` is expected.
    jsonp: bool,
    /// Whether a typographic quote may close a straight-quoted string (off when `curly_quotes` is
    /// forbidden, so that the strict pass accepts exactly what `JSON.parse` accepts).
    curly_closes: bool,
    /// Memo for look-aheads that skip comments: (searched from, end found) for the next `*/` and the
    /// next line break. Look-aheads move forward, so each byte is searched at most once: linear time.
    block_end: Cell<(usize, usize)>,
    line_break: Cell<(usize, usize)>,
    /// The shortest the output has been cut back to since a reader last asked ([`Parser::take_low_water`]);
    /// `usize::MAX` when it has not been cut.
    low_water: Cell<usize>,
    /// Whether complete input is read through the fast lane (off only to test it against the general steps).
    fast: bool,
    /// The error the parse stopped with, if it did.
    fault: Option<Fault>,
    /// The text is Latin-1 (one byte per character) rather than UTF-8; see [`Parser::read_latin1`].
    latin1: bool,
}

/// Bytes that interrupt the bulk copy of string content, for `"`-delimited and `'`-delimited strings.
const fn special_table(single: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[0xE2] = true;
    if single {
        t[b'\'' as usize] = true;
    }
    t
}
static SPECIAL_DOUBLE: [bool; 256] = special_table(false);
static SPECIAL_SINGLE: [bool; 256] = special_table(true);

/// The keywords a bare word may be, and the JSON they become.
const KEYWORDS: [(&[u8], &[u8], Option<RepairKind>); 9] = [
    (b"true", b"true", None),
    (b"false", b"false", None),
    (b"null", b"null", None),
    (b"True", b"true", Some(RepairKind::PythonLiteral)),
    (b"False", b"false", Some(RepairKind::PythonLiteral)),
    (b"None", b"null", Some(RepairKind::PythonLiteral)),
    (b"undefined", b"null", Some(RepairKind::NonJsonLiteral)),
    (b"NaN", b"null", Some(RepairKind::NonJsonLiteral)),
    (b"Infinity", b"null", Some(RepairKind::NonJsonLiteral)),
];

/// Appends `s[range]` to `out`. Short ranges go in eight-byte blocks while `s` has the bytes past the
/// range, and the overshoot is cut off: in wasm a copy of unknown length is a call into the host, which
/// costs more than the copy itself for the short runs a parser writes.
#[inline(always)]
fn copy_from(out: &mut Vec<u8>, s: &[u8], range: std::ops::Range<usize>) {
    if range.len() <= 32 && range.end + 8 <= s.len() {
        let len = out.len() + range.len();
        out.reserve(range.len() + 8);
        let mut i = range.start;
        while i < range.end {
            let mut block = [0u8; 8];
            block.copy_from_slice(&s[i..i + 8]);
            out.extend_from_slice(&block);
            i += 8;
        }
        out.truncate(len);
    } else {
        out.extend_from_slice(&s[range]);
    }
}

/// Appends a few bytes (a keyword) one by one, for the reason given at [`copy_from`].
#[inline]
fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.push(b);
    }
}

/// Writes `bytes` as the content of a JSON string (no quotes), escaping what JSON requires.
fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x00..=0x1F => push_control(out, b),
            _ => out.push(b),
        }
    }
}

/// `s` as a JSON string literal, quotes included (for the binding's report headers).
pub(crate) fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'"');
    escape_into(&mut out, s.as_bytes());
    out.push(b'"');
    // Escaping only replaces ASCII bytes, so the text stays UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the JSON escape of control character `b`.
fn push_control(out: &mut Vec<u8>, b: u8) {
    match b {
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0C => out.extend_from_slice(b"\\f"),
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        }
    }
}

/// Length in bytes of the UTF-8 character whose first byte is `b`.
fn char_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// How a number-like token reads (SPEC §3, numbers).
enum NumberShape {
    /// Strict JSON already.
    Valid,
    /// Rewritten into this JSON number text.
    Fixed(Vec<u8>, RepairKind),
    /// Not a JSON number but number-like (`02134`, `1.2.3`): kept as a string.
    AsString,
    /// No digits at all (`-`, `+`, `.`): no value has started.
    NotStarted,
    /// Something else (`12px`, `0x1F`): an unquoted string.
    Word,
}

/// Classifies a token made of word bytes that starts like a number. `at_eof`: the input ends with it.
fn classify_number(tok: &[u8], at_eof: bool) -> NumberShape {
    let n = tok.len();
    let mut i = 0;
    let plus = tok.first() == Some(&b'+');
    i += plus as usize;
    let neg = tok.get(i) == Some(&b'-');
    i += neg as usize;
    let int_start = i;
    while i < n && tok[i].is_ascii_digit() {
        i += 1;
    }
    let int = &tok[int_start..i];
    let dot = tok.get(i) == Some(&b'.');
    i += dot as usize;
    let frac_start = i;
    while i < n && tok[i].is_ascii_digit() {
        i += 1;
    }
    let frac = &tok[frac_start..i];
    let exp = matches!(tok.get(i), Some(b'e' | b'E')) && (!int.is_empty() || !frac.is_empty());
    let mut exp_sign: &[u8] = b"";
    let mut exp_digits: &[u8] = b"";
    if exp {
        i += 1;
        if matches!(tok.get(i), Some(b'+' | b'-')) {
            exp_sign = &tok[i..i + 1];
            i += 1;
        }
        let d = i;
        while i < n && tok[i].is_ascii_digit() {
            i += 1;
        }
        exp_digits = &tok[d..i];
    }
    if int.is_empty() && frac.is_empty() {
        return if tok.iter().any(u8::is_ascii_alphanumeric) {
            NumberShape::Word
        } else {
            NumberShape::NotStarted
        };
    }
    if i < n {
        // Dotted versions and the like stay strings; anything else is a word.
        let dotted = tok.iter().all(|b| b.is_ascii_digit() || *b == b'.')
            && tok.iter().filter(|&&b| b == b'.').count() > 1;
        return if dotted {
            NumberShape::AsString
        } else {
            NumberShape::Word
        };
    }
    if int.len() > 1 && int[0] == b'0' {
        return NumberShape::AsString;
    }
    let valid =
        !plus && !int.is_empty() && (!dot || !frac.is_empty()) && (!exp || !exp_digits.is_empty());
    if valid {
        return NumberShape::Valid;
    }
    // Rewrite: drop '+', add a leading 0, drop an empty fraction or exponent.
    let truncated = at_eof && ((dot && frac.is_empty() && !exp) || (exp && exp_digits.is_empty()));
    let mut fixed = Vec::with_capacity(n + 1);
    if neg {
        fixed.push(b'-');
    }
    if int.is_empty() {
        fixed.push(b'0');
    } else {
        fixed.extend_from_slice(int);
    }
    if !frac.is_empty() {
        fixed.push(b'.');
        fixed.extend_from_slice(frac);
    }
    if !exp_digits.is_empty() {
        fixed.push(b'e');
        fixed.extend_from_slice(exp_sign);
        fixed.extend_from_slice(exp_digits);
    }
    let kind = if truncated {
        RepairKind::TruncatedNumber
    } else {
        RepairKind::NumberFormat
    };
    NumberShape::Fixed(fixed, kind)
}

impl<'a> Parser<'a> {
    /// A parser over the whole of `s` that starts reading at byte `start`.
    pub fn new(
        s: &'a [u8],
        start: usize,
        fence: Option<u8>,
        forbid: RepairSet,
        max_depth: usize,
    ) -> Parser<'a> {
        Parser {
            s,
            pos: start,
            end: s.len(),
            more: false,
            fenced: false,
            wrapped: false,
            out: Vec::with_capacity(s.len().saturating_sub(start) + 16),
            repairs: Vec::with_capacity(16),
            stack: Vec::with_capacity(16),
            state: State::Value,
            str: NO_STR,
            forbid,
            max_depth,
            fence,
            pending_comma: None,
            tentative: None,
            root_out: 0,
            root_is_object: false,
            value_end: start,
            jsonp: false,
            curly_closes: !forbid.contains(RepairKind::CurlyQuotes),
            block_end: Cell::new((usize::MAX, 0)),
            line_break: Cell::new((usize::MAX, 0)),
            low_water: Cell::new(usize::MAX),
            fast: true,
            fault: None,
            latin1: false,
        }
    }

    /// Tells the parser that the text is Latin-1, one byte per character, with no byte in
    /// 0x80..=0xBF. No byte sequence the parser recognises beyond ASCII (typographic quotes, `…`,
    /// invisible characters, the no-break space) can then occur, and every other byte reads as it
    /// reads in UTF-8 (as a character beyond ASCII); what differs is the length of a character, which
    /// the parser takes into account where it counts.
    pub fn read_latin1(&mut self) {
        self.latin1 = true;
    }

    /// Tells the parser that the locator removed a JSONP callback before the value.
    pub fn expect_jsonp_tail(&mut self) {
        self.jsonp = true;
    }

    /// Parses one value and returns the strict JSON text.
    ///
    /// # Errors
    /// `NoJson` when the source holds no value, `DepthLimitExceeded`, and `RepairForbidden` for the first
    /// repair the forbid set names.
    pub fn run(mut self) -> Result<Output, Fault> {
        match self.advance() {
            Ok(()) => Ok(self.into_output()),
            Err(Stop) => Err(self.fault.expect("without `more` a stop is a fault")),
        }
    }

    /// The same parser over `s`, a longer prefix of the same text (or the whole text, without `more`).
    /// The state carries over; a source already ended by a closing fence keeps its end.
    pub fn resume<'b>(self, s: &'b [u8], more: bool) -> Parser<'b> {
        // A closing fence met outside strings ended the source for good.
        let fenced = self.fenced;
        let end = if fenced { self.end } else { s.len() };
        // A memo whose search ran into the old end found nothing yet; forget it.
        for memo in [&self.block_end, &self.line_break] {
            if memo.get().1 >= self.end {
                memo.set((usize::MAX, 0));
            }
        }
        Parser {
            s,
            pos: self.pos,
            end,
            more: more && !fenced,
            fenced,
            wrapped: self.wrapped,
            out: self.out,
            repairs: self.repairs,
            stack: self.stack,
            state: self.state,
            str: self.str,
            forbid: self.forbid,
            max_depth: self.max_depth,
            fence: self.fence,
            pending_comma: self.pending_comma,
            tentative: self.tentative,
            root_out: self.root_out,
            root_is_object: self.root_is_object,
            value_end: self.value_end,
            jsonp: self.jsonp,
            curly_closes: self.curly_closes,
            block_end: self.block_end,
            line_break: self.line_break,
            low_water: self.low_water,
            fast: self.fast,
            fault: self.fault,
            latin1: self.latin1,
        }
    }

    /// Runs steps until the value is complete, or (with `more`) until a step needs more input.
    pub fn advance(&mut self) -> Step {
        loop {
            if self.fast
                && !self.more
                && matches!(self.state, State::Value | State::Key | State::AfterValue)
            {
                self.fast_lane()?;
            }
            // Strings read their own whitespace, and see the end of the input themselves.
            match self.state {
                State::Str => {
                    self.string_body()?;
                    continue;
                }
                State::AfterString => {
                    self.after_string()?;
                    continue;
                }
                _ => {}
            }
            self.skip_space()?;
            if self.state == State::Done {
                return Ok(());
            }
            if self.pos >= self.end {
                if self.more {
                    return Err(Stop::SUSPEND);
                }
                return self.finish_at_end();
            }
            match self.state {
                State::Value => self.value()?,
                State::Str | State::AfterString => unreachable!("handled above"),
                State::AfterValue if self.stack.is_empty() => self.after_root()?,
                State::AfterValue => self.after_value()?,
                State::Key => self.key()?,
                State::AfterKey => self.after_key()?,
                State::Done => unreachable!("handled above"),
            }
        }
    }

    /// The strict JSON text written, the repairs and where the value ended.
    pub fn into_output(self) -> Output {
        Output {
            json: self.out,
            repairs: self.repairs,
            end: self.value_end,
        }
    }

    /// Where the parser stands in its input.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The end of the input it was last given.
    pub fn given(&self) -> usize {
        self.end
    }

    /// The output written so far.
    pub fn output(&self) -> &[u8] {
        &self.out
    }

    /// How much of the output is settled: no later step can rewind below this length. Past it lie only
    /// a member or call whose value has not started, string content that a later quote may cut off, the
    /// closing quote of a string that `+` may continue, and the closing brace of a root object that a
    /// following `, "key":` would reopen.
    pub fn settled_len(&self) -> usize {
        let mut len = self.out.len();
        if let Some(t) = self.tentative {
            len = len.min(t);
        }
        match self.state {
            State::Str => {
                let st = &self.str;
                if st.ctx == Ctx::Value && self.top() == Some(Container::Object) {
                    // Content that ends in `,` and spaces may be cut there by the next quote.
                    let mut k = self.out.len();
                    while k > 0 && self.out[k - 1] == b' ' {
                        k -= 1;
                    }
                    if k > 0 && self.out[k - 1] == b',' {
                        len = len.min(k - 1);
                    }
                }
                if let Some(cq) = st.comma_quote {
                    if cq.seen == st.quotes_seen {
                        len = len.min(cq.out_len);
                    }
                }
                if let Some((out_len, _)) = st.fence_cut {
                    len = len.min(out_len);
                }
            }
            State::AfterString => len = len.min(self.out.len().saturating_sub(1)),
            State::AfterValue if self.stack.is_empty() && self.root_is_object => {
                len = len.min(self.out.len().saturating_sub(1))
            }
            _ => {}
        }
        len
    }

    /// Rewinds the output to `len` bytes, noting how far back for a reader of the output that may have read
    /// past it ([`Parser::take_low_water`]).
    fn cut_output(&mut self, len: usize) {
        self.out.truncate(len);
        self.low_water.set(self.low_water.get().min(len));
    }

    /// The shortest the output has been cut back to since the last call, or `usize::MAX`: a reader that has
    /// read further than that must read again from there (settled output is never cut, so this is a net
    /// under that promise, not a path a correct parse takes).
    pub fn take_low_water(&self) -> usize {
        self.low_water.replace(usize::MAX)
    }

    /// Whether the root value has been read to its closing bracket (and nothing has reopened it).
    pub fn root_closed(&self) -> bool {
        self.stack.is_empty() && matches!(self.state, State::AfterValue | State::Done)
    }

    /// The output offset where the root value starts (where comma-separated values get their `[`).
    pub fn root_start(&self) -> usize {
        self.root_out
    }

    /// Whether comma-separated top-level values were wrapped in an array.
    pub fn wrapped(&self) -> bool {
        self.wrapped
    }

    /// The same parser holding no input, to be kept between the chunks of a stream.
    pub fn detach(self) -> Parser<'static> {
        let (end, more) = (self.end, self.more);
        let mut p = self.resume(&[], more);
        p.end = end;
        p
    }

    // ----- bookkeeping -----

    /// Whether byte `i` of the source is available: `Ok(i < end)` once the input is complete, and a
    /// suspension while more input may still bring it.
    #[inline]
    fn need(&self, i: usize) -> Result<bool, Stop> {
        if i < self.end {
            Ok(true)
        } else if self.more {
            Err(Stop::SUSPEND)
        } else {
            Ok(false)
        }
    }

    /// Suspends unless every byte up to `last` is available or the input is complete: for look-aheads
    /// that read at most a few bytes past a position.
    #[inline]
    fn need_through(&self, last: usize) -> Step {
        if self.more && last >= self.end {
            return Err(Stop::SUSPEND);
        }
        Ok(())
    }

    /// Keeps `kind` at `offset` as the error the parse stops with.
    #[cold]
    fn fail(&mut self, kind: ErrorKind, offset: usize) -> Stop {
        self.fault = Some((kind, offset));
        Stop
    }

    /// The error a step stopped with; `None` when it stopped to wait for more input.
    pub fn fault(&self) -> Option<Fault> {
        self.fault
    }

    /// Records a repair, or fails when the options forbid it.
    #[inline]
    fn record(&mut self, kind: RepairKind, offset: usize) -> Step {
        if self.forbid.contains(kind) {
            return Err(self.fail(ErrorKind::RepairForbidden { repair: kind }, offset));
        }
        self.repairs.push(Repair { kind, offset });
        Ok(())
    }

    fn top(&self) -> Option<Container> {
        self.stack.last().map(|f| f.kind)
    }

    fn is_fence_at(&self, i: usize) -> bool {
        matches!(self.fence, Some(m) if starts_with_at(self.s, i, &[m; 3]))
    }

    /// Starts an item in the current array or object: remembers where it began and writes its comma.
    fn begin_item(&mut self) {
        if let Some(f) = self.stack.last_mut() {
            f.item_out = self.out.len();
            if f.count > 0 {
                self.out.push(b',');
            }
            if f.kind == Container::Object {
                // A member may be dropped until its value starts.
                self.tentative = Some(f.item_out);
            }
        }
        self.pending_comma = None;
    }

    /// Starts a value: in arrays it is a new item; in objects the member began at its key.
    fn begin_value(&mut self) {
        match self.top() {
            Some(Container::Array | Container::Wrapper) => self.begin_item(),
            None => self.root_out = self.out.len(),
            _ => {}
        }
        self.pending_comma = None;
        self.tentative = None;
    }

    /// A value is complete.
    fn value_done(&mut self) {
        self.value_end = self.pos;
        if let Some(f) = self.stack.last_mut() {
            f.count += 1;
        }
        self.state = State::AfterValue;
    }

    /// Closes the innermost wrapper call; a call whose argument produced no value drops its item.
    fn close_call(&mut self) -> Step {
        let frame = self.stack.pop().expect("an open call");
        if frame.count > 0 {
            self.value_done();
            return Ok(());
        }
        if self.stack.is_empty() {
            return Err(self.fail(ErrorKind::NoJson, self.pos));
        }
        // repair: `ObjectId()`, `cb(...)`: no argument, so no value
        self.drop_item(RepairKind::MissingValue, self.pos)
    }

    /// Drops the current item (a member with no value, a placeholder) and records why.
    fn drop_item(&mut self, kind: RepairKind, offset: usize) -> Step {
        self.record(kind, offset)?;
        if let Some(f) = self.stack.last() {
            self.cut_output(f.item_out);
        }
        self.tentative = None;
        self.state = State::AfterValue;
        Ok(())
    }

    fn push_frame(&mut self, kind: Container) -> Step {
        if self.stack.len() >= self.max_depth {
            let limit = self.max_depth;
            return Err(self.fail(ErrorKind::DepthLimitExceeded { limit }, self.pos));
        }
        self.stack.push(Frame {
            kind,
            count: 0,
            item_out: self.out.len(),
        });
        Ok(())
    }

    /// Closes the innermost container with the bracket at `pos` (which may be of the wrong kind).
    fn close_with(&mut self, bracket: u8) -> Step {
        let frame = self
            .stack
            .last()
            .copied()
            .expect("close_with needs an open container");
        let matches = matches!(
            (frame.kind, bracket),
            (Container::Object, b'}') | (Container::Array | Container::Wrapper, b']')
        );
        if self.pending_comma.is_some() && frame.count > 0 {
            let at = self.pending_comma.take().unwrap_or(self.pos);
            self.record(RepairKind::TrailingComma, at)?;
        }
        if !matches {
            if frame.kind == Container::Wrapper {
                // A stray `}` after comma-separated values: it closes nothing.
                self.record(RepairKind::SuperfluousBracket, self.pos)?;
                self.pos += 1;
                return Ok(());
            }
            self.record(RepairKind::MismatchedBracket, self.pos)?;
        }
        self.pos += 1;
        self.pop_and_close();
        Ok(())
    }

    /// Pops the innermost container, writes its closer and completes it as a value of its parent.
    #[inline(always)]
    fn pop_and_close(&mut self) {
        let frame = self.stack.pop().expect("an open container");
        match frame.kind {
            Container::Object => self.out.push(b'}'),
            Container::Array | Container::Wrapper => self.out.push(b']'),
            Container::Call => {}
        }
        self.pending_comma = None;
        if frame.kind == Container::Wrapper {
            self.state = State::Done;
            self.value_end = self.pos;
        } else {
            self.value_done();
        }
    }

    // ----- whitespace, comments, chat tokens -----

    /// Skips whitespace and comments, records the non-JSON ones, and stops the source at a closing fence.
    fn skip_space(&mut self) -> Step {
        let s = self.s;
        while self.pos < self.end {
            let b = s[self.pos];
            // Dispatch on the byte first: most tokens start with a plain ASCII byte and leave at once.
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    self.pos += 1;
                    while self.pos < self.end && is_json_ws(s[self.pos]) {
                        self.pos += 1;
                    }
                }
                b'/' if self.need(self.pos + 1)? && matches!(s[self.pos + 1], b'/' | b'*') => {
                    let end = if s[self.pos + 1] == b'/' {
                        self.line_end(self.pos)
                    } else {
                        let body = self.pos + 2;
                        self.find_memo(&self.block_end, body, b"*/")
                            .saturating_add(2)
                            .min(self.end)
                    };
                    // A comment that runs into the end of a stream may still close.
                    self.need_through(end)?;
                    self.record(RepairKind::Comment, self.pos)?;
                    self.pos = end;
                }
                b'#' if self.state != State::Value => {
                    let end = self.line_end(self.pos);
                    self.need_through(end)?;
                    self.record(RepairKind::Comment, self.pos)?;
                    self.pos = end;
                }
                0xEF | 0xE2 if invisible_len(s, self.pos) > 0 => {
                    self.record(RepairKind::InvisibleCharacter, self.pos)?;
                    self.pos += 3;
                }
                0x0B | 0x0C => {
                    self.record(RepairKind::NonstandardWhitespace, self.pos)?;
                    self.pos += 1;
                }
                0xC2 if starts_with_at(s, self.pos, NBSP) => {
                    self.record(RepairKind::NonstandardWhitespace, self.pos)?;
                    self.pos += 2;
                }
                b'`' | b'~' if self.need(self.pos + 2)? && self.is_fence_at(self.pos) => {
                    // The closing fence ends the source for good, in a stream too.
                    self.end = self.pos;
                    self.more = false;
                    self.fenced = true;
                }
                b'<' => match self.chat_token_len(self.pos)? {
                    Some(len) => {
                        self.record(RepairKind::SurroundingText, self.pos)?;
                        self.pos += len;
                    }
                    None => break,
                },
                _ => break,
            }
        }
        Ok(())
    }

    /// Offset of the end of the line containing `i` (the `\n` itself, or the end of the source).
    fn line_end(&self, i: usize) -> usize {
        self.find_memo(&self.line_break, i, b"\n\0").min(self.end)
    }

    /// Length of a chat-template token (`<|im_end|>`, `</s>`) at `i`.
    fn chat_token_len(&self, i: usize) -> Result<Option<usize>, Stop> {
        let s = self.s;
        if starts_with_at(s, i, b"</s>") {
            return Ok(Some(4));
        }
        if !starts_with_at(s, i, b"<|") {
            // In a stream, `<`, `</` or `</s` at the end may still become a token.
            let seen = &s[i..self.end.max(i)];
            if self.more && (b"</s>".starts_with(seen) || b"<|".starts_with(seen)) {
                return Err(Stop::SUSPEND);
            }
            return Ok(None);
        }
        // Bounded look-ahead: such tokens are short.
        const LIMIT: usize = 64;
        let mut limit = (i + LIMIT).min(self.end);
        if self.latin1 {
            // The same 64 bytes of UTF-8: a character beyond ASCII takes two there.
            let (mut k, mut utf8) = (i, 0);
            while k < self.end && utf8 + 1 + (s[k] >= 0x80) as usize <= LIMIT {
                utf8 += 1 + (s[k] >= 0x80) as usize;
                k += 1;
            }
            limit = k;
        }
        match s[i + 2..limit].windows(2).position(|w| w == b"|>") {
            Some(off) => Ok(Some(off + 4)),
            None => {
                self.need_through(i + LIMIT - 1)?;
                Ok(None)
            }
        }
    }

    /// The first occurrence of `pat` at or after `from` (the end of the source if none), memoized in `memo`.
    /// `pat` is two bytes, or one byte followed by 0.
    #[inline(always)]
    fn find_memo(&self, memo: &Cell<(usize, usize)>, from: usize, pat: &[u8; 2]) -> usize {
        let (searched, found) = memo.get();
        if searched <= from && from <= found {
            return found;
        }
        let s = &self.s[..self.end];
        let mut i = from;
        let found = loop {
            match find_byte(s, i, pat[0]) {
                Some(at) if pat[1] == 0 || s.get(at + 1) == Some(&pat[1]) => break at,
                Some(at) => i = at + 1,
                None => break self.end,
            }
        };
        memo.set((from, found));
        found
    }

    /// Like [`Self::peek_past_space`], and also past comments: where the next token starts.
    /// A comment that runs to the end of the source ends the look-ahead there (callers then need more
    /// input in a stream). With `hash`, `#` to the end of the line is a comment too.
    fn peek_past_space_and_comments(
        &self,
        mut i: usize,
        hash: bool,
    ) -> Result<(usize, bool), Stop> {
        let mut newline = false;
        loop {
            let (j, nl) = self.peek_past_space(i);
            newline |= nl;
            if hash && self.s.get(j) == Some(&b'#') && j < self.end {
                i = self.line_end(j);
                continue;
            }
            if self.s.get(j) != Some(&b'/') || !self.need(j + 1)? {
                return Ok((j, newline));
            }
            i = match self.s[j + 1] {
                b'/' => self.line_end(j),
                b'*' => (self.find_memo(&self.block_end, j + 2, b"*/") + 2).min(self.end),
                _ => return Ok((j, newline)),
            };
        }
    }

    /// Skips JSON whitespace, no-break spaces, invisible characters, vertical tabs and form feeds from `i`
    /// without recording; also reports a newline.
    fn peek_past_space(&self, mut i: usize) -> (usize, bool) {
        let (s, end) = (self.s, self.end);
        let mut newline = false;
        loop {
            while i < end && matches!(s[i], b' ' | b'\t' | b'\r') {
                i += 1;
            }
            match s.get(i) {
                Some(b'\n') if i < end => {
                    newline = true;
                    i += 1;
                }
                Some(0xC2) if i + 1 < end && s[i + 1] == 0xA0 => i += 2,
                // What skip_space drops as well: invisible characters, vertical tab, form feed.
                Some(0xE2 | 0xEF) if i + 2 < end && invisible_len(s, i) > 0 => i += 3,
                Some(0x0B | 0x0C) if i < end => i += 1,
                _ => return (i, newline),
            }
        }
    }

    // ----- states -----

    fn value(&mut self) -> Step {
        let s = self.s;
        let b = s[self.pos];
        match b {
            b'{' | b'[' => self.open(if b == b'{' {
                Container::Object
            } else {
                Container::Array
            }),
            b'}' | b']' => self.closer_in_value(b),
            b',' => self.comma_in_value(),
            b')' if self.top() == Some(Container::Call) => {
                self.pos += 1;
                self.close_call()
            }
            b':' => self.skip_unexpected(),
            _ => {
                if let Some(quote) = quote_at(s, self.pos) {
                    self.begin_value();
                    self.open_string(quote, Ctx::Value, false)?;
                    // Straight on through the string: the states only matter when a stream stops.
                    self.string_body()?;
                    return self.after_string();
                }
                if matches!(b, b'.' | 0xE2) && self.ellipsis_at(self.pos)? {
                    self.ellipsis()
                } else if is_number_start(b) {
                    self.number()
                } else {
                    self.word()
                }
            }
        }
    }

    /// Whether an ellipsis placeholder starts at `i` (in a stream, `.` and `..` at the end may grow into one).
    fn ellipsis_at(&self, i: usize) -> Result<bool, Stop> {
        if self.s[i] == b'.' {
            self.need_through(i + 2)?;
        }
        Ok(ellipsis_len(self.s, i) > 0)
    }

    #[inline(always)]
    fn open(&mut self, kind: Container) -> Step {
        self.begin_value();
        if self.stack.is_empty() {
            self.root_is_object = kind == Container::Object;
        }
        self.push_frame(kind)?;
        self.out.push(if kind == Container::Object {
            b'{'
        } else {
            b'['
        });
        self.pos += 1;
        self.state = if kind == Container::Object {
            State::Key
        } else {
            State::Value
        };
        Ok(())
    }

    /// A closing bracket where a value was expected.
    fn closer_in_value(&mut self, b: u8) -> Step {
        match self.top() {
            Some(Container::Object) => {
                // repair: `"key": }` has no value
                self.drop_item(RepairKind::MissingValue, self.pos)?;
                self.close_with(b)
            }
            Some(Container::Call) => self.close_call(),
            Some(_) => self.close_with(b),
            None => self.skip_unexpected(),
        }
    }

    /// A comma where a value was expected.
    fn comma_in_value(&mut self) -> Step {
        match self.top() {
            Some(Container::Array | Container::Wrapper) => {
                // repair: `[,1]`, `[1,,2]`
                self.record(RepairKind::RedundantComma, self.pos)?;
                self.pending_comma = Some(self.pos);
                self.pos += 1;
                Ok(())
            }
            // repair: `"key": ,` has no value; the comma then separates members as usual
            Some(Container::Object) => self.drop_item(RepairKind::MissingValue, self.pos),
            _ => self.skip_unexpected(),
        }
    }

    /// An ellipsis placeholder in value or key position.
    fn ellipsis(&mut self) -> Step {
        let at = self.pos;
        self.pos += ellipsis_len(self.s, self.pos);
        if self.state == State::Value && self.top() == Some(Container::Object) {
            // repair: `"key": ...` (the member is a placeholder)
            return self.drop_item(RepairKind::Ellipsis, at);
        }
        // repair: `[1, 2, ...]`, `{"a": 1, ...}`: as if nothing were there
        self.record(RepairKind::Ellipsis, at)?;
        self.pending_comma = None;
        self.state = State::AfterValue;
        Ok(())
    }

    fn skip_unexpected(&mut self) -> Step {
        self.record(RepairKind::UnexpectedCharacter, self.pos)?;
        self.pos += if self.latin1 {
            1
        } else {
            char_len(self.s[self.pos])
        };
        Ok(())
    }

    fn key(&mut self) -> Step {
        let s = self.s;
        let b = s[self.pos];
        match b {
            b'}' | b']' => self.close_with(b),
            b',' => {
                // repair: `{,"a":1}`, `{"a":1,,"b":2}`
                self.record(RepairKind::RedundantComma, self.pos)?;
                self.pos += 1;
                Ok(())
            }
            b'{' | b'[' | b':' => self.skip_unexpected(),
            _ => {
                if let Some(quote) = quote_at(s, self.pos) {
                    self.begin_item();
                    self.open_string(quote, Ctx::Key, false)?;
                    self.string_body()
                } else if matches!(b, b'.' | 0xE2) && self.ellipsis_at(self.pos)? {
                    self.ellipsis()
                } else {
                    self.unquoted_key()
                }
            }
        }
    }

    /// repair: unquoted key, quoted verbatim up to the colon.
    fn unquoted_key(&mut self) -> Step {
        let s = self.s;
        let start = self.pos;
        let mut k = start;
        while k < self.end
            && !matches!(
                s[k],
                b':' | b',' | b'{' | b'}' | b'[' | b']' | b'"' | b'\n' | b'\r'
            )
            && !self.is_fence_at(k)
        {
            k += 1;
        }
        // In a stream the key may go on, and a fence needs all three of its characters.
        self.need_through(k + 2)?;
        let mut e = k;
        while e > start && matches!(s[e - 1], b' ' | b'\t') {
            e -= 1;
        }
        if e == start {
            return self.skip_unexpected();
        }
        self.begin_item();
        self.record(RepairKind::UnquotedKey, start)?;
        self.out.push(b'"');
        escape_into(&mut self.out, &s[start..e]);
        self.out.push(b'"');
        self.pos = k;
        if k >= self.end {
            // repair: the input ends inside an unquoted key
            return self.drop_item(RepairKind::TruncatedMember, start);
        }
        self.state = State::AfterKey;
        Ok(())
    }

    fn after_key(&mut self) -> Step {
        match self.s[self.pos] {
            b':' => {
                self.out.push(b':');
                self.pos += 1;
                self.state = State::Value;
                Ok(())
            }
            b'=' => {
                // repair: `key = value`
                self.record(RepairKind::MissingColon, self.pos)?;
                self.out.push(b':');
                self.pos += 1;
                self.state = State::Value;
                Ok(())
            }
            // repair: a key with no value, `{"a", "b": 1}`
            b',' | b'}' | b']' => self.drop_item(RepairKind::MissingValue, self.pos),
            _ => {
                // repair: `{"a" 1}`
                self.record(RepairKind::MissingColon, self.pos)?;
                self.out.push(b':');
                self.state = State::Value;
                Ok(())
            }
        }
    }

    fn after_value(&mut self) -> Step {
        let s = self.s;
        let b = s[self.pos];
        let top = self.top().expect("after_value has an open container");
        if top == Container::Call {
            if b == b')' {
                self.pos += 1;
            }
            // Anything else ends the call implicitly and is read again by the parent.
            return self.close_call();
        }
        match b {
            b',' if top == Container::Wrapper => {
                let (r, _) = self.peek_past_space(self.pos + 1);
                if self.need(r)? && matches!(s[r], b'{' | b'[') {
                    self.pending_comma = Some(self.pos);
                    self.pos += 1;
                    self.state = State::Value;
                } else {
                    self.pop_and_close();
                }
                Ok(())
            }
            b',' => {
                self.pending_comma = Some(self.pos);
                self.pos += 1;
                self.state = if top == Container::Object {
                    State::Key
                } else {
                    State::Value
                };
                Ok(())
            }
            b'}' | b']' => self.close_with(b),
            b':' | b')' => self.skip_unexpected(),
            b'.' | 0xE2 if self.ellipsis_at(self.pos)? => self.ellipsis(),
            _ if top == Container::Wrapper => {
                self.pop_and_close();
                Ok(())
            }
            _ if quote_at(s, self.pos).is_some() || is_word_byte(b) || b == b'{' || b == b'[' => {
                // repair: `[1 2]`, `{"a": 1 "b": 2}`
                self.record(RepairKind::MissingComma, self.pos)?;
                self.state = if top == Container::Object {
                    State::Key
                } else {
                    State::Value
                };
                Ok(())
            }
            _ => self.skip_unexpected(),
        }
    }

    /// After the root value: stray closers, comma-separated values, an object closed too early, or the end.
    fn after_root(&mut self) -> Step {
        let s = self.s;
        match s[self.pos] {
            b'}' | b']' => {
                // repair: `{"a":1}}`
                self.record(RepairKind::SuperfluousBracket, self.pos)?;
                self.pos += 1;
                return Ok(());
            }
            b',' => {
                let (r, _) = self.peek_past_space(self.pos + 1);
                self.need(r)?;
                if self.root_is_object && self.is_key_ahead(r)? {
                    // repair: `{"a":1}, "b":2}`: the root object was closed too early
                    self.record(RepairKind::EarlyClose, self.pos)?;
                    self.out.pop();
                    // An empty object (`{}, "k": 1`) has no member to separate from.
                    let count = (self.out.last() != Some(&b'{')) as u32;
                    self.stack.push(Frame {
                        kind: Container::Object,
                        count,
                        item_out: self.out.len(),
                    });
                    self.pending_comma = Some(self.pos);
                    self.pos += 1;
                    self.state = State::Key;
                    return Ok(());
                }
                if r < self.end && matches!(s[r], b'{' | b'[') {
                    // repair: `{…}, {…}`: an array whose brackets were forgotten
                    self.record(RepairKind::MultipleValues, self.pos)?;
                    self.out.insert(self.root_out, b'[');
                    self.wrapped = true;
                    self.stack.push(Frame {
                        kind: Container::Wrapper,
                        count: 1,
                        item_out: self.out.len(),
                    });
                    self.pending_comma = Some(self.pos);
                    self.pos += 1;
                    self.state = State::Value;
                    return Ok(());
                }
            }
            b')' if self.jsonp => {
                let (r, _) = self.peek_past_space(self.pos + 1);
                let r = if self.need(r)? && s[r] == b';' {
                    r + 1
                } else {
                    r
                };
                let (r, _) = self.peek_past_space(r);
                if !self.need(r)? {
                    self.state = State::Done;
                    return Ok(());
                }
            }
            _ => {}
        }
        // Whatever follows is not part of the value: prose, a second value, a closing fence's tail.
        self.record(RepairKind::SurroundingText, self.pos)?;
        self.state = State::Done;
        Ok(())
    }

    /// Whether a key (`"k":`, `'k':`, `k:`) starts at `i`.
    #[inline]
    fn is_key_ahead(&self, i: usize) -> Result<bool, Stop> {
        let s = self.s;
        if !self.need(i)? {
            return Ok(false);
        }
        let after = if let Some((style, q)) = quote_at(s, i) {
            match self.find_closer(style, i + q)? {
                Some(k) => k,
                None => return Ok(false),
            }
        } else if is_ident_start(s[i]) {
            let mut k = i;
            while k < self.end && is_word_byte(s[k]) {
                k += 1;
            }
            k
        } else {
            return Ok(false);
        };
        // Input that ends before the colon could appear still reads as a (truncated) key.
        let (k, _) = self.peek_past_space(after);
        Ok(!self.need(k)? || s[k] == b':')
    }

    /// Offset just after the next closing quote for `style` from `i` on the same line, skipping escapes;
    /// the end of the source when the input ends first; `None` at a line break.
    fn find_closer(&self, style: QuoteStyle, mut i: usize) -> Result<Option<usize>, Stop> {
        let s = self.s;
        if let Some(quote) = match style {
            QuoteStyle::Double => Some(b'"'),
            QuoteStyle::Single => Some(b'\''),
            _ => None,
        } {
            // Straight quotes: jump between the only bytes that matter. Only the opener's own kind of
            // quote closes, so a typographic quote inside a straight-quoted key cannot fool the look-ahead.
            let source = &s[..self.end];
            while let Some(at) = find_byte3(source, i.min(self.end), quote, b'\\', b'\n') {
                i = at;
                match s[i] {
                    b'\\' => i += 2,
                    b'\n' => return Ok(None),
                    _ => return Ok(Some(i + 1)),
                }
            }
            self.need(self.end)?;
            return Ok(Some(self.end));
        }
        while i < self.end {
            match s[i] {
                b'\\' => i += 2,
                b'\n' => return Ok(None),
                _ => {
                    // Typographic openers: straight quotes were handled above.
                    let c = closer_len(style, s, i);
                    if c > 0 {
                        return Ok(Some(i + c));
                    }
                    i += 1;
                }
            }
        }
        self.need(self.end)?;
        Ok(Some(self.end))
    }

    /// The end of the source inside a value: close what is open, dropping what has not started.
    fn finish_at_end(&mut self) -> Step {
        let at = self.end;
        match self.state {
            State::Value => {
                // A wrapper call whose argument never started began an item in its container.
                let mut in_call = false;
                while self.top() == Some(Container::Call) {
                    self.stack.pop();
                    in_call = true;
                }
                match self.top() {
                    None => return Err(self.fail(ErrorKind::NoJson, at)),
                    // repair: `{"age":` — the member's value never started
                    Some(Container::Object) => self.drop_item(RepairKind::TruncatedMember, at)?,
                    Some(_) if in_call => self.drop_item(RepairKind::TruncatedMember, at)?,
                    Some(_) => {}
                }
            }
            // repair: `{"a":1, "b"` — the key has no value
            State::AfterKey => self.drop_item(RepairKind::TruncatedMember, at)?,
            _ => {}
        }
        while let Some(kind) = self.top() {
            if matches!(kind, Container::Object | Container::Array) {
                self.record(RepairKind::UnclosedContainer, at)?;
            }
            self.pos = at;
            if kind == Container::Call {
                self.close_call()?;
                continue;
            }
            self.pop_and_close();
            if kind == Container::Wrapper {
                break;
            }
        }
        Ok(())
    }

    // ----- strings -----

    /// Opens a string at `pos`. With `continued`, the previous string's closing quote was removed and
    /// this one's content is appended to it.
    #[inline]
    fn open_string(&mut self, quote: (QuoteStyle, usize), ctx: Ctx, continued: bool) -> Step {
        let (style, qlen) = quote;
        match style {
            QuoteStyle::Double => {}
            QuoteStyle::Single => self.record(RepairKind::SingleQuotes, self.pos)?,
            _ => self.record(RepairKind::CurlyQuotes, self.pos)?,
        }
        self.pos += qlen;
        if !continued {
            self.out.push(b'"');
        }
        self.str = StrState {
            ctx,
            style,
            ..NO_STR
        };
        self.state = State::Str;
        Ok(())
    }

    /// Reads string content up to the closing quote (or the end of the input), then moves on: a key
    /// to its colon (or is dropped when the input ended inside it), a value to `AfterString`.
    #[inline]
    fn string_body(&mut self) -> Step {
        let truncated = self.string_content()?;
        match self.str.ctx {
            Ctx::Key if truncated => {
                // repair: the input ends inside a key
                self.drop_item(RepairKind::TruncatedMember, self.pos)
            }
            Ctx::Key => {
                self.state = State::AfterKey;
                Ok(())
            }
            Ctx::Value => {
                self.state = State::AfterString;
                Ok(())
            }
        }
    }

    /// The loop of [`Self::string_body`]; returns whether the input ended inside the string.
    fn string_content(&mut self) -> Result<bool, Stop> {
        let s = self.s;
        let single = matches!(self.str.style, QuoteStyle::Single | QuoteStyle::CurlySingle);
        let table = if single {
            &SPECIAL_SINGLE
        } else {
            &SPECIAL_DOUBLE
        };
        loop {
            let run = self.pos;
            self.pos = skip_plain_string_bytes(s, self.pos, self.end, single);
            while self.pos < self.end && !table[s[self.pos] as usize] {
                self.pos += 1;
            }
            copy_from(&mut self.out, s, run..self.pos);
            if self.pos >= self.end {
                if self.more {
                    return Err(Stop::SUSPEND);
                }
                if let Some((out_len, at)) = self.str.fence_cut {
                    self.cut_output(out_len);
                    self.end = at;
                    self.pos = at;
                }
                // repair: the input ends inside the string
                if self.str.ctx == Ctx::Value {
                    self.record(RepairKind::TruncatedString, self.end)?;
                }
                self.out.push(b'"');
                return Ok(true);
            }
            let b = s[self.pos];
            if b == b'\\' {
                self.escape()?;
                continue;
            }
            if b < 0x20 {
                if b == b'\n' && self.str.fence_cut.is_none() && self.fence.is_some() {
                    let (k, _) = self.peek_past_space(self.pos + 1);
                    self.need_through(k + 2)?;
                    if self.is_fence_at(k) {
                        self.str.fence_cut = Some((self.out.len(), k));
                    }
                }
                if !self.str.noted_control {
                    // repair: raw newline, tab or other control character inside a string
                    self.record(RepairKind::ControlCharacter, self.pos)?;
                    self.str.noted_control = true;
                }
                push_control(&mut self.out, b);
                self.pos += 1;
                continue;
            }
            let close = match closer_len(self.str.style, s, self.pos) {
                3 if self.str.style == QuoteStyle::Double
                    && (!self.curly_closes || !starts_with_at(s, self.pos, RDQUO)) =>
                {
                    0
                }
                n => n,
            };
            if close == 0 {
                // A quote character of another style, or a non-quote 0xE2 sequence: content.
                if b == b'"' {
                    self.out.extend_from_slice(b"\\\"");
                } else {
                    self.out.push(b);
                }
                self.pos += 1;
                continue;
            }
            if self.ends_string(self.pos + close, self.str.ctx)? {
                let straight_open =
                    matches!(self.str.style, QuoteStyle::Double | QuoteStyle::Single);
                if (close == 1) != straight_open {
                    // repair: a typographic quote closes a straight-quoted string, or the reverse
                    self.record(RepairKind::CurlyQuotes, self.pos)?;
                }
                self.out.push(b'"');
                self.pos += close;
                return Ok(false);
            }
            let seen = self.str.quotes_seen + 1;
            if self.str.ctx == Ctx::Value && b == b'"' && self.top() == Some(Container::Object) {
                let (k, _) = self.peek_past_space(self.pos + 1);
                if let Some(cq) = self.str.comma_quote {
                    if cq.seen + 1 == seen && self.need(k)? && s[k] == b':' {
                        // repair: `"a": "x, "b": 1` — the string should have ended before the comma.
                        // What was recorded past the comma (the quote taken as content) is taken back.
                        self.repairs.truncate(cq.repairs);
                        self.record(RepairKind::MissingQuote, cq.comma_at)?;
                        self.cut_output(cq.out_len);
                        self.out.push(b'"');
                        self.pos = cq.comma_at;
                        return Ok(false);
                    }
                }
                self.str.comma_quote = self.comma_before(self.pos).map(|c| CommaQuote {
                    out_len: self.out.len() - (self.pos - c),
                    comma_at: c,
                    repairs: self.repairs.len(),
                    seen,
                });
            }
            self.str.quotes_seen = seen;
            if b == b'"' {
                if !self.str.noted_quote {
                    // repair: an unescaped quote inside a string is content
                    self.record(RepairKind::UnescapedQuote, self.pos)?;
                    self.str.noted_quote = true;
                }
                self.out.extend_from_slice(b"\\\"");
            } else {
                copy_from(&mut self.out, s, self.pos..self.pos + close);
            }
            self.pos += close;
        }
    }

    /// The offset of a `,` that precedes `i` with only spaces between, if any.
    fn comma_before(&self, i: usize) -> Option<usize> {
        let mut k = i;
        while k > 0 && self.s[k - 1] == b' ' {
            k -= 1;
        }
        (k > 0 && self.s[k - 1] == b',').then(|| k - 1)
    }

    /// An escape sequence at `pos` inside a string.
    fn escape(&mut self) -> Step {
        let s = self.s;
        let at = self.pos;
        if !self.need(at + 1)? {
            // repair: a dangling backslash at the end of the input is dropped
            self.pos = self.end;
            return Ok(());
        }
        match s[at + 1] {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.out.extend_from_slice(&s[at..at + 2]);
                self.pos += 2;
            }
            b'\'' => {
                // repair: `\'` is not a JSON escape; the quote is content
                self.record(RepairKind::InvalidEscape, at)?;
                self.out.push(b'\'');
                self.pos += 2;
            }
            b'u' => {
                let hex_end = (at + 6).min(self.end);
                let hex = &s[at + 2..hex_end];
                let all_hex = hex.iter().all(u8::is_ascii_hexdigit);
                if all_hex && hex.len() == 4 {
                    self.out.extend_from_slice(&s[at..at + 6]);
                    self.pos += 6;
                } else if all_hex && hex_end == self.end {
                    // A stream may still bring the rest of the digits.
                    self.need(self.end)?;
                    // repair: a partial `\uXX` at the end of the input is dropped
                    self.pos = self.end;
                } else {
                    // repair: `\u` without four hex digits keeps its backslash
                    self.record(RepairKind::InvalidEscape, at)?;
                    self.out.extend_from_slice(b"\\\\");
                    self.pos += 1;
                }
            }
            _ => {
                // repair: an invalid escape such as `\d` or `D:\Projects` keeps its backslash
                self.record(RepairKind::InvalidEscape, at)?;
                self.out.extend_from_slice(b"\\\\");
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// Whether a closing quote whose end is at `after` really ends the string: what follows must be a
    /// delimiter and then what the context expects next.
    fn ends_string(&self, after: usize, ctx: Ctx) -> Result<bool, Stop> {
        let s = self.s;
        // The common cases, decided by the next byte alone.
        match s.get(after) {
            Some(b':') if ctx == Ctx::Key => return Ok(true),
            Some(b'}' | b']') => return Ok(true),
            _ if !self.need(after)? => return Ok(true),
            _ => {}
        }
        // After a string, `#` starts a comment as it does in skip_space.
        let (q, newline) = self.peek_past_space_and_comments(after, true)?;
        if !self.need(q)? {
            return Ok(true);
        }
        self.need_through(q + 2).or_else(|stop| {
            if matches!(s[q], b'`' | b'~') {
                Err(stop)
            } else {
                Ok(())
            }
        })?;
        if self.is_fence_at(q) {
            return Ok(true);
        }
        let spaced = q > after;
        Ok(match s[q] {
            b':' => ctx == Ctx::Key,
            b'}' | b']' => true,
            b',' => self.continues_after_comma(q + 1, ctx)?,
            b')' => self.top() == Some(Container::Call),
            b'+' => ctx == Ctx::Value && self.is_concatenation(q)?,
            _ if quote_at(s, q).is_some() => spaced,
            b => match ctx {
                Ctx::Key => {
                    spaced
                        && (matches!(b, b'{' | b'[')
                            || b.is_ascii_digit()
                            || b == b'-'
                            || self.keyword_at(q)?)
                }
                Ctx::Value => {
                    (newline && self.top() == Some(Container::Object) && self.is_key_ahead(q)?)
                        || self.is_ellipsis_item_ahead(q)?
                }
            },
        })
    }

    /// After a comma that may end a string: does what follows continue the container?
    fn continues_after_comma(&self, i: usize, ctx: Ctx) -> Result<bool, Stop> {
        let s = self.s;
        // After a comma in an object a key comes, and `#` starts a comment; in an array a value comes,
        // and `#` starts an unquoted value (`#fff`).
        let in_object = ctx == Ctx::Key || self.top() == Some(Container::Object);
        let (r, _) = self.peek_past_space_and_comments(i, in_object)?;
        if !self.need(r)? {
            return Ok(true);
        }
        let b = s[r];
        if self.is_ellipsis_item_ahead(r)? {
            return Ok(true);
        }
        if in_object {
            return Ok(b == b'}' || self.is_key_ahead(r)?);
        }
        if b == b'-' {
            self.need_through(r + 1)?;
        }
        Ok(quote_at(s, r).is_some()
            || matches!(b, b'{' | b'[' | b']')
            || b.is_ascii_digit()
            || (b == b'-' && s.get(r + 1).is_some_and(u8::is_ascii_digit))
            || self.keyword_at(r)?
            || self.is_bare_item_ahead(r)?)
    }

    /// Whether an ellipsis placeholder stands at `i` as a whole item or member (`["a", ...]`,
    /// `{"a": "b", ...}`): a `,`, `]` or `}` or the end of the input follows it.
    #[inline(never)]
    fn is_ellipsis_item_ahead(&self, i: usize) -> Result<bool, Stop> {
        if !(matches!(self.s[i], b'.' | 0xE2) && self.ellipsis_at(i)?) {
            return Ok(false);
        }
        let (r, _) = self.peek_past_space(i + ellipsis_len(self.s, i));
        Ok(!self.need(r)? || matches!(self.s[r], b',' | b']' | b'}'))
    }

    /// Whether a whole bare word stands at `i` as an array item (`["a", active]`, `["x", #fff]`): it runs
    /// to a `,` or `]`. A word that runs on into more text (`["a "b", c d"]`) is not one.
    fn is_bare_item_ahead(&self, i: usize) -> Result<bool, Stop> {
        let s = self.s;
        if !(is_ident_start(s[i]) || s[i] == b'#') {
            return Ok(false);
        }
        let mut k = i + 1;
        while self.need(k)? && (is_word_byte(s[k]) || s[k] == b'#') {
            k += 1;
        }
        let (r, _) = self.peek_past_space(k);
        Ok(!self.need(r)? || matches!(s[r], b',' | b']'))
    }

    /// Whether a JSON or Python keyword stands at `i` as a whole word.
    fn keyword_at(&self, i: usize) -> Result<bool, Stop> {
        // The longest keyword, `undefined`, and the byte after it.
        self.need_through(i + 9).or_else(|stop| {
            // Only a text that could still become a keyword needs to wait.
            let seen = &self.s[i..self.end];
            let could = KEYWORDS.iter().any(|(kw, _, _)| {
                kw.starts_with(seen) || (seen.starts_with(kw) && seen.len() == kw.len())
            });
            if could {
                Err(stop)
            } else {
                Ok(())
            }
        })?;
        Ok(KEYWORDS.iter().any(|(kw, _, _)| {
            starts_with_at(self.s, i, kw)
                && !self.s.get(i + kw.len()).is_some_and(|&c| is_word_byte(c))
        }))
    }

    /// Whether `+` at `i` joins two strings: `"a" + "b"`.
    fn is_concatenation(&self, i: usize) -> Result<bool, Stop> {
        let (r, _) = self.peek_past_space(i + 1);
        Ok(self.need(r)? && quote_at(self.s, r).is_some())
    }

    /// After a value string: repair string concatenation, `"a" + "b"` becomes `"ab"`; otherwise the
    /// value is complete.
    #[inline]
    fn after_string(&mut self) -> Step {
        // Most strings are followed directly by a delimiter: no concatenation to look for.
        if !matches!(self.s.get(self.pos), Some(b',' | b'}' | b']' | b':')) {
            let (q, _) = self.peek_past_space(self.pos);
            if self.need(q)? && self.s[q] == b'+' {
                let (r, _) = self.peek_past_space(q + 1);
                if let Some(quote) = self.need(r)?.then(|| quote_at(self.s, r)).flatten() {
                    self.record(RepairKind::StringConcatenation, q)?;
                    self.pos = r;
                    self.out.pop();
                    return self.open_string(quote, Ctx::Value, true);
                }
            }
        }
        self.value_done();
        Ok(())
    }

    // ----- numbers, keywords, bare words -----

    /// Whether the byte at `k` ends a number-like token.
    #[inline]
    fn ends_token(&self, k: usize) -> Result<bool, Stop> {
        let s = self.s;
        if !self.need(k)? {
            return Ok(true);
        }
        // Comments, typographic quotes and fences are recognised by up to three bytes.
        if matches!(s[k], b'/' | b'`' | b'~') {
            self.need_through(k + 2)?;
        }
        Ok(matches!(
            s[k],
            b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']' | b')' | b'[' | b'{' | b'"' | b'\''
        ) || (s[k] == b'/' && matches!(s.get(k + 1), Some(b'/' | b'*')))
            || quote_at(s, k).is_some()
            || invisible_len(s, k) > 0
            || starts_with_at(s, k, NBSP)
            || self.is_fence_at(k))
    }

    /// The end of the word-like token at `start`; in a stream, a token that runs into the end waits.
    #[inline]
    fn word_end(&self, start: usize) -> Result<usize, Stop> {
        let s = self.s;
        let mut k = start;
        while k < self.end {
            let b = s[k];
            // Only `.` (an ellipsis) and 0xE2 (typographic quotes, `…`) need a closer look.
            let plain = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-' | b'+');
            if !plain {
                if b == b'.' {
                    self.need_through(k + 2)?;
                }
                if !(is_word_byte(b) && quote_at(s, k).is_none() && ellipsis_len(s, k) == 0) {
                    break;
                }
            }
            k += 1;
        }
        self.need(k)?;
        Ok(k)
    }

    fn number(&mut self) -> Step {
        let s = self.s;
        let start = self.pos;
        let k = self.word_end(start)?;
        if !self.ends_token(k)? {
            // `12:30`, `1/2`: prose, not a number
            return self.bare_string(start);
        }
        if s.get(k) == Some(&b',')
            && self.top() == Some(Container::Object)
            && self.grouped_number(start, k)?
        {
            return Ok(());
        }
        let tok = &s[start..k];
        let at_eof = k >= self.end;
        if matches!(tok, b"-Infinity" | b"+Infinity" | b"-NaN") {
            self.begin_value();
            self.record(RepairKind::NonJsonLiteral, start)?;
            self.out.extend_from_slice(b"null");
            self.pos = k;
            self.value_done();
            return Ok(());
        }
        match classify_number(tok, at_eof) {
            NumberShape::Valid => {
                self.begin_value();
                copy_from(&mut self.out, s, start..k);
            }
            NumberShape::Fixed(text, kind) => {
                self.begin_value();
                self.record(kind, start)?;
                self.out.extend_from_slice(&text);
            }
            NumberShape::AsString => {
                self.begin_value();
                self.record(RepairKind::NumberAsString, start)?;
                self.out.push(b'"');
                copy_from(&mut self.out, s, start..k);
                self.out.push(b'"');
            }
            NumberShape::NotStarted => {
                self.begin_value();
                self.pos = k;
                // repair: `"delta": -` — no digits, so no value
                let kind = if at_eof {
                    RepairKind::TruncatedMember
                } else {
                    RepairKind::MissingValue
                };
                return self.drop_item(kind, start);
            }
            NumberShape::Word => return self.bare_string(start),
        }
        self.pos = k;
        self.value_done();
        Ok(())
    }

    /// After a member's number that ends at a `,` at `k`: the end of the digits that go on right after
    /// the comma (`1,000,000`, `12,50`), or `None` when the next member follows. A member does not start
    /// with a digit straight after its comma, except a numeric key (`1,2: "b"`), which stays one. A group
    /// of fewer than three digits cut off by the end of the input is left out (`1,00` reads as `1`).
    fn digits_past_comma(&self, k: usize) -> Result<Option<usize>, Stop> {
        let s = self.s;
        let (mut e, mut comma) = (k, k);
        while self.need(e)? && s[e] == b',' && self.need(e + 1)? && s[e + 1].is_ascii_digit() {
            comma = e;
            e += 1;
            while self.need(e)? && (s[e].is_ascii_digit() || s[e] == b'.') {
                e += 1;
            }
        }
        if e >= self.end && e - comma < 4 && !s[comma..e].contains(&b'.') {
            e = comma;
        }
        if e == k || !self.ends_token(e)? {
            return Ok(None);
        }
        let (q, _) = self.peek_past_space(e);
        Ok((!self.need(q)? || s[q] != b':').then_some(e))
    }

    /// A member's number written with commas (its first group `s[start..k]` ends at a comma), if it is
    /// one (see `digits_past_comma`): thousands separators (`1,000,000`,
    /// `-12,345.5`: groups of three digits after a first group of one to three) are dropped; any other
    /// shape (`12,50`, `1,2,3`) is kept as a string, whose meaning the caller knows better.
    #[inline(never)]
    fn grouped_number(&mut self, start: usize, k: usize) -> Result<bool, Stop> {
        let Some(e) = self.digits_past_comma(k)? else {
            return Ok(false);
        };
        let s = self.s;
        let digits = start + usize::from(s[start] == b'-');
        let mut thousands = s[digits] != b'0';
        // Digits since the last comma or dot, commas so far, and whether a fraction has begun.
        let (mut run, mut commas, mut frac) = (0, 0, false);
        for &b in &s[digits..e] {
            match b {
                b',' => {
                    thousands &= !frac
                        && if commas == 0 {
                            (1..=3).contains(&run)
                        } else {
                            run == 3
                        };
                    (run, commas) = (0, commas + 1);
                }
                b'.' => {
                    thousands &= !frac && commas > 0 && run == 3;
                    (run, frac) = (0, true);
                }
                b'0'..=b'9' => run += 1,
                // `+1,000`, `1e5,000`: no JSON number with its commas dropped
                _ => thousands = false,
            }
        }
        thousands &= if frac { run > 0 } else { run == 3 };
        self.begin_value();
        if thousands {
            // repair: `"population": 1,000,000` (thousands separators)
            self.record(RepairKind::NumberFormat, start)?;
            self.out.extend(s[start..e].iter().filter(|&&b| b != b','));
        } else {
            // repair: `"price": 12,50` (a decimal comma, or digits that are no JSON number)
            self.record(RepairKind::NumberAsString, start)?;
            self.out.push(b'"');
            copy_from(&mut self.out, s, start..e);
            self.out.push(b'"');
        }
        self.pos = e;
        self.value_done();
        Ok(true)
    }

    /// A word in value position: keyword, truncated keyword, wrapper call, or unquoted string.
    fn word(&mut self) -> Step {
        let s = self.s;
        let start = self.pos;
        let k = self.word_end(start)?;
        let tok = &s[start..k];
        if k > start && is_ident_start(s[start]) && s.get(k) == Some(&b'(') && k < self.end {
            // repair: `ObjectId("…")`, `NumberLong(2)`: the value is the argument
            self.record(RepairKind::FunctionCall, start)?;
            let tentative = self.tentative;
            self.begin_value();
            // The call is dropped if its argument never starts: nothing of it is settled yet.
            self.tentative = tentative.or(self.stack.last().map(|f| f.item_out));
            self.push_frame(Container::Call)?;
            self.pos = k + 1;
            self.state = State::Value;
            return Ok(());
        }
        if self.ends_token(k)? {
            let keyword = match tok.first() {
                Some(b't' | b'f' | b'n' | b'T' | b'F' | b'N' | b'u' | b'I') => {
                    KEYWORDS.iter().find(|(kw, _, _)| *kw == tok)
                }
                _ => None,
            };
            if let Some((_, json, kind)) = keyword {
                self.begin_value();
                if let Some(kind) = kind {
                    self.record(*kind, start)?;
                }
                push_bytes(&mut self.out, json);
                self.pos = k;
                self.value_done();
                return Ok(());
            }
            if k >= self.end && !tok.is_empty() {
                if let Some((_, json, _)) = KEYWORDS.iter().find(|(kw, _, _)| kw.starts_with(tok)) {
                    // repair: `tr`, `fal`, `nu` cut off by the end: every keyword with this prefix
                    // means the same JSON value, so completing it is unambiguous
                    self.begin_value();
                    self.record(RepairKind::TruncatedLiteral, start)?;
                    push_bytes(&mut self.out, json);
                    self.pos = k;
                    self.value_done();
                    return Ok(());
                }
            }
        }
        self.bare_string(start)
    }

    /// repair: bare words (`active`, `team-b`, `in progress`) become a string, up to the next delimiter.
    fn bare_string(&mut self, start: usize) -> Step {
        let s = self.s;
        let in_call = self.top() == Some(Container::Call);
        let mut k = start;
        while k < self.end {
            let b = s[k];
            if matches!(b, b'`' | b'~') {
                self.need_through(k + 2)?;
            }
            if matches!(b, b',' | b'}' | b']' | b'\n' | b'\r' | b'"')
                || (b == b')' && in_call)
                || self.is_fence_at(k)
            {
                break;
            }
            if matches!(b, b' ' | b'\t') {
                self.need_through(k + 2)?;
                if matches!(s.get(k + 1), Some(b'/' | b'#')) {
                    let c = s.get(k + 2);
                    if s[k + 1] == b'#' || matches!(c, Some(b'/' | b'*')) {
                        break;
                    }
                }
            }
            k += 1;
        }
        self.need(k)?;
        if k == start {
            return self.skip_unexpected();
        }
        let mut e = k;
        while e > start && matches!(s[e - 1], b' ' | b'\t') {
            e -= 1;
        }
        self.begin_value();
        self.record(RepairKind::UnquotedString, start)?;
        self.out.push(b'"');
        escape_into(&mut self.out, &s[start..e]);
        self.out.push(b'"');
        self.pos = k;
        self.value_done();
        self.value_end = e;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::json_string;

    #[test]
    fn json_string_escapes_what_json_requires() {
        assert_eq!(json_string("a\"b\\c\n\u{1}é"), r#""a\"b\\c\n\u0001é""#);
    }
}
