//! One located source, parsed as its text grows.
//!
//! [`SourceParse`] is the part of the pipeline after locating: it checks the locator's repairs against
//! the options, unescapes JSON that arrived escaped without outer quotes, and runs the tolerant parser.
//! The one-shot [`super::repair`] feeds it the whole text once; a stream feeds it each longer prefix
//! with `more` set, and the same code therefore gives the same result for every chunking.

use super::chars::{fullwidth_punct, is_word_byte};
use super::locate::Source;
use super::parser::{Fault, Output, Parser, Stop};
use super::Options;
use crate::error::{Error, ErrorKind};
use crate::prelude::*;
use crate::record::{Repair, RepairKind};

/// How a source was escaped (see [`is_escaped`]).
#[derive(Clone, Copy, PartialEq)]
enum Escape {
    /// With backslashes, quotes included: `{\"a\": 1}`.
    Backslashes,
    /// Quotes doubled as CSV writes them; a backslash is the JSON's own.
    Doubled,
    /// Only the whitespace, quotes left as they are: `{\n  "a": 1\n}`. The JSON's own escapes
    /// (`\"`, `\\`) stay, and a `\n` in a string is a line break either way.
    Spaces,
}

/// JSON that arrived escaped, with backslashes (`{\"a\": 1}`), with its quotes doubled as CSV writes
/// them (`{""a"": 1}`), or with its line breaks and tabs only: the source unescaped once, with a map from
/// each byte of the plain text back to its offset in the original.
struct Escaped {
    plain: Vec<u8>,
    map: Vec<usize>,
    /// The next original byte to unescape.
    next: usize,
    how: Escape,
    /// With [`Escape::Spaces`], whether the unescaping is inside a string: there `\n` stays.
    in_string: bool,
}

impl Escaped {
    /// Unescapes the original bytes that have arrived. With `more`, a backslash (a quote, when quotes are
    /// doubled) at the very end waits for the byte after it.
    fn feed(&mut self, s: &[u8], more: bool) {
        let mut i = self.next;
        while i < s.len() {
            let (doubled, spaces) = (self.how == Escape::Doubled, self.how == Escape::Spaces);
            let (b, len) = match (s[i], s.get(i + 1)) {
                (b'"', next) if doubled => match next {
                    None if more => break,
                    Some(b'"') => (b'"', 2),
                    _ => (b'"', 1),
                },
                (b, _) if doubled => (b, 1),
                (b'\\', None) if more => break,
                (b'"', _) if spaces => {
                    self.in_string = !self.in_string;
                    (b'"', 1)
                }
                // The JSON's own escapes, kept whole: `\\n` is not a backslash and a line break, and a
                // string's `\n` is its own too.
                (b'\\', Some(&c))
                    if spaces && (self.in_string || !matches!(c, b'n' | b'r' | b't')) =>
                {
                    self.plain.push(b'\\');
                    self.map.push(i);
                    i += 1;
                    (c, 1)
                }
                (b'\\', Some(b'"')) => (b'"', 2),
                (b'\\', Some(b'\\')) => (b'\\', 2),
                (b'\\', Some(b'/')) => (b'/', 2),
                (b'\\', Some(b'n')) => (b'\n', 2),
                (b'\\', Some(b'r')) => (b'\r', 2),
                (b'\\', Some(b't')) => (b'\t', 2),
                (b, _) => (b, 1),
            };
            self.plain.push(b);
            self.map.push(i);
            i += len;
        }
        self.next = i;
    }

    /// The original offset of plain offset `o` (the end of the text for offsets past the last byte).
    fn original(&self, o: usize, text_len: usize) -> usize {
        self.map.get(o).copied().unwrap_or(text_len)
    }
}

/// Whether the source is JSON escaped without outer quotes, and how: brackets, whitespace and escaped
/// whitespace (`\n` as two characters) may come before the first `\"`, or the first key or string is in
/// doubled quotes, as CSV writes a cell's (`{""name"": ""Ada""}`; see [`doubled_at`]), or escaped
/// whitespace comes before the first token (`{\n  "a": 1}`: no JSON starts so). `None` while a stream has
/// not yet brought the bytes that decide; `*at` is then where to look again (so a stream of a million
/// brackets is looked at once, not once per chunk). The source starts at `from`.
fn is_escaped(s: &[u8], from: usize, at: &mut usize, more: bool) -> Option<Option<Escape>> {
    let i = at;
    loop {
        match (s.get(*i), s.get(*i + 1)) {
            (Some(b'{' | b'[' | b' ' | b'\n' | b'\r' | b'\t'), _) => *i += 1,
            (Some(b'\\'), Some(b'n' | b'r' | b't')) => *i += 2,
            (Some(b'\\' | b'"'), None) | (None, _) if more => return None,
            _ => break,
        }
    }
    Some(match (s.get(*i), s.get(*i + 1)) {
        (Some(b'\\'), Some(b'"')) => Some(Escape::Backslashes),
        (Some(b'"'), Some(b'"')) if doubled_at(s, *i + 2, more)? => Some(Escape::Doubled),
        // The look passed over brackets, whitespace and escaped whitespace only: a backslash among
        // them was escaped whitespace.
        (Some(_), _) if s[from..*i].contains(&b'\\') => Some(Escape::Spaces),
        _ => None,
    })
}

/// How far [`doubled_at`] looks for the doubled closing quote.
const DOUBLED_LOOK: usize = 256;

/// Whether the key or string whose doubled opening quote ends at `from` is closed by a doubled quote:
/// a word's first byte at `from`, and the next quote within [`DOUBLED_LOOK`] bytes doubled. An empty key
/// or string (`{"": 1}`, `["", "a",]`) is not one, nor is a quote that nothing closes (`[""，null]`), nor
/// an empty one before full-width punctuation (`[""，[""]]`: `，` is a comma, not a word).
/// `None` while a stream has not yet brought the bytes that decide.
#[cfg_attr(shipped, optimize(size))]
fn doubled_at(s: &[u8], from: usize, more: bool) -> Option<bool> {
    let end = s.len().min(from + DOUBLED_LOOK);
    let Some(&first) = s.get(from) else {
        return (!more).then_some(false);
    };
    // A character never spans two chunks: a full-width comma or colon has arrived whole.
    let word = is_word_byte(first) && fullwidth_punct(s, from).is_none();
    let quote = s[from..end].iter().position(|&b| b == b'"');
    match quote.map(|k| s.get(from + k + 1)) {
        Some(Some(&b)) => Some(word && b == b'"'),
        // A quote at the end of what has come, or no quote yet in less than the look.
        Some(None) | None if more && end == s.len() && word => None,
        _ => Some(false),
    }
}

/// The parse of one located source.
pub(crate) struct SourceParse {
    start: usize,
    fence: Option<u8>,
    jsonp: bool,
    /// The locator found the root object's `{` missing (see `locate::braceless_at`).
    braceless: bool,
    /// Repairs made while locating (and the unescaping), before the parser's own.
    repairs: Vec<Repair>,
    /// `None` until a stream has shown whether the source is escaped; then the escaped form, if it is.
    escaped: Option<Option<Escaped>>,
    /// Where the look for escaping continues while it is undecided.
    escape_probe: usize,
    parser: Option<Parser<'static>>,
    options: Options,
    /// The text is Latin-1, one byte per character (see [`super::repair_latin1`]).
    latin1: bool,
}

impl SourceParse {
    /// Starts on `src`.
    ///
    /// # Errors
    /// `RepairForbidden` when the options forbid a repair the locator made.
    pub fn new(text: &str, src: Source, options: &Options) -> Result<SourceParse, Error> {
        SourceParse::of_bytes(src, options, false).map_err(|f| fault_error(text, f))
    }

    /// [`Self::new`] for a text of UTF-8 bytes, or of Latin-1 bytes with `latin1`; the error as a
    /// [`Fault`].
    pub fn of_bytes(src: Source, options: &Options, latin1: bool) -> Result<SourceParse, Fault> {
        if let Some(r) = src.repairs.iter().find(|r| options.forbid.contains(r.kind)) {
            return Err((ErrorKind::RepairForbidden { repair: r.kind }, r.offset));
        }
        Ok(SourceParse {
            start: src.start,
            fence: src.fence,
            jsonp: src.repairs.iter().any(|r| r.kind == RepairKind::Jsonp),
            // The locator's last repair: nothing is removed after a braceless source's start.
            braceless: src
                .repairs
                .last()
                .is_some_and(|r| r.kind == RepairKind::MissingBracket),
            repairs: src.repairs,
            escaped: None,
            escape_probe: src.start,
            parser: None,
            options: options.clone(),
            latin1,
        })
    }

    /// Where the source starts and the fence that ends it: what identifies it among the candidates.
    pub fn source(&self) -> (usize, Option<u8>) {
        (self.start, self.fence)
    }

    /// Parses what `text` (the same text as before, longer) adds. With `more`, the parse stops where it
    /// needs input that has not arrived: `Ok(false)`. `Ok(true)` once the value is complete.
    ///
    /// # Errors
    /// `DepthLimitExceeded`, `RepairForbidden`, and `NoJson` for a source that holds no value.
    pub fn feed(&mut self, text: &str, more: bool) -> Result<bool, Error> {
        self.feed_bytes(text.as_bytes(), more)
            .map_err(|f| fault_error(text, f))
    }

    /// [`Self::feed`] on the text's bytes; the error as a [`Fault`] at an offset of `s`.
    pub fn feed_bytes(&mut self, s: &[u8], more: bool) -> Result<bool, Fault> {
        if self.escaped.is_none() {
            let Some(how) = is_escaped(s, self.start, &mut self.escape_probe, more) else {
                return Ok(false);
            };
            if how.is_some() {
                // repair: JSON escaped without outer quotes
                if self.options.forbid.contains(RepairKind::EscapedJson) {
                    let repair = RepairKind::EscapedJson;
                    return Err((ErrorKind::RepairForbidden { repair }, self.start));
                }
                self.repairs.push(Repair {
                    kind: RepairKind::EscapedJson,
                    offset: self.start,
                });
            }
            // A braceless source is read as a copy after the `{` it lacks, which maps to where the
            // source starts; the copy is made as for escaped whitespace, its strings' escapes kept.
            self.escaped = Some((how.is_some() || self.braceless).then(|| {
                let (mut plain, mut map) = (Vec::new(), Vec::new());
                if self.braceless {
                    plain.push(b'{');
                    map.push(self.start);
                }
                Escaped {
                    plain,
                    map,
                    next: self.start,
                    how: how.unwrap_or(Escape::Spaces),
                    in_string: false,
                }
            }));
        }
        let (bytes, start) = match self.escaped.as_mut().and_then(Option::as_mut) {
            Some(e) => {
                e.feed(s, more);
                (&e.plain[..], 0)
            }
            None => (s, self.start),
        };
        let mut parser = match self.parser.take() {
            Some(p) => p.resume(bytes, more),
            None => {
                let mut p = Parser::new(
                    bytes,
                    start,
                    self.fence,
                    self.options.forbid,
                    self.options.max_depth,
                );
                if self.jsonp {
                    p.expect_jsonp_tail();
                }
                if self.latin1 {
                    p.read_latin1();
                }
                if !self.options.report {
                    p.first_repair_only();
                }
                p.resume(bytes, more)
            }
        };
        let result = parser.advance();
        let fault = parser.fault();
        self.parser = Some(parser.detach());
        match (result, fault) {
            (Ok(()), _) => Ok(true),
            (Err(Stop), Some((kind, offset))) => Err((kind, self.original(offset, s.len()))),
            (Err(Stop), None) => Ok(false),
        }
    }

    /// The parser, once the escaping is known.
    pub fn parser(&self) -> Option<&Parser<'static>> {
        self.parser.as_ref()
    }

    /// Whether this parse was started from `src` (same start, fence and locator repairs).
    pub fn is_from(&self, src: &Source) -> bool {
        self.start == src.start
            && self.fence == src.fence
            && self.repairs[..src.repairs.len().min(self.repairs.len())] == src.repairs[..]
    }

    /// How far the parser has read and how many bytes it was given (of the unescaped text, for escaped
    /// JSON): a stream waits for more input before retrying a long look-ahead.
    pub fn progress(&self) -> (usize, usize) {
        let given = match self.escaped.as_ref().and_then(Option::as_ref) {
            Some(e) => e.plain.len(),
            None => self.parser.as_ref().map_or(self.start, |p| p.given()),
        };
        (
            self.parser.as_ref().map_or(self.start, |p| p.position()),
            given,
        )
    }

    fn original(&self, offset: usize, text_len: usize) -> usize {
        match self.escaped.as_ref().and_then(Option::as_ref) {
            Some(e) => e.original(offset, text_len),
            None => offset,
        }
    }

    /// The result, after `feed` returned `Ok(true)` without `more`: repairs in original offsets, the
    /// JSON text, and where the value ended.
    #[cfg_attr(shipped, optimize(size))]
    pub fn into_output(mut self, text: &[u8]) -> Output {
        let Some(parser) = self.parser.take() else {
            return Output {
                json: Vec::new(),
                repairs: self.repairs,
                end: self.start,
            };
        };
        let mut out = parser.into_output();
        if let Some(e) = self.escaped.as_ref().and_then(Option::as_ref) {
            out.repairs
                .iter_mut()
                .for_each(|r| r.offset = e.original(r.offset, text.len()));
            out.end = e.original(out.end, text.len());
        }
        let mut repairs = self.repairs;
        repairs.extend(out.repairs);
        Output {
            json: out.json,
            repairs,
            end: out.end,
        }
    }
}

/// `fault` as an error at its position in `text`.
#[cold]
pub(crate) fn fault_error(text: &str, (kind, offset): Fault) -> Error {
    Error::at(kind, text, offset)
}
