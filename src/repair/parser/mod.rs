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
//!
//! The parser is its [`Input`] (the bytes, where they end, whether more may follow: every byte past what
//! a step has read is asked of it) and its `Progress` (everything decided so far, owned, so it carries
//! over to a longer prefix as it is). The steps are grouped by what they read: `value` (values,
//! containers, keys), `after` (what follows a value, the end of the input), `strings`, `numbers`
//! (numbers, keywords, bare words) and `space` (whitespace, comments, chat tokens); `output` writes
//! JSON text, and `fast` is the fast lane for complete input.

use super::chars::*;
use crate::error::ErrorKind;
use crate::prelude::*;
use crate::record::{Repair, RepairKind, RepairSet};
use core::cell::Cell;

mod after;
mod fast;
mod input;
mod numbers;
mod output;
mod space;
mod strings;
mod value;

use input::Input;
use numbers::KEYWORDS;
pub(crate) use output::json_string;
use output::{char_len, copy_from, escape_into, push_bytes, push_control};
use strings::{SPECIAL_DOUBLE, SPECIAL_SINGLE};

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

impl State {
    /// Where the next item of a container starts: a key in an object (`in_object`), a value elsewhere.
    /// The one rule for the general steps and the fast lane.
    #[inline(always)]
    fn item(in_object: bool) -> State {
        if in_object {
            State::Key
        } else {
            State::Value
        }
    }
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
    /// A Python tuple, `(1, 2)`: written as an array, closed by `)`.
    Tuple,
    /// A Python set, `{1, 2}`: written as an array, closed by `}`.
    Set,
}

/// One open container.
#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: Container,
    /// Items written so far.
    count: u32,
    /// Output length before the current item (and its comma), for dropping it.
    item_out: usize,
    /// The bracket that closes it: [`closer_of`] its kind wherever a frame is made or its kind changes,
    /// except `)` for an object written as a call with keyword arguments (`Point(x=1, y=2)`).
    closer: u8,
}

/// How far back (bytes of output) the scalar items of a row written without its `[` may run.
const ROW_REACH: usize = 512;

/// How many open containers a closer of the wrong kind looks through for one of its kind.
const CLOSER_REACH: usize = 64;

/// How far a set's first string item may run (bytes) for `{` to be read as a Python set.
const SET_REACH: usize = 256;

impl Frame {
    /// Whether the bracket `c` is this container's own closer.
    fn closed_by(&self, c: u8) -> bool {
        self.closer == c
    }
}

/// The bracket that closes a container of `kind` as it is usually written.
fn closer_of(kind: Container) -> u8 {
    match kind {
        Container::Object | Container::Set => b'}',
        Container::Array | Container::Wrapper => b']',
        Container::Tuple => b')',
        Container::Call => 0,
    }
}

/// Progress through a string, kept between steps so a stream can stop inside one.
#[derive(Clone, Copy, Debug)]
struct StrState {
    ctx: Ctx,
    style: QuoteStyle,
    noted_control: bool,
    noted_quote: bool,
    /// For a missing closing quote: output length and input offset at a `, "` seen inside this string
    /// (spaces and line breaks may stand between), and how many inner quotes had been seen then.
    comma_quote: Option<CommaQuote>,
    quotes_seen: usize,
    /// Brackets opened inside the content just before a quote taken as content (`"see {"b": …`): a
    /// quote followed by a closer may close one of them rather than the string.
    inner_open: u32,
    /// For a fenced source: output length and input offset where the closing fence begins a line inside
    /// this string.
    fence_cut: Option<(usize, usize)>,
}

/// A `, "` inside a value string, where the string may have been meant to end (see [`StrState`]).
#[derive(Clone, Copy, Debug)]
struct CommaQuote {
    out_len: usize,
    comma_at: usize,
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
    inner_open: 0,
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

/// Everything the parser has decided: owned, so that it carries over from one prefix of a stream to a
/// longer one unchanged ([`Parser::resume`]).
struct Progress {
    pos: usize,
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
    /// The depth of an object the parser opened around a key written as an array's item, which the
    /// array's `]` closes too; 0 when there is none.
    implicit: usize,
    /// The locator found a JSONP callback, so a trailing `);` is expected.
    jsonp: bool,
    /// Whether a typographic quote may close a straight-quoted string (off when `curly_quotes` is
    /// forbidden, so that the strict pass accepts exactly what `JSON.parse` accepts).
    curly_closes: bool,
    /// Whether the keys are written loosely: a key was unquoted (`unquoted_key`) or its colon written `=`
    /// or `=>` (`after_key`). From then on a look-ahead for a key (`key_ahead`) reads `=` after one as its
    /// colon, and words with single spaces between them as one key (`Favorite Color: "blue"`).
    loose_keys: bool,
    /// The shortest the output has been cut back to since a reader last asked ([`Parser::take_low_water`]);
    /// `usize::MAX` when it has not been cut.
    low_water: Cell<usize>,
    /// Whether complete input is read through the fast lane (off only to test it against the general steps).
    fast: bool,
    /// Whether every repair is kept, or only the first (see [`Parser::first_repair_only`]).
    every_repair: bool,
    /// The error the parse stopped with, if it did.
    fault: Option<Fault>,
}

/// The parser: its input, and what it has decided so far.
pub(crate) struct Parser<'a> {
    input: Input<'a>,
    st: Progress,
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
            input: Input::new(s, fence),
            st: Progress {
                pos: start,
                wrapped: false,
                out: Vec::with_capacity(s.len().saturating_sub(start) + 16),
                repairs: Vec::with_capacity(16),
                stack: Vec::with_capacity(16),
                state: State::Value,
                str: NO_STR,
                forbid,
                max_depth,
                pending_comma: None,
                tentative: None,
                root_out: 0,
                root_is_object: false,
                value_end: start,
                implicit: 0,
                jsonp: false,
                curly_closes: !forbid.contains(RepairKind::CurlyQuotes),
                loose_keys: false,
                low_water: Cell::new(usize::MAX),
                fast: true,
                every_repair: true,
                fault: None,
            },
        }
    }

    /// Tells the parser that the text is Latin-1, one byte per character, with no byte in
    /// 0x80..=0xBF. No byte sequence the parser recognises beyond ASCII (typographic quotes, `…`,
    /// invisible characters, the no-break space) can then occur, and every other byte reads as it
    /// reads in UTF-8 (as a character beyond ASCII); what differs is the length of a character, which
    /// the parser takes into account where it counts.
    pub fn read_latin1(&mut self) {
        self.input.read_latin1();
    }

    /// Keeps only the first repair in the output's `repairs`: all that tells whether the input was
    /// repaired and how its repair began (see `settles_invalid`). Every repair is still checked against
    /// the forbidden ones, and the JSON is the same. The first one stays the first: a repair taken back
    /// (`take_back_repairs`) takes every later one with it, as they lie at or after its offset.
    pub fn first_repair_only(&mut self) {
        self.st.every_repair = false;
    }

    /// Tells the parser that the locator removed a JSONP callback before the value.
    pub fn expect_jsonp_tail(&mut self) {
        self.st.jsonp = true;
    }

    /// Parses one value and returns the strict JSON text.
    ///
    /// # Errors
    /// `NoJson` when the source holds no value, `DepthLimitExceeded`, and `RepairForbidden` for the first
    /// repair the forbid set names.
    pub fn run(mut self) -> Result<Output, Fault> {
        match self.advance() {
            Ok(()) => Ok(self.into_output()),
            Err(Stop) => Err(self.st.fault.expect("without `more` a stop is a fault")),
        }
    }

    /// The same parser over `s`, a longer prefix of the same text (or the whole text, without `more`).
    /// The state carries over; a source already ended by a closing fence keeps its end.
    pub fn resume<'b>(self, s: &'b [u8], more: bool) -> Parser<'b> {
        Parser {
            input: self.input.resume(s, more),
            st: self.st,
        }
    }

    /// Runs steps until the value is complete, or (with `more`) until a step needs more input.
    pub fn advance(&mut self) -> Step {
        loop {
            if self.st.fast
                && !self.input.more()
                && matches!(self.st.state, State::Value | State::Key | State::AfterValue)
            {
                self.fast_lane()?;
            }
            // Strings read their own whitespace, and see the end of the input themselves.
            match self.st.state {
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
            if self.st.state == State::Done {
                return Ok(());
            }
            if !self.input.seen().has(self.st.pos)? {
                return self.finish_at_end();
            }
            match self.st.state {
                State::Value => self.value()?,
                State::Str | State::AfterString => unreachable!("handled above"),
                State::AfterValue if self.st.stack.is_empty() => self.after_root()?,
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
            json: self.st.out,
            repairs: self.st.repairs,
            end: self.st.value_end,
        }
    }

    /// Where the parser stands in its input.
    pub fn position(&self) -> usize {
        self.st.pos
    }

    /// The end of the input it was last given.
    pub fn given(&self) -> usize {
        self.input.end()
    }

    /// The output written so far.
    pub fn output(&self) -> &[u8] {
        &self.st.out
    }

    /// How much of the output is settled: no later step can rewind below this length. Past it lie only
    /// a member or call whose value has not started, the argument of a call still open (a second one makes
    /// the value an array), string content that a later quote may cut off, the
    /// closing quote of a string that `+` may continue, the closing brace of a root object that a
    /// following `, "key":` would reopen, and the closing bracket of a member's array that a following
    /// `, [` would.
    pub fn settled_len(&self) -> usize {
        let mut len = self.st.out.len();
        if let Some(t) = self.st.tentative {
            len = len.min(t);
        }
        // A call's value is its argument or the array of its arguments: undecided until it closes.
        if let Some(f) = self.st.stack.last().filter(|f| f.kind == Container::Call) {
            len = len.min(f.item_out);
        }
        match self.st.state {
            State::Str => {
                let st = &self.st.str;
                if st.ctx == Ctx::Value {
                    // Content that ends in `,` and spaces or line breaks may be cut there by the next quote.
                    len = len.min(self.st.out.len() - strings::held_tail(&self.st.out, b','));
                }
                if let Some(cq) = st.comma_quote {
                    if cq.seen == st.quotes_seen {
                        len = len.min(cq.out_len);
                    }
                }
                if let Some((out_len, _)) = st.fence_cut {
                    len = len.min(out_len);
                }
                // Closers and spaces that the end of the input would read as the containers' closers.
                if st.ctx == Ctx::Value && !self.st.stack.is_empty() {
                    len = len.min(self.st.out.len() - strings::held_tail(&self.st.out, b'}'));
                }
            }
            State::AfterString => len = len.min(self.st.out.len().saturating_sub(1)),
            State::AfterValue if self.st.stack.is_empty() && self.st.root_is_object => {
                len = len.min(self.st.out.len().saturating_sub(1))
            }
            // A member's array, which a `[` where the next key is expected would reopen.
            State::AfterValue | State::Key
                if self.top() == Some(Container::Object) && self.st.out.last() == Some(&b']') =>
            {
                len = len.min(self.st.out.len() - 1)
            }
            _ => {}
        }
        len
    }

    /// Rewinds the output to `len` bytes, noting how far back for a reader of the output that may have read
    /// past it ([`Parser::take_low_water`]).
    fn cut_output(&mut self, len: usize) {
        self.st.out.truncate(len);
        self.st.low_water.set(self.st.low_water.get().min(len));
    }

    /// Inserts `b` into the output at `at`, noting it as [`Parser::cut_output`] does: a reader that showed
    /// what stood there reads the output again from `at`.
    #[inline(never)]
    fn insert_output(&mut self, at: usize, b: u8) {
        let out = &mut self.st.out;
        let len = out.len();
        out.push(b);
        out.copy_within(at..len, at + 1);
        out[at] = b;
        self.st.low_water.set(self.st.low_water.get().min(at));
    }

    /// The shortest the output has been cut back to since the last call, or `usize::MAX`: a reader that has
    /// read further than that must read again from there (settled output is never cut, so this is a net
    /// under that promise, not a path a correct parse takes).
    pub fn take_low_water(&self) -> usize {
        self.st.low_water.replace(usize::MAX)
    }

    /// Whether the root value has been read to its closing bracket (and nothing has reopened it).
    pub fn root_closed(&self) -> bool {
        self.st.stack.is_empty() && matches!(self.st.state, State::AfterValue | State::Done)
    }

    /// The output offset where the root value starts (where comma-separated values get their `[`).
    pub fn root_start(&self) -> usize {
        self.st.root_out
    }

    /// Whether comma-separated top-level values were wrapped in an array.
    pub fn wrapped(&self) -> bool {
        self.st.wrapped
    }

    /// The same parser holding no input, to be kept between the chunks of a stream.
    pub fn detach(self) -> Parser<'static> {
        Parser {
            input: self.input.detach(),
            st: self.st,
        }
    }

    // The bookkeeping every step shares: faults, repairs, items and containers.

    /// Keeps `kind` at `offset` as the error the parse stops with.
    #[cold]
    fn fail(&mut self, kind: ErrorKind, offset: usize) -> Stop {
        self.st.fault = Some((kind, offset));
        Stop
    }

    /// The error a step stopped with; `None` when it stopped to wait for more input.
    pub fn fault(&self) -> Option<Fault> {
        self.st.fault
    }

    /// Records a repair, or fails when the options forbid it.
    #[inline(never)]
    fn record(&mut self, kind: RepairKind, offset: usize) -> Step {
        if self.st.forbid.contains(kind) {
            return Err(self.fail(ErrorKind::RepairForbidden { repair: kind }, offset));
        }
        self.keep_repair(kind, offset);
        Ok(())
    }

    /// Keeps a repair the options allow: every one, or only the first (see
    /// [`Parser::first_repair_only`]).
    #[inline(always)]
    fn keep_repair(&mut self, kind: RepairKind, offset: usize) {
        if self.st.every_repair || self.st.repairs.is_empty() {
            self.st.repairs.push(Repair { kind, offset });
        }
    }

    fn top(&self) -> Option<Container> {
        self.st.stack.last().map(|f| f.kind)
    }

    /// Whether the bracket `c` closes the innermost container.
    fn closes_top(&self, c: u8) -> bool {
        self.st.stack.last().is_some_and(|f| f.closed_by(c))
    }

    /// Whether `)` ends the innermost container: a call, a tuple, an object written as a call.
    fn in_parens(&self) -> bool {
        self.top() == Some(Container::Call) || self.closes_top(b')')
    }

    /// The index in the stack of the nearest open container that the bracket `c` closes, among the
    /// innermost [`CLOSER_REACH`] (a bound that keeps closers of the wrong kind linear in time on any
    /// depth).
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn open_closed_by(&self, c: u8) -> Option<usize> {
        let stack = &self.st.stack;
        let from = stack.len().saturating_sub(CLOSER_REACH);
        let mut i = stack.len();
        while i > from {
            i -= 1;
            if stack[i].closed_by(c) {
                return Some(i);
            }
        }
        None
    }

    /// Starts an item in the current array or object: remembers where it began and writes its comma.
    fn begin_item(&mut self) {
        if let Some(f) = self.st.stack.last_mut() {
            f.item_out = self.st.out.len();
            if f.count > 0 {
                self.st.out.push(b',');
            }
            if f.kind == Container::Object {
                // A member may be dropped until its value starts.
                self.st.tentative = Some(f.item_out);
            }
        }
        self.st.pending_comma = None;
    }

    /// Starts a value: in arrays it is a new item; in objects the member began at its key.
    fn begin_value(&mut self) {
        match self.top() {
            Some(Container::Object | Container::Call) => {}
            Some(_) => self.begin_item(),
            None => self.st.root_out = self.st.out.len(),
        }
        self.st.pending_comma = None;
        self.st.tentative = None;
    }

    /// A value is complete.
    fn value_done(&mut self) {
        self.st.value_end = self.st.pos;
        if let Some(f) = self.st.stack.last_mut() {
            f.count += 1;
        }
        self.st.state = State::AfterValue;
    }

    /// Closes the innermost wrapper call; a call whose argument produced no value drops its item.
    fn close_call(&mut self) -> Step {
        let frame = self.st.stack.pop().expect("an open call");
        if frame.count > 0 {
            self.value_done();
            return Ok(());
        }
        if self.st.stack.is_empty() {
            return Err(self.fail(ErrorKind::NoJson, self.st.pos));
        }
        // repair: `ObjectId()`, `cb(...)`: no argument, so no value
        self.drop_item(RepairKind::MissingValue, self.st.pos)
    }

    /// Drops the current item (a member with no value, a placeholder) and records why. Out of line: a
    /// repair's path, from a dozen sites.
    #[inline(never)]
    fn drop_item(&mut self, kind: RepairKind, offset: usize) -> Step {
        self.record(kind, offset)?;
        if let Some(f) = self.st.stack.last() {
            self.cut_output(f.item_out);
        }
        self.st.tentative = None;
        self.st.state = State::AfterValue;
        Ok(())
    }

    fn push_frame(&mut self, kind: Container) -> Step {
        if self.st.stack.len() >= self.st.max_depth {
            let limit = self.st.max_depth;
            return Err(self.fail(ErrorKind::DepthLimitExceeded { limit }, self.st.pos));
        }
        self.st.stack.push(Frame {
            kind,
            count: 0,
            item_out: self.st.out.len(),
            closer: closer_of(kind),
        });
        Ok(())
    }

    /// Closes the innermost container with the bracket at `pos` (which may be of the wrong kind).
    fn close_with(&mut self, bracket: u8) -> Step {
        if bracket == b']' && self.st.implicit == self.st.stack.len() {
            self.close_record()?;
        }
        let frame = self
            .st
            .stack
            .last()
            .copied()
            .expect("close_with needs an open container");
        if !frame.closed_by(bracket) {
            return self.close_mismatched(frame, bracket);
        }
        self.trailing_comma(frame)?;
        self.st.pos += 1;
        self.pop_and_close();
        Ok(())
    }

    /// repair: `["name": "Ada"]`: the object opened around a key in an array closes with the array.
    #[cold]
    #[inline(never)]
    fn close_record(&mut self) -> Step {
        self.record(RepairKind::MissingBracket, self.st.pos)?;
        self.st.implicit = 0;
        self.pop_and_close();
        Ok(())
    }

    /// A comma read in `frame` that no item followed is a trailing one.
    #[inline(always)]
    fn trailing_comma(&mut self, frame: Frame) -> Step {
        if self.st.pending_comma.is_some() && frame.count > 0 {
            let at = self.st.pending_comma.take().unwrap_or(self.st.pos);
            self.record(RepairKind::TrailingComma, at)?;
        }
        Ok(())
    }

    /// [`Self::close_with`] for a closer of the wrong kind.
    #[inline(never)]
    fn close_mismatched(&mut self, frame: Frame, bracket: u8) -> Step {
        // repair: `[{"a": 1}}, {"b": 2}]`: a closer written twice, where nothing of its kind is open,
        // closes nothing (read as a typo for `]`, it would end the array before its other items).
        let doubled = self.st.pending_comma.is_none() && self.st.out.last() == Some(&bracket);
        if doubled && self.open_closed_by(bracket).is_none() {
            self.record(RepairKind::SuperfluousBracket, self.st.pos)?;
            self.st.pos += 1;
            return Ok(());
        }
        let levels = self.mismatch_levels(bracket)?;
        self.trailing_comma(frame)?;
        if frame.kind == Container::Wrapper {
            // A stray `}` after comma-separated values: it closes nothing.
            self.record(RepairKind::SuperfluousBracket, self.st.pos)?;
            self.st.pos += 1;
            return Ok(());
        }
        self.record(RepairKind::MismatchedBracket, self.st.pos)?;
        self.st.pos += 1;
        for _ in 0..levels {
            self.pop_and_close();
        }
        Ok(())
    }

    /// How many containers a closer of the wrong kind closes: the innermost one, as a typo for its own
    /// closer; or every one up to the nearest of the closer's kind, when only then does what follows
    /// fit (`{"arr": [{"k": "v"], "k2": 1}`: a member follows, and only the outer object takes one).
    #[inline(never)]
    fn mismatch_levels(&self, bracket: u8) -> Result<usize, Stop> {
        let stack = &self.st.stack;
        let Some(j) = self.open_closed_by(bracket) else {
            return Ok(1);
        };
        let (c, _) = self.peek_past_space_and_comments(self.st.pos + 1, true)?;
        if self.input.seen().at(c)? != Some(b',') {
            return Ok(1);
        }
        let (r, _) = self.peek_past_space_and_comments(c + 1, true)?;
        let member = self.input.seen().has(r)? && self.is_key_ahead(r)?;
        // The container each reading leaves open; past the root, values are items of a list.
        let takes_member = |f: Option<&Frame>| f.is_some_and(|f| f.kind == Container::Object);
        let one = takes_member(stack.get(stack.len().wrapping_sub(2)));
        let deep = takes_member(j.checked_sub(1).and_then(|p| stack.get(p)));
        Ok(if one != member && deep == member {
            stack.len() - j
        } else {
            1
        })
    }

    /// Takes the innermost container off the stack. An object opened around an array's item that closes
    /// without the array is an object like any other from then on.
    fn pop_frame(&mut self) -> Frame {
        let frame = self.st.stack.pop().expect("an open container");
        if self.st.stack.len() < self.st.implicit {
            self.st.implicit = 0;
        }
        frame
    }

    /// Pops the innermost container, writes its closer and completes it as a value of its parent.
    #[inline(never)]
    fn pop_and_close(&mut self) {
        let frame = self.pop_frame();
        match frame.kind {
            Container::Object => self.st.out.push(b'}'),
            Container::Call => {}
            _ => self.st.out.push(b']'),
        }
        self.st.pending_comma = None;
        if frame.kind == Container::Wrapper {
            self.st.state = State::Done;
            self.st.value_end = self.st.pos;
        } else {
            self.value_done();
        }
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
