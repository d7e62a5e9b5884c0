//! Streaming JSON: the value of a response while it arrives, and at the end exactly what [`repair`]
//! returns for the whole text.
//!
//! [`PartialJson`] keeps the text, locates the JSON in it with the one-shot locator, and feeds the
//! located source to the one-shot parser, which suspends wherever it would need bytes that have not
//! arrived and resumes on the next chunk. Each byte is parsed once. Locating runs again only when new
//! text could change the answer (a `<`, a fence character, the end of a tag, or no source yet) and at
//! most once per eighth of growth of what it reads: the whole text until the reasoning question is
//! decided, then only the answer (and while a leading block is open, only where its closing tag may
//! end), so the answer after a long reasoning block shows as it arrives; the first reasoning tag is
//! located at once, and so is a chunk shortly after a bracket while no JSON has been found, or while the
//! JSON is a value in prose that a fenced block arriving would replace (such relocations read at most
//! four times the text), so the JSON after long prose shows as it arrives too. Linear in total. If the
//! answer changes (a `</think>` with no opening tag, a ```` ```json ```` block after a value in prose)
//! the parse starts over at the new source and the partial value is replaced.
//!
//! The value is described to the host as changes (see [`super::view`]), so keeping a live value costs
//! time proportional to each change.
//!
//! [`repair`]: crate::repair

use super::view::{Changes, Guide, Recorder, View};
use crate::error::{Error, ErrorKind};
use crate::position::utf16_len;
use crate::prelude::*;
use crate::reasoning::bare_tag_ends_at;
use crate::repair::chars::has_any_byte;
use crate::repair::locate::{
    has_closing_think_tag, has_think_tag, locate, locate_in, may_become_control_token, Reasoning,
    CLOSING_THINK_TAG_MAX,
};
use crate::repair::{repaired, strictly_valid, valid, Options, Repaired, SourceParse};
use crate::schema::{RuleSet, SharedSchema};

/// Text shorter than this is located again after every chunk that may change the answer.
const RELOCATE_ALWAYS_BELOW: usize = 4096;
/// How many bytes after a `<` or fence character locating stays alert: enough for a tag or a fence's
/// opening line to complete.
const ALERT_SPAN: usize = 256;
/// How many bytes after a bracket decide whether it starts a value in prose (spaces, then a quote, a
/// digit, a key's colon).
const DECIDE_SPAN: usize = 64;
/// Relocations made at once for a bracket, beyond the eighth-of-growth rule, read at most this many times
/// the text in total: linear still.
const EAGER_BUDGET: usize = 4;
/// A suspended look-ahead shorter than this is retried on every chunk.
const RETRY_ALWAYS_BELOW: usize = 256;

/// What a chunk changed.
#[derive(Debug)]
pub struct Update {
    /// The changes to the partial value, in order.
    pub changes: Changes,
    /// Whether the root value has been read to its closing bracket.
    pub complete: bool,
}

/// An incremental parser for the JSON in a streamed response.
///
/// # Example
/// ```
/// use llm_response_sanitizer::{Change, PartialJson, RepairOptions};
/// let mut p = PartialJson::new(&RepairOptions::default());
/// let u = p.push("Sure: {\"name\": \"Ad").unwrap();
/// let changes: Vec<Change> = u.changes.iter().collect();
/// assert_eq!(changes, [Change::Object, Change::Key("name"), Change::String("Ad")]);
/// assert!(!u.complete);
/// assert!(p.push("a\", \"tags\": ['x',]}").unwrap().complete);
/// assert_eq!(p.finish().unwrap().json, r#"{"name":"Ada","tags":["x"]}"#);
/// ```
pub struct PartialJson {
    text: String,
    options: Options,
    /// Depth limit for the strict check of the whole text at the end.
    valid_max_depth: usize,
    utf16_len: usize,
    /// The input limit was exceeded: every later call fails with this.
    too_long: Option<Error>,
    parse: Option<SourceParse>,
    /// The current source's parse stopped with this error (thrown at the end if the source stays).
    fault: Option<Error>,
    /// The current source's value is complete.
    done: bool,
    /// Text length when the JSON was last located, and whether that answer can no longer change.
    located_len: usize,
    settled: bool,
    /// The reasoning question as far as locating decided it: past it, locating reads only the answer.
    reasoning: Reasoning,
    /// A reasoning tag arrived and the text was located at once for it (once per stream).
    tag_located: bool,
    /// The source is not fenced and follows text the locator removed (prose, a reasoning block): a fenced
    /// block after it would replace it, and locating watches for one eagerly. (A fenced block after a
    /// value at the text's start replaces that too; it is left to the eighth-of-growth rule, as the
    /// strings of a JSON stream often hold fences.)
    in_prose: bool,
    /// Locating is eager until the text reaches this length (see [`DECIDE_SPAN`]), and what the eager
    /// relocations have read (see [`EAGER_BUDGET`]).
    bracket_until: usize,
    eager_read: usize,
    /// Locating stays alert until the text reaches this length.
    alert_until: usize,
    /// Where the parser last suspended: its position and the input it had.
    stuck: (usize, usize),
    view: View,
    changes: Recorder,
    finished: bool,
    /// With [`Self::with_reasoning_first`], until a closing reasoning tag has arrived: where the search for
    /// it resumes. Nothing is located meanwhile.
    closing_search: Option<usize>,
    /// While the text may still be one JSON string (`"[1, 2]"`), whose value is that string and not the
    /// JSON inside it: how far it has been read. Nothing is shown meanwhile, so the value never changes type.
    quoted: Option<Quoted>,
    /// Where the last chunk's text and the one before it lie in `text`, while both were taken whole (see
    /// [`Quick`]).
    chunk: Option<(usize, usize)>,
    chunk_before: Option<(usize, usize)>,
}

/// A push's changes in a form the binding can send as one number: none, or one `Append` whose text the
/// host holds already, as the end of the chunk before and a part of this one. Most pushes of a stream of
/// small chunks are one of these (100 KB of pretty-printed JSON in 10-character chunks: 54%), and then the
/// host neither decodes changes nor copies text out of wasm memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quick {
    Nothing,
    /// The last `held` UTF-16 units of the chunk before, then units `start..start + len` of this chunk
    /// (`held` is 0 or `start` is).
    Append {
        held: usize,
        start: usize,
        len: usize,
    },
}

/// The longest chunk, in bytes, whose changes [`PartialJson::placed`] places. Placing saves a cost per push
/// (the host decodes no text from memory) and costs more per change than writing them out, so it pays on
/// the short chunks of token-by-token streams only: 100 KB in 10-character chunks took 0.91–0.98 the time
/// under Node 26 and 0.93–1.02 under Node 20, while placing 20-character chunks took 1.01–1.04 and
/// 25-character ones 1.03–1.06. It also keeps each search within 32 bytes.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
const PLACED_MAX: usize = 16;
/// The most changes [`PartialJson::placed`] places (the count crosses in eight bits).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
const PLACED_COUNT_MAX: usize = 255;

/// How many bytes at the end of a chunk an `Append` may leave for later (whitespace that may yet turn
/// out to end an unclosed string).
const QUICK_HELD_BACK: usize = 16;

/// Whether `t` holds U+FFFD (EF BF BD), which in the host's copy of a chunk may be a lone surrogate. Byte
/// by byte: a slice comparison per window is a `memcmp` call in wasm.
fn has_replacement(t: &[u8]) -> bool {
    t.windows(3)
        .any(|w| w[0] == 0xEF && w[1] == 0xBF && w[2] == 0xBD)
}

/// How far a text that may be one JSON string has been read.
#[derive(Debug, Clone, Copy)]
struct Quoted {
    /// Bytes read.
    at: usize,
    /// 0: whitespace before the string; 1: inside it; 2: inside it, after a backslash; 3: after it.
    state: u8,
}

impl Quoted {
    /// Reads `text` from where it stopped; false once the text cannot be one JSON string.
    fn still(&mut self, text: &[u8]) -> bool {
        while let Some(&b) = text.get(self.at) {
            self.at += 1;
            let ws = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
            self.state = match (self.state, b) {
                (0 | 3, _) if ws => self.state,
                (0, b'"') => 1,
                (1, b'"') => 3,
                (1, b'\\') => 2,
                (1 | 2, _) if b >= 0x20 => 1,
                _ => return false,
            };
        }
        true
    }
}

impl PartialJson {
    /// A parser with the one-shot options (`assume_invalid` is ignored: the end checks the whole text).
    pub fn new(options: &Options) -> PartialJson {
        PartialJson {
            text: String::new(),
            options: Options {
                assume_invalid: false,
                ..options.clone()
            },
            valid_max_depth: options.max_depth,
            utf16_len: 0,
            too_long: None,
            parse: None,
            fault: None,
            done: false,
            located_len: 0,
            settled: false,
            reasoning: Reasoning::Undecided,
            tag_located: false,
            in_prose: false,
            bracket_until: 0,
            eager_read: 0,
            alert_until: 0,
            stuck: (0, 0),
            view: View::default(),
            changes: Recorder::default(),
            finished: false,
            closing_search: None,
            quoted: Some(Quoted { at: 0, state: 0 }),
            chunk: None,
            chunk_before: None,
        }
    }

    /// Sets the depth limit of the strict check that lets valid JSON through untouched at the end
    /// (by default `max_depth`; a host whose own strict parser has no limit passes `usize::MAX`).
    pub fn with_valid_max_depth(mut self, depth: usize) -> PartialJson {
        self.valid_max_depth = depth;
        self
    }

    /// Says that the text starts inside a reasoning block whose opening tag the chat template emitted
    /// (DeepSeek-R1, QwQ): nothing is shown until a closing tag of [`crate::REASONING_TAGS`] (`</think>`, `[/THINK]`, …)
    /// has arrived, so JSON drafted in the reasoning never appears as the value. [`Self::finish`] is not
    /// affected: it reads the whole text as [`crate::repair`] does, closing tag or not.
    pub fn with_reasoning_first(mut self, on: bool) -> PartialJson {
        self.closing_search = on.then_some(0);
        self
    }

    /// Shows the value by `schema`: a string the schema restricts to fixed values (`enum`, `const`) appears
    /// only once complete, never as a misleading prefix, and a string the schema wants as a number or
    /// boolean appears only once complete, coerced as [`crate::schema::extract`] would coerce it
    /// (under the rules not in `forbid`). [`Self::finish`] is not affected: it is still the repair.
    pub fn with_schema(mut self, schema: SharedSchema, forbid: RuleSet) -> PartialJson {
        self.set_schema(schema, forbid);
        self
    }

    /// [`Self::with_schema`] on a parser in place, before its first chunk.
    pub fn set_schema(&mut self, schema: SharedSchema, forbid: RuleSet) {
        self.view = View::guided(Guide::new(schema, forbid));
    }

    /// Takes the next chunk and returns what changed in the partial value.
    ///
    /// # Errors
    /// `InputLimitExceeded` once the text is longer than `max_input_length`; other errors wait for
    /// [`Self::finish`], since later text may move the JSON elsewhere (see [`Self::error`]).
    pub fn push(&mut self, chunk: &str) -> Result<Update, Error> {
        let complete = self.take_chunk(chunk)?;
        Ok(Update {
            changes: self.changes.take(),
            complete,
        })
    }

    /// [`Self::push`] for the binding: the changes stay in the recorder, whose buffers are reused (a
    /// stream of small chunks then allocates nothing per chunk). `write` reads them and whether the root
    /// is complete, their [`Quick`] form if they have one, and the parser (for [`Self::placed`]); they are
    /// cleared after.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn push_recorded<R>(
        &mut self,
        chunk: &str,
        write: impl FnOnce(&Recorder, bool, Option<Quick>, &Self) -> R,
    ) -> Result<R, Error> {
        let complete = self.take_chunk(chunk)?;
        let r = write(&self.changes, complete, self.quick(), self);
        self.changes.clear();
        Ok(r)
    }

    /// The changes of the last push as a [`Quick`], when they are one. The append's text is found in the
    /// text by its bytes, so whatever the parser did to write it, the host's slices hold the same
    /// characters; except U+FFFD, which in the host's chunk may have been a lone surrogate.
    fn quick(&self) -> Option<Quick> {
        let Some(t) = self.changes.only_append() else {
            return self.changes.is_empty().then_some(Quick::Nothing);
        };
        let (start, end) = self.chunk?;
        if t.is_empty() || has_replacement(t) {
            return None;
        }
        let bytes = self.text.as_bytes();
        let b = (end.saturating_sub(QUICK_HELD_BACK).max(start)..=end)
            .rev()
            .find(|&b| bytes.get(b.wrapping_sub(t.len())..b) == Some(t))?;
        let a = b - t.len();
        // `None` where a place is not a boundary of characters.
        let units = |from: usize, to: usize| self.text.get(from..to).map(utf16_len);
        if a >= start {
            return Some(Quick::Append {
                held: 0,
                start: units(start, a)?,
                len: units(a, b)?,
            });
        }
        let (before, _) = self.chunk_before?;
        (a >= before).then_some(())?;
        Some(Quick::Append {
            held: units(a, start)?,
            start: 0,
            len: units(start, b)?,
        })
    }

    /// The changes of the last push as numbers that say where each change's text lies in the host's copies
    /// of this chunk and the one before it (as a [`Quick`] append does), appended to `out` as little-endian
    /// `u32`s, one per change: its code in bits 28–31; for a change with text, the text's length in UTF-16
    /// units in bits 14–26 and where it starts in bits 0–13, units into the chunk, or units back from the
    /// chunk's start with bit 27 set. The host then slices each text from strings it holds instead of
    /// decoding them from memory. Returns how many were written, or 0 (and `out` as it was) where a text
    /// is not in the two chunks as it is in the changes (a repair rewrote it, or it began further back), the
    /// chunks hold U+FFFD (which the host may have as a lone surrogate), the chunk is longer than
    /// [`PLACED_MAX`] bytes, or there are no changes or more than [`PLACED_COUNT_MAX`]. Each text is looked
    /// for after the one before it, in at most `PLACED_MAX` bytes on each side of the chunk's start.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn placed(&self, out: &mut Vec<u8>) -> usize {
        let mark = out.len();
        let n = self.place(out).unwrap_or(0);
        if n == 0 {
            out.truncate(mark);
        }
        n
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    fn place(&self, out: &mut Vec<u8>) -> Option<usize> {
        let (start, end) = self.chunk?;
        if end - start > PLACED_MAX {
            return None;
        }
        let lo = match self.chunk_before {
            Some((before, _)) => before.max(start.saturating_sub(PLACED_MAX)),
            None => start,
        };
        let bytes = self.text.as_bytes();
        let units = |from: usize, to: usize| self.text.get(from..to).map(utf16_len);
        // A text found in the chunks holds U+FFFD only if they do: then none is placed (rare).
        if has_replacement(bytes.get(lo..end)?) {
            return None;
        }
        let (mut from, mut n) = (lo, 0);
        for (code, t) in self.changes.raw() {
            n += 1;
            let mut entry = (code as u32) << 28;
            if code.has_text() && !t.is_empty() {
                let a = from
                    + bytes
                        .get(from..end)?
                        .windows(t.len())
                        .position(|w| w[0] == t[0] && w == t)?;
                from = a + t.len();
                let len = units(a, from)?;
                let at = if a >= start {
                    units(start, a)?
                } else {
                    entry |= 1 << 27;
                    units(a, start)?
                };
                (len < 1 << 13 && at < 1 << 14).then_some(())?;
                entry |= (len as u32) << 14 | at as u32;
            }
            out.extend_from_slice(&entry.to_le_bytes());
        }
        (n <= PLACED_COUNT_MAX).then_some(n)
    }

    /// Reads the next chunk, recording the changes; returns whether the root value is complete.
    fn take_chunk(&mut self, chunk: &str) -> Result<bool, Error> {
        // A chunk not taken whole breaks the host's copies of the last two.
        let chunk_before = self.chunk.take();
        if let Some(e) = &self.too_long {
            return Err(e.clone());
        }
        if self.finished {
            return Ok(self.complete());
        }
        if let Some(limit) = self.options.max_input_length {
            self.utf16_len += utf16_len(chunk);
            if self.utf16_len > limit {
                let e = Error::at(ErrorKind::InputLimitExceeded { limit }, &self.text, 0);
                self.too_long = Some(e.clone());
                return Err(e);
            }
        }
        let old = self.text.len();
        self.text.push_str(chunk);
        self.chunk = Some((old, self.text.len()));
        self.chunk_before = chunk_before;
        if let Some(from) = self.closing_search {
            // Only the new text (and a tag it may complete) is searched: linear over the stream.
            if !has_closing_think_tag(
                self.text.as_bytes(),
                from.saturating_sub(CLOSING_THINK_TAG_MAX),
            ) {
                self.closing_search = Some(self.text.len());
                return Ok(false);
            }
            self.closing_search = None;
            self.relocate();
        }
        if let Some(q) = &mut self.quoted {
            if q.still(self.text.as_bytes()) {
                return Ok(false);
            }
            self.quoted = None;
        }
        if !self.settled {
            if has_any_byte(chunk.as_bytes(), b"<`~]\xB7") {
                self.alert(old);
            }
            let alerted = self.located_len < self.alert_until;
            let due = self.parse.is_none() || alerted;
            let len = self.text.len();
            // What locating again reads: the answer once the reasoning question is decided, only the
            // text a closing tag may end in while a leading block is open, else all of it. It runs at
            // most once per eighth of that much growth: linear in total.
            let reads = match &self.reasoning {
                Reasoning::Answer { at, .. } => len - at,
                Reasoning::Open { .. } => 0,
                Reasoning::Undecided => len,
            };
            // The first reasoning tag decides where the answer starts: located at once, so that the
            // answer after a long block shows as it arrives (once per stream, so still linear).
            let tag = alerted
                && !self.tag_located
                && matches!(self.reasoning, Reasoning::Undecided)
                && has_think_tag(
                    self.text.as_bytes(),
                    old.saturating_sub(CLOSING_THINK_TAG_MAX),
                );
            let regular = tag
                || due && (reads < RELOCATE_ALWAYS_BELOW || (len - self.located_len) * 8 >= reads);
            if regular || self.eager(old, alerted, reads) {
                self.tag_located |= tag;
                self.relocate();
            }
        }
        self.feed();
        Ok(self.complete())
    }

    /// Whether to locate at once, when the eighth-of-growth rule (`regular`) would not, so that the JSON
    /// after long prose shows as it arrives: a chunk up to [`DECIDE_SPAN`] bytes after a bracket (the
    /// chunk at `old` may hold one) does where no source has been found yet, and where the value is in
    /// prose and a fence came shortly before (its block would replace the value); while what such
    /// relocations read stays within [`EAGER_BUDGET`] times the text. Out of line: the push path is hot.
    #[inline(never)]
    fn eager(&mut self, old: usize, alerted: bool, reads: usize) -> bool {
        let len = self.text.len();
        let open = self.parse.is_none();
        if (open || self.in_prose) && has_any_byte(&self.text.as_bytes()[old..], b"{[") {
            self.bracket_until = len + DECIDE_SPAN;
        }
        let eager = self.located_len < self.bracket_until
            && (open || self.in_prose && alerted)
            && self.eager_read + reads <= EAGER_BUDGET * len;
        if eager {
            self.eager_read += reads;
        }
        eager
    }

    /// Keeps locating alert past the last `<` or fence character of the chunk at `old` and the last `]` or
    /// `▷` that ends a tag in it which holds none of those bytes (`[THINK]`, `[/THINK]`, `◁/think▷`: they
    /// alert when whole): one backward pass over the chunk.
    fn alert(&mut self, old: usize) {
        let bytes = self.text.as_bytes();
        let (mut marker, mut tag) = (false, false);
        for (at, &b) in bytes[old..].iter().enumerate().rev() {
            let alert = match b {
                b'<' | b'`' | b'~' if !marker => {
                    marker = true;
                    true
                }
                b']' | 0xB7 if !tag && bare_tag_ends_at(bytes, old + at + 1) => {
                    tag = true;
                    true
                }
                _ => false,
            };
            if alert {
                self.alert_until = self.alert_until.max(old + at + ALERT_SPAN);
                if marker && tag {
                    break;
                }
            }
        }
    }

    /// Whether the root value has been read to its closing bracket.
    pub fn complete(&self) -> bool {
        self.parse
            .as_ref()
            .and_then(SourceParse::parser)
            .is_some_and(|p| p.root_closed())
    }

    /// The error the current source's parse stopped with, which [`Self::finish`] will return unless
    /// later text moves the JSON elsewhere.
    pub fn error(&self) -> Option<&Error> {
        self.too_long.as_ref().or(self.fault.as_ref())
    }

    /// Ends the text: the result of [`crate::repair`] on all of it.
    ///
    /// # Errors
    /// Those of [`crate::repair`].
    ///
    /// The parser is spent afterwards: later pushes change nothing and a second `finish` repeats the
    /// result's error or parses the whole text again.
    pub fn finish(&mut self) -> Result<Repaired, Error> {
        self.end(false).0.map(Repaired::into_text)
    }

    /// [`Self::finish`] for a caller that keeps the value the pushes showed (applying their changes): also
    /// the changes that complete that value into the result's, where it is the result's. `None` where the
    /// result came another way and its JSON must be read: with a schema (whose view shows coerced values),
    /// where the JSON moved at the end or was never shown, where the whole text is strictly valid JSON
    /// after all, or an error.
    ///
    /// # Example
    /// ```
    /// use llm_response_sanitizer::{Change, PartialJson, RepairOptions};
    /// let mut p = PartialJson::new(&RepairOptions::default());
    /// p.push("{\"n\": [1, 2").unwrap();
    /// let (result, changes) = p.finish_with_changes();
    /// assert_eq!(result.unwrap().json, r#"{"n":[1,2]}"#);
    /// let changes = changes.unwrap();
    /// let changes: Vec<Change> = changes.iter().collect();
    /// assert_eq!(changes, [Change::Scalar("2"), Change::Close, Change::Close]);
    /// ```
    pub fn finish_with_changes(&mut self) -> (Result<Repaired, Error>, Option<Changes>) {
        let (result, shown) = self.end(true);
        (
            result.map(Repaired::into_text),
            shown.then(|| self.changes.take()),
        )
    }

    /// The changes recorded and not yet taken (those of [`Self::end`]).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn recorded(&self) -> &Recorder {
        &self.changes
    }

    /// [`Self::finish`], its JSON not yet checked as text. With `show`, for a host that keeps the value
    /// the pushes showed, the flag says where the result is that value completed by the changes now in
    /// the recorder, which the view read from the rest of the parse that fed it (never with a schema,
    /// whose view shows coerced values): the host need not read the result's JSON.
    #[cfg_attr(shipped, optimize(size))]
    pub(crate) fn end(&mut self, show: bool) -> (Result<Repaired<Vec<u8>>, Error>, bool) {
        self.finished = true;
        if let Some(e) = &self.too_long {
            return (Err(e.clone()), false);
        }
        let text = core::mem::take(&mut self.text);
        let ended = self.conclude(&text, show && !self.view.has_guide());
        self.text = text;
        ended
    }

    /// All the text pushed so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The result for the whole text, as [`crate::repair`] concludes it: the parse the pushes fed, read to
    /// the end, is the answer when it needed no repair (valid JSON); the strict pass over the whole text
    /// runs only when it did, or failed (1 MB of valid JSON: `finish()` in 0.5–0.8 of the time). The flag
    /// (only with `show`): the answer is the value of that parse, and the view has read all of it.
    #[cfg_attr(shipped, optimize(size))]
    fn conclude(&mut self, text: &str, show: bool) -> (Result<Repaired<Vec<u8>>, Error>, bool) {
        let (out, shown) = match self.end_parse(text, show) {
            Ok(ended) => ended,
            Err(e) => return (strictly_valid(text, self.valid_max_depth).ok_or(e), false),
        };
        // No repair: the text is the JSON the parse read.
        if out.repairs.is_empty() {
            return (Ok(valid(text.as_bytes())), shown);
        }
        match strictly_valid(text, self.valid_max_depth) {
            Some(whole) => (Ok(whole), false),
            None => (Ok(out), shown),
        }
    }

    /// The parse of the JSON located in `text` (the one the pushes fed, if it is still there) read to the
    /// end, or the fault it stopped at; with `show`, and that parse the one the pushes fed, the view reads
    /// the rest of its output, and the flag says so.
    fn end_parse(&mut self, text: &str, show: bool) -> Result<(Repaired<Vec<u8>>, bool), Error> {
        let src = locate(text.as_bytes()).ok_or_else(|| Error::at(ErrorKind::NoJson, text, 0))?;
        let current = self.parse.take().filter(|p| p.is_from(&src));
        if let (Some(_), Some(e)) = (&current, &self.fault) {
            return Err(e.clone());
        }
        let fed = current.is_some();
        let mut parse = match current {
            Some(p) => p,
            None => SourceParse::new(text, src, &self.options)?,
        };
        let done = parse.feed(text, false)?;
        let shown = show && fed && done && self.show_rest(&parse);
        Ok((repaired(text.as_bytes(), parse), shown))
    }

    /// Lets the view read the rest of a finished parse's output, all of which is settled: no input is
    /// left that could rewind it.
    fn show_rest(&mut self, parse: &SourceParse) -> bool {
        let Some(p) = parse.parser() else {
            return false;
        };
        let out = p.output();
        self.view.update(
            out,
            out.len(),
            p.root_start(),
            p.wrapped(),
            p.take_low_water(),
            &mut self.changes,
        );
        true
    }

    /// Locates the JSON in the text so far; starts over if it moved.
    fn relocate(&mut self) {
        self.located_len = self.text.len();
        let Some(src) = locate_in(self.text.as_bytes(), &mut self.reasoning) else {
            if self.parse.take().is_some() || self.fault.take().is_some() {
                self.start_over();
            }
            return;
        };
        self.settled = src.settled;
        self.in_prose = src.fence.is_none() && !src.repairs.is_empty();
        if src.fence.is_none() && may_become_control_token(self.text.as_bytes(), src.start) {
            // `[TOOL_CA…` may still be a control token, which is never the value: no value until
            // the next bytes decide, so that the value never changes type.
            if self.parse.is_some() || self.fault.is_some() {
                self.start_over();
            }
            return;
        }
        if self.parse.as_ref().is_some_and(|p| p.is_from(&src)) {
            return;
        }
        self.start_over();
        match SourceParse::new(&self.text, src, &self.options) {
            Ok(p) => self.parse = Some(p),
            Err(e) => self.fault = Some(e),
        }
    }

    /// Forgets the parse and the value shown. Out of line: three sites in `relocate`.
    #[inline(never)]
    fn start_over(&mut self) {
        self.parse = None;
        self.fault = None;
        self.done = false;
        self.stuck = (0, 0);
        self.view.reset(&mut self.changes);
    }

    /// Parses what arrived, unless the parser waits on a long look-ahead that too little new text
    /// could decide (retrying it only after the text has grown by half its length keeps the total
    /// linear).
    fn feed(&mut self) {
        if self.done || self.fault.is_some() {
            return;
        }
        let Some(parse) = self.parse.as_mut() else {
            return;
        };
        let (pos, given) = self.stuck;
        let span = given.saturating_sub(pos);
        let (_, now) = parse.progress();
        if span >= RETRY_ALWAYS_BELOW && now.saturating_sub(given) * 2 < span {
            return;
        }
        match parse.feed(&self.text, true) {
            Ok(done) => self.done = done,
            Err(e) => self.fault = Some(e),
        }
        self.stuck = parse.progress();
        if let Some(p) = parse.parser() {
            self.view.update(
                p.output(),
                p.settled_len(),
                p.root_start(),
                p.wrapped(),
                p.take_low_water(),
                &mut self.changes,
            );
        }
    }

    /// Whether the source the parse runs on came from `src` (for tests).
    #[cfg(test)]
    fn source(&self) -> Option<(usize, Option<u8>)> {
        self.parse.as_ref().map(SourceParse::source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_a_repair_rewrote_is_not_placed() {
        // A raw line feed, written `\n`: not in the chunks as it is in the changes.
        let mut p = PartialJson::new(&crate::RepairOptions::default());
        // The string is open (a quote alone could still begin `"""`).
        p.push("{\"k\": \"a").unwrap();
        let mut place = |chunk: &str| {
            p.push_recorded(chunk, |_, _, _, parser| {
                let mut out = Vec::new();
                (parser.placed(&mut out), out.len())
            })
            .unwrap()
        };
        // The same run without it is placed: one append, four bytes.
        assert_eq!(place("aaaaa aaaaa"), (1, 4));
        assert_eq!(place("aaaaa\naaaaa"), (0, 0));
        // Longer than `PLACED_MAX`: written out.
        assert_eq!(place(&"b".repeat(PLACED_MAX + 1)), (0, 0));
    }

    #[test]
    fn a_text_that_may_be_one_json_string_shows_nothing_until_it_cannot_be() {
        // The whole text is a JSON string: its value is the string, never the array inside it.
        let mut p = PartialJson::new(&Options::default());
        for c in [" \"[1,", " 2]", "\\\"", "\"  \n"] {
            assert!(p.push(c).unwrap().changes.is_empty(), "{c:?}");
        }
        assert_eq!(p.finish().unwrap().json, "\"[1, 2]\\\"\"");
        // Text after the closing quote: not one string, so the JSON inside is the value after all.
        let mut p = PartialJson::new(&Options::default());
        assert!(p.push("\"{\\\"a\\\": 1}\"").unwrap().changes.is_empty());
        assert!(!p.push(" and {\"b\": 2}").unwrap().changes.is_empty());
        // A raw line break cannot be inside a JSON string.
        let mut p = PartialJson::new(&Options::default());
        assert!(!p.push("\"\n{\"a\": 1}").unwrap().changes.is_empty());
    }

    #[test]
    fn a_push_that_only_appends_says_where_its_text_lies_in_the_chunks() {
        let mut p = PartialJson::new(&Options::default());
        let mut quick = |chunk: &str| p.push_recorded(chunk, |_, _, q, _| q).unwrap();
        // An object, a key and a string: not one append.
        assert_eq!(quick("{\"a\": \"x"), None);
        assert_eq!(
            quick("yz"),
            Some(Quick::Append {
                held: 0,
                start: 0,
                len: 2
            })
        );
        // Spaces at the end of a string in an object may be followed by its closer: shown later.
        assert_eq!(
            quick("é "),
            Some(Quick::Append {
                held: 0,
                start: 0,
                len: 1
            })
        );
        assert_eq!(
            quick("😀w"),
            Some(Quick::Append {
                held: 1,
                start: 0,
                len: 3
            })
        );
        assert_eq!(quick("  "), Some(Quick::Nothing));
        // Held longer than a chunk: the text is not in the last two.
        assert_eq!(quick(" "), Some(Quick::Nothing));
        assert_eq!(quick("v"), None);
        // An escape arrives whole, and the text with it.
        assert_eq!(quick("\\"), Some(Quick::Nothing));
        assert_eq!(
            quick("n."),
            Some(Quick::Append {
                held: 1,
                start: 0,
                len: 2
            })
        );
        // U+FFFD may stand for a lone surrogate in the host's chunk: sent as changes.
        assert_eq!(quick("\u{fffd}"), None);
        assert_eq!(quick("\"}"), None);
    }

    #[test]
    fn a_closing_bracket_tag_after_a_draft_moves_the_source() {
        // Magistral-style reasoning: no opening tag, the draft's JSON before `[/THINK]` is not the value.
        for tail in ["[/THINK]", "x [/THINK]\n", "[/THINK] ok"] {
            let mut p = PartialJson::new(&Options::default());
            assert!(!p.push("{\"draft\": [1, 2]} ").unwrap().changes.is_empty());
            let u = p.push(tail).unwrap();
            assert_eq!(
                u.changes.iter().next(),
                Some(super::super::view::Change::Reset),
                "{tail}"
            );
            p.push("{\"final\": 2}").unwrap();
            assert_eq!(p.finish().unwrap().json, r#"{"final":2}"#);
        }
    }

    #[test]
    fn a_fence_after_prose_moves_the_source() {
        let mut p = PartialJson::new(&Options::default());
        p.push("I think {\"a\": 1} works, but ").unwrap();
        assert_eq!(p.source().map(|s| s.0), Some(8));
        let u = p.push("here it is:\n```json\n{\"b\": 2}\n```").unwrap();
        assert_eq!(
            u.changes.iter().next(),
            Some(super::super::view::Change::Reset)
        );
        assert_eq!(p.finish().unwrap().json, r#"{"b":2}"#);
    }
}
