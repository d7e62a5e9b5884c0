//! The response cleaner (SPEC §4): one state machine for whole responses and for streams.
//!
//! Two stages run in sequence, each a small state machine over the text the previous one released:
//!
//! 1. the think stage removes the first reasoning block (or, in only-closing mode, everything through the
//!    first closing tag);
//! 2. the prefix stage strips leading whitespace, the first matching prefix of each of the two custom
//!    lists, the `[Sent … ago]` timestamp and the `Assistant:` prefix (each followed by stripping leading
//!    whitespace again), and holds trailing whitespace back while `trim` is on. In think-only mode it is
//!    skipped.
//!
//! [`clean`] is one [`Cleaner::push`] plus [`Cleaner::finish`], so every chunking gives the same text.
//! Text that can no longer change is released at once. What is held back is bounded: a tag that may be
//! starting at the end of the text, the longest custom prefix, a bounded run while a timestamp may be
//! arriving, the ten bytes of `Assistant:`, and trailing whitespace while trimming. Inside a reasoning
//! block the block itself is held, since it comes back if the stream ends before its closing tag.
//!
//! One file, although long: both stages are steps of one state machine over one buffer, and the
//! hold-back rules above are only checkable side by side (its tests are the last 40 lines).

use super::find::{Found, Tags};
use super::sub;
use crate::prelude::*;
use crate::repair::chars::find_byte3;

/// A pair of tags around a reasoning block, such as `<think>` and `</think>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkTag {
    /// The opening tag.
    pub start: String,
    /// The closing tag.
    pub end: String,
}

impl ThinkTag {
    /// A tag pair from its opening and closing text.
    pub fn new(start: &str, end: &str) -> ThinkTag {
        ThinkTag {
            start: start.to_owned(),
            end: end.to_owned(),
        }
    }
}

/// Options of [`clean`] and [`Cleaner`], with the defaults of SPEC §4.
///
/// # Example
///
/// ```
/// use llm_response_sanitizer::{clean, CleanOptions};
///
/// let options = CleanOptions { remove_assistant_prefix: true, ..CleanOptions::default() };
/// assert_eq!(clean("<think>hmm</think>\n Assistant: Hi!\n", &options), "Hi!");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanOptions {
    /// Reasoning tag pairs, matched ASCII-case-insensitively; the earliest opening tag wins, and at one
    /// position the pair listed first. Default: `<think>`…`</think>`. Pairs with an empty tag are
    /// ignored; an empty list turns reasoning removal off.
    pub think_tags: Vec<ThinkTag>,
    /// How many characters (code points) may come between the end of the leading whitespace and the
    /// opening tag for the block to be removed. Default 100.
    pub opening_tag_grace_period: usize,
    /// Count the leading whitespace toward the grace period too, so the opening tag must start within
    /// the first `opening_tag_grace_period` characters of the text (WilmerAI's rule). Default false.
    pub grace_includes_leading_whitespace: bool,
    /// Remove everything through the first closing tag; without one the result is empty. Default false.
    pub expect_only_closing_think_tag: bool,
    /// In only-closing mode, give a text without a closing tag back unchanged (WilmerAI's rule) instead
    /// of emptying it. Default false.
    pub keep_text_without_closing_tag: bool,
    /// Prefixes to remove: the first one the text starts with (case-sensitively), once. Empty entries
    /// are ignored. Default none.
    pub response_start_text_to_remove: Vec<String>,
    /// A second list, applied after the first (WilmerAI's endpoint-wide list): entries are trimmed of
    /// whitespace before matching, and the first one the text then starts with is removed, once.
    /// Default none.
    pub response_start_text_to_remove_endpoint_wide: Vec<String>,
    /// Remove a leading `[Sent … ago]` timestamp. Default false.
    pub remove_timestamp_prefix: bool,
    /// Remove a leading `Assistant:`. Default false.
    pub remove_assistant_prefix: bool,
    /// Remove whitespace at both ends. Leading whitespace is always removed. Default true.
    pub trim: bool,
    /// Remove reasoning only: the prefix stage is skipped, so whitespace, prefixes and the end of the
    /// text stay as they are. Default false.
    pub think_only: bool,
}

/// The default opening tag.
pub const DEFAULT_START_THINK_TAG: &str = "<think>";
/// The default closing tag.
pub const DEFAULT_END_THINK_TAG: &str = "</think>";
/// The default grace period, in characters.
pub const DEFAULT_OPENING_TAG_GRACE_PERIOD: usize = 100;

impl Default for CleanOptions {
    fn default() -> Self {
        CleanOptions {
            think_tags: vec![ThinkTag::new(
                DEFAULT_START_THINK_TAG,
                DEFAULT_END_THINK_TAG,
            )],
            opening_tag_grace_period: DEFAULT_OPENING_TAG_GRACE_PERIOD,
            grace_includes_leading_whitespace: false,
            expect_only_closing_think_tag: false,
            keep_text_without_closing_tag: false,
            response_start_text_to_remove: Vec::new(),
            response_start_text_to_remove_endpoint_wide: Vec::new(),
            remove_timestamp_prefix: false,
            remove_assistant_prefix: false,
            trim: true,
            think_only: false,
        }
    }
}

/// The result of [`clean_detailed`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    /// The cleaned text, equal to [`clean`]'s.
    pub text: String,
    /// The text of the removed reasoning block, without its tags (in only-closing mode: everything
    /// before the closing tag, or the whole text when there was none). `None` when nothing was removed.
    pub reasoning: Option<String>,
}

/// Whether `c` is whitespace as JavaScript's `String.prototype.trim` understands it.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// Byte length of the leading whitespace of `s`.
fn leading_ws_len(s: &str) -> usize {
    s.len() - s.trim_start_matches(is_js_whitespace).len()
}

/// The non-empty entries of a prefix list, `trimmed` of whitespace at both ends first.
/// `out.push_str(text)` out of line: the cleaner appends at seventeen sites, once per chunk or tag, and
/// each append inlined was a capacity check, a call to grow and a copy.
#[inline(never)]
fn append(out: &mut String, text: &str) {
    out.push_str(text);
}

#[cfg_attr(shipped, optimize(size))]
fn listed(list: &[String], trimmed: bool) -> Vec<String> {
    let mut out = Vec::new();
    for p in list {
        let p = if trimmed {
            sub(p, leading_ws_len(p)..).trim_end_matches(is_js_whitespace)
        } else {
            p.as_str()
        };
        if !p.is_empty() {
            out.push(p.to_owned());
        }
    }
    out
}

/// Cleans a whole response: one [`Cleaner::push`] plus [`Cleaner::finish`].
///
/// # Example
///
/// ```
/// use llm_response_sanitizer::{clean, CleanOptions};
///
/// let text = "  <think>The user greets me.</think>\n\nHello there!  ";
/// assert_eq!(clean(text, &CleanOptions::default()), "Hello there!");
/// ```
pub fn clean(text: &str, options: &CleanOptions) -> String {
    clean_detailed(text, options).text
}

/// Cleans a whole response and returns the removed reasoning too.
///
/// # Example
///
/// ```
/// use llm_response_sanitizer::{clean_detailed, CleanOptions};
///
/// let out = clean_detailed("<think>Plan: wave.</think>Hi!", &CleanOptions::default());
/// assert_eq!(out.text, "Hi!");
/// assert_eq!(out.reasoning.as_deref(), Some("Plan: wave."));
/// ```
pub fn clean_detailed(text: &str, options: &CleanOptions) -> Cleaned {
    let mut cleaner = Cleaner::new(options);
    let text = cleaner.clean_whole(text);
    Cleaned {
        text,
        reasoning: cleaner.reasoning,
    }
}

/// The think stage's state.
#[derive(Debug)]
enum Think {
    /// Looking for an opening tag that starts within the grace period.
    Search {
        /// Text not yet released: a tag may begin at its start.
        held: String,
        /// Stream offset of `held[0]`.
        base: usize,
        /// Still inside the leading whitespace.
        in_lead: bool,
        /// Characters seen since the leading whitespace ended.
        count: usize,
        /// Stream offset of the first character too far into the text for a tag to start at.
        limit: Option<usize>,
    },
    /// Inside the block opened by pair `pair`, waiting for its closing tag.
    Inside {
        pair: usize,
        /// The block from its opening tag on.
        block: String,
        /// Stream offset of `block[0]`.
        at: usize,
        open_len: usize,
        /// Where the next search for the closing tag starts.
        scan: usize,
    },
    /// Only-closing mode: discarding text until the first closing tag.
    Discard { held: String, scan: usize },
    /// Everything from here on passes through.
    Pass,
}

/// Steps of the prefix stage, in order.
const STEP_CUSTOM: u8 = 0;
const STEP_ENDPOINT: u8 = 1;
const STEP_TIMESTAMP: u8 = 2;
const STEP_ASSISTANT: u8 = 3;
const STEP_BODY: u8 = 4;

const TIMESTAMP_OPEN: &str = "[Sent ";
const TIMESTAMP_CLOSE: &str = " ago]";
/// The longest run between `[Sent ` and ` ago]`, in bytes: a timestamp is short, and the look-ahead (what
/// is held, and what each chunk rescans) stays bounded.
const TIMESTAMP_RUN_MAX: usize = 200;
const ASSISTANT: &str = "Assistant:";

/// A prefix step's decision on the text it holds.
enum Decision {
    /// The text may still turn out to start with the prefix.
    Wait,
    /// Remove this many bytes, then strip leading whitespace.
    Remove(usize),
    /// The prefix is not there.
    Keep,
}

/// A streaming cleaner: push chunks, get back the text that is final, then finish.
///
/// Concatenating every `push` result and the `finish` result gives exactly [`clean`] of the
/// concatenated chunks, however the text was split.
///
/// # Example
///
/// ```
/// use llm_response_sanitizer::{clean, CleanOptions, Cleaner};
///
/// let options = CleanOptions::default();
/// let text = "<think>Let me see.</think>The answer is 42.\n";
/// let mut cleaner = Cleaner::new(&options);
/// let mut out = String::new();
/// for chunk in ["<thi", "nk>Let me", " see.</th", "ink>The answer", " is 42.\n"] {
///     out.push_str(&cleaner.push(chunk));
/// }
/// out.push_str(&cleaner.finish());
/// assert_eq!(out, clean(text, &options));
/// assert_eq!(cleaner.reasoning(), Some("Let me see."));
/// ```
#[derive(Debug)]
pub struct Cleaner {
    opens: Tags,
    closes: Tags,
    /// One single-tag search per pair, for the closing tag of an open block.
    close_each: Vec<Tags>,
    grace: usize,
    think: Think,
    prefixes: Vec<String>,
    endpoint_prefixes: Vec<String>,
    keep_unclosed: bool,
    timestamp: bool,
    assistant: bool,
    trim: bool,
    step: u8,
    /// Strip leading whitespace before the current step.
    strip: bool,
    /// Text the current prefix step has not decided on.
    buf: String,
    /// Trailing whitespace held back while trimming.
    trailing: String,
    /// Scratch space for the think stage's output.
    mid: String,
    reasoning: Option<String>,
    /// Stream offset of the reasoning's first byte, once there is reasoning.
    reasoning_at: usize,
    finished: bool,
    /// The options that set where a new cleaner starts (see [`Cleaner::reset`]).
    only_closing: bool,
    grace_from_start: bool,
    think_only: bool,
}

impl Cleaner {
    /// A cleaner with `options`.
    #[cfg_attr(shipped, optimize(size))]
    pub fn new(options: &CleanOptions) -> Cleaner {
        let pairs: Vec<&ThinkTag> = options
            .think_tags
            .iter()
            .filter(|t| !t.start.is_empty() && !t.end.is_empty())
            .collect();
        let opens = Tags::new(pairs.iter().map(|t| t.start.as_str()));
        let closes = Tags::new(pairs.iter().map(|t| t.end.as_str()));
        let close_each = pairs.iter().map(|t| Tags::new([t.end.as_str()])).collect();
        let mut cleaner = Cleaner {
            opens,
            closes,
            close_each,
            grace: options.opening_tag_grace_period,
            think: Think::Pass,
            prefixes: listed(&options.response_start_text_to_remove, false),
            endpoint_prefixes: listed(&options.response_start_text_to_remove_endpoint_wide, true),
            keep_unclosed: options.keep_text_without_closing_tag,
            timestamp: options.remove_timestamp_prefix,
            assistant: options.remove_assistant_prefix,
            trim: options.trim && !options.think_only,
            step: STEP_BODY,
            strip: false,
            buf: String::new(),
            trailing: String::new(),
            mid: String::new(),
            reasoning: None,
            reasoning_at: 0,
            finished: false,
            only_closing: options.expect_only_closing_think_tag,
            grace_from_start: options.grace_includes_leading_whitespace,
            think_only: options.think_only,
        };
        cleaner.reset();
        cleaner
    }

    /// Puts the cleaner back where a new one with the same options starts, without building its tag
    /// searches again: for cleaning one whole text after another.
    ///
    /// # Example
    ///
    /// ```
    /// use llm_response_sanitizer::{clean, CleanOptions, Cleaner};
    ///
    /// let options = CleanOptions::default();
    /// let mut cleaner = Cleaner::new(&options);
    /// assert_eq!(cleaner.push("<think>Hmm.</think> Yes."), "Yes.");
    /// cleaner.reset();
    /// assert_eq!(cleaner.reasoning(), None);
    /// let text = cleaner.push("  <think>A plan.</think>No.  ") + &cleaner.finish();
    /// assert_eq!(text, clean("  <think>A plan.</think>No.  ", &options));
    /// assert_eq!(cleaner.reasoning(), Some("A plan."));
    /// ```
    pub fn reset(&mut self) {
        self.think = if self.close_each.is_empty() {
            Think::Pass
        } else if self.only_closing {
            Think::Discard {
                held: String::new(),
                scan: 0,
            }
        } else {
            Think::Search {
                held: String::new(),
                base: 0,
                in_lead: !self.grace_from_start,
                count: 0,
                limit: None,
            }
        };
        self.step = if self.think_only {
            STEP_BODY
        } else {
            STEP_CUSTOM
        };
        self.strip = !self.think_only;
        self.buf.clear();
        self.trailing.clear();
        self.reasoning = None;
        // Only-closing mode's reasoning starts the text: nothing sets this there.
        self.reasoning_at = 0;
        self.finished = false;
    }

    /// Cleans `text` as a whole response, from a new cleaner's state ([`Cleaner::reset`]): one push and the
    /// finish, [`clean`]'s text. The removed reasoning is then [`Cleaner::reasoning`].
    ///
    /// # Example
    ///
    /// ```
    /// use llm_response_sanitizer::{CleanOptions, Cleaner};
    ///
    /// let mut cleaner = Cleaner::new(&CleanOptions::default());
    /// assert_eq!(cleaner.clean_whole("<think>Hm.</think> One."), "One.");
    /// assert_eq!(cleaner.clean_whole(" Two. "), "Two.");
    /// assert_eq!(cleaner.reasoning(), None);
    /// ```
    // Out of line: the binding and `clean_detailed` call it.
    #[inline(never)]
    pub fn clean_whole(&mut self, text: &str) -> String {
        self.reset();
        let mut out = String::with_capacity(text.len());
        self.push_into(text, &mut out);
        self.finish_into(&mut out);
        out
    }

    /// Takes the next chunk and returns the text that is now final.
    pub fn push(&mut self, chunk: &str) -> String {
        let mut out = String::new();
        self.push_into(chunk, &mut out);
        out
    }

    /// Ends the text and returns what was held back.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.finish_into(&mut out);
        out
    }

    /// Releases what the prefix stage holds at the start of the response, for text that must go out
    /// now (before a tool call in the middle of a stream). Prefixes that have fully arrived are removed;
    /// one still arriving is left in; afterwards no prefix is looked for. When the prefix stage holds
    /// nothing, nothing changes, so prefixes stay armed for the text that follows. An open reasoning
    /// block, a tag that may be arriving and trailing whitespace held for trimming stay held: they are
    /// decided by the text that follows, or by [`Cleaner::finish`].
    ///
    /// # Example
    ///
    /// ```
    /// use llm_response_sanitizer::{CleanOptions, Cleaner};
    ///
    /// let options = CleanOptions { remove_assistant_prefix: true, ..CleanOptions::default() };
    /// let mut cleaner = Cleaner::new(&options);
    /// assert_eq!(cleaner.push("Assistant: Let me look that up."), "Let me look that up.");
    /// let mut other = Cleaner::new(&options);
    /// assert_eq!(other.push("Assist"), "");
    /// assert_eq!(other.flush(), "Assist");
    /// ```
    pub fn flush(&mut self) -> String {
        let mut out = String::new();
        self.flush_into(&mut out);
        out
    }

    /// [`Cleaner::flush`], appending to `out`.
    pub fn flush_into(&mut self, out: &mut String) {
        if self.finished || self.buf.is_empty() {
            return;
        }
        self.prefix_advance(true, out);
    }

    /// [`Cleaner::push`], appending to `out`. After [`Cleaner::finish`], chunks are ignored.
    pub fn push_into(&mut self, chunk: &str, out: &mut String) {
        if self.finished || chunk.is_empty() {
            return;
        }
        if matches!(self.think, Think::Pass) {
            self.prefix_feed(chunk, out);
            return;
        }
        let mut mid = core::mem::take(&mut self.mid);
        self.think_feed(chunk, &mut mid, false);
        self.prefix_feed(&mid, out);
        mid.clear();
        self.mid = mid;
    }

    /// [`Cleaner::finish`], appending to `out`. Finishing twice adds nothing.
    pub fn finish_into(&mut self, out: &mut String) {
        if self.finished {
            return;
        }
        self.finished = true;
        let mut mid = core::mem::take(&mut self.mid);
        self.think_feed("", &mut mid, true);
        self.prefix_feed(&mid, out);
        self.prefix_advance(true, out);
        // Trailing whitespace is dropped when trimming (and never held otherwise).
        self.trailing.clear();
        self.buf.clear();
    }

    /// The removed reasoning text, once a block has been removed (see [`Cleaned::reasoning`]).
    pub fn reasoning(&self) -> Option<&str> {
        self.reasoning.as_deref()
    }

    /// Where the removed reasoning is in the text pushed since the cleaner was made or reset, as a byte
    /// range: it is always one piece of that text, between the tags. A host that holds the text can take
    /// the reasoning from it instead of copying [`Cleaner::reasoning`] across.
    ///
    /// # Example
    ///
    /// ```
    /// use llm_response_sanitizer::{CleanOptions, Cleaner};
    ///
    /// let text = "Sure. <think>Hm.</think> One.";
    /// let mut cleaner = Cleaner::new(&CleanOptions::default());
    /// assert_eq!(cleaner.clean_whole(text), "Sure.  One.");
    /// assert_eq!(cleaner.reasoning_span(), Some(13..16));
    /// assert_eq!(cleaner.reasoning(), text.get(13..16));
    /// ```
    pub fn reasoning_span(&self) -> Option<core::ops::Range<usize>> {
        let r = self.reasoning.as_ref()?;
        Some(self.reasoning_at..self.reasoning_at + r.len())
    }

    /// The text of a reasoning block that is open but not yet closed, without its opening tag and
    /// without the start of a closing tag that may be arriving. It is provisional: if the text ends
    /// before the closing tag, standard mode gives the block back as answer text.
    pub fn pending_reasoning(&self) -> Option<&str> {
        match &self.think {
            Think::Inside {
                block,
                open_len,
                scan,
                ..
            } => Some(sub(block, *open_len..*scan)),
            Think::Discard { held, scan } => Some(sub(held, ..*scan)),
            _ => None,
        }
    }

    /// Bytes pushed but not yet released or dropped: the hold-back.
    pub fn held_len(&self) -> usize {
        let think = match &self.think {
            Think::Search { held, .. } | Think::Discard { held, .. } => held.len(),
            Think::Inside { block, .. } => block.len(),
            Think::Pass => 0,
        };
        think + self.buf.len() + self.trailing.len()
    }

    // ---- think stage -------------------------------------------------------------------------

    /// Runs the think stage over `chunk`, writing released text to `out`.
    fn think_feed(&mut self, chunk: &str, out: &mut String, done: bool) {
        match &mut self.think {
            Think::Pass => {
                append(out, chunk);
                return;
            }
            Think::Search {
                held,
                base,
                in_lead,
                count,
                limit,
            } => {
                if limit.is_none() {
                    // Stream offset of the chunk's first byte.
                    let seen = *base + held.len();
                    for (i, c) in chunk.char_indices() {
                        if *in_lead {
                            if is_js_whitespace(c) {
                                continue;
                            }
                            *in_lead = false;
                        }
                        // `count` is this character's distance from the end of the leading whitespace.
                        if *count > self.grace {
                            *limit = Some(seen + i);
                            break;
                        }
                        *count += 1;
                    }
                }
                append(held, chunk);
            }
            Think::Inside { block, .. } => append(block, chunk),
            Think::Discard { held, .. } => append(held, chunk),
        }
        self.think_step(out, done);
    }

    /// Decides what it can on the held text; may move through several states.
    fn think_step(&mut self, out: &mut String, done: bool) {
        loop {
            match &mut self.think {
                Think::Pass => return,
                Think::Search {
                    held, base, limit, ..
                } => {
                    let lim = limit.map_or(usize::MAX, |l| l - *base);
                    match self.opens.find(held.as_bytes(), 0, lim, done) {
                        Found::Match { start, tag } => {
                            // Think block: text before the opening tag stays whatever follows.
                            append(out, sub(held, ..start));
                            let block = held.split_off(start);
                            let open_len = self.opens.len_of(tag);
                            self.think = Think::Inside {
                                pair: tag,
                                block,
                                at: *base + start,
                                open_len,
                                scan: open_len,
                            };
                        }
                        Found::Pending { start } => {
                            append(out, sub(held, ..start));
                            held.drain(..start);
                            *base += start;
                            return;
                        }
                        Found::Nothing => {
                            append(out, held);
                            *base += held.len();
                            held.clear();
                            // Every start before the limit has been ruled out: stop looking.
                            if limit.is_some() {
                                self.think = Think::Pass;
                            }
                            return;
                        }
                    }
                }
                Think::Inside {
                    pair,
                    block,
                    at,
                    open_len,
                    scan,
                } => {
                    match self.close_each[*pair].find(block.as_bytes(), *scan, usize::MAX, done) {
                        Found::Match { start, .. } => {
                            // Think block closed: drop it, keep what follows.
                            let end = start + self.close_each[*pair].len_of(0);
                            self.reasoning = Some(sub(block, *open_len..start).to_owned());
                            self.reasoning_at = *at + *open_len;
                            append(out, sub(block, end..));
                            self.think = Think::Pass;
                        }
                        Found::Pending { start } => {
                            *scan = start;
                            return;
                        }
                        Found::Nothing if done => {
                            // Unterminated block: the text is unchanged.
                            append(out, block);
                            self.think = Think::Pass;
                        }
                        Found::Nothing => {
                            *scan = block.len();
                            return;
                        }
                    }
                }
                Think::Discard { held, scan } => {
                    match self.closes.find(held.as_bytes(), *scan, usize::MAX, done) {
                        Found::Match { start, tag } => {
                            // Only-closing mode: everything through the closing tag goes.
                            let end = start + self.closes.len_of(tag);
                            append(out, sub(held, end..));
                            held.truncate(start);
                            self.reasoning = Some(core::mem::take(held));
                            self.think = Think::Pass;
                        }
                        Found::Pending { start } => {
                            *scan = start;
                            return;
                        }
                        Found::Nothing if done => {
                            // No closing tag: nothing is left, or (WilmerAI's rule) everything.
                            if self.keep_unclosed {
                                append(out, held);
                            } else {
                                self.reasoning = Some(core::mem::take(held));
                            }
                            self.think = Think::Pass;
                        }
                        Found::Nothing => {
                            *scan = held.len();
                            return;
                        }
                    }
                }
            }
        }
    }

    // ---- prefix stage ------------------------------------------------------------------------

    /// Runs the prefix stage over text released by the think stage.
    fn prefix_feed(&mut self, text: &str, out: &mut String) {
        if text.is_empty() {
            return;
        }
        if self.step == STEP_BODY && !self.strip {
            self.body(text, out);
            return;
        }
        append(&mut self.buf, text);
        self.prefix_advance(false, out);
    }

    /// Moves through the prefix steps as far as the held text allows.
    #[cfg_attr(shipped, optimize(size))]
    fn prefix_advance(&mut self, done: bool, out: &mut String) {
        loop {
            if self.strip {
                let n = leading_ws_len(&self.buf);
                self.buf.drain(..n);
                if self.buf.is_empty() && !done {
                    return;
                }
                self.strip = false;
            }
            let decision = match self.step {
                STEP_CUSTOM => decide_custom(&self.prefixes, &self.buf, done),
                STEP_ENDPOINT => decide_custom(&self.endpoint_prefixes, &self.buf, done),
                STEP_TIMESTAMP if self.timestamp => decide_timestamp(&self.buf, done),
                STEP_ASSISTANT if self.assistant => decide_literal(ASSISTANT, &self.buf, done),
                STEP_BODY => break,
                _ => Decision::Keep,
            };
            match decision {
                Decision::Wait => return,
                Decision::Remove(n) => {
                    self.buf.drain(..n);
                    self.strip = true;
                }
                Decision::Keep => {}
            }
            self.step += 1;
        }
        let rest = core::mem::take(&mut self.buf);
        self.body(&rest, out);
    }

    /// The body: released as it comes, holding trailing whitespace back while trimming.
    fn body(&mut self, text: &str, out: &mut String) {
        if !self.trim {
            append(out, text);
            return;
        }
        let kept = text.trim_end_matches(is_js_whitespace);
        if kept.is_empty() {
            append(&mut self.trailing, text);
            return;
        }
        append(out, &self.trailing);
        self.trailing.clear();
        append(out, kept);
        append(&mut self.trailing, sub(text, kept.len()..));
    }
}

/// Step 3: the first custom prefix, in list order, that the text starts with.
fn decide_custom(prefixes: &[String], text: &str, done: bool) -> Decision {
    for p in prefixes {
        if text.starts_with(p.as_str()) {
            return Decision::Remove(p.len());
        }
        if !done && p.starts_with(text) {
            // This prefix may still match, and it outranks every later one.
            return Decision::Wait;
        }
    }
    Decision::Keep
}

/// Steps 4 and 5 for a fixed prefix.
fn decide_literal(prefix: &str, text: &str, done: bool) -> Decision {
    if text.starts_with(prefix) {
        Decision::Remove(prefix.len())
    } else if !done && prefix.starts_with(text) {
        Decision::Wait
    } else {
        Decision::Keep
    }
}

/// Step 4: `^\[Sent [^\]\r\n]{0,200} ago\]` (the run counted in UTF-8 bytes). The run cannot contain `]`, so
/// the match ends at the first `]`, which must come before any line break and right after ` ago`, within
/// [`TIMESTAMP_RUN_MAX`] bytes of the run's start.
fn decide_timestamp(text: &str, done: bool) -> Decision {
    match decide_literal(TIMESTAMP_OPEN, text, done) {
        Decision::Remove(n) => {
            let rest = &text.as_bytes()[n..];
            let look = TIMESTAMP_RUN_MAX + TIMESTAMP_CLOSE.len();
            let window = &rest[..rest.len().min(look)];
            match find_byte3(window, 0, b']', b'\r', b'\n') {
                Some(i) if rest[i] == b']' => {
                    let with_close = &rest[..=i];
                    // The run before ` ago]` may be empty, but it does not share the space of `[Sent `.
                    if with_close.ends_with(TIMESTAMP_CLOSE.as_bytes()) {
                        Decision::Remove(n + i + 1)
                    } else {
                        Decision::Keep
                    }
                }
                Some(_) => Decision::Keep,
                None if done || rest.len() >= look => Decision::Keep,
                None => Decision::Wait,
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_what_javascript_trims() {
        for c in ['\u{FEFF}', '\u{3000}', '\u{2028}', '\u{A0}', '\u{B}'] {
            assert!(is_js_whitespace(c), "{c:?}");
        }
        for c in ['\u{85}', '\u{200B}', '\u{180E}', 'x'] {
            assert!(!is_js_whitespace(c), "{c:?}");
        }
    }

    #[test]
    fn timestamp_pattern_needs_its_own_space_before_ago() {
        let ok = |t: &str| matches!(decide_timestamp(t, true), Decision::Remove(_));
        assert!(ok("[Sent 5 minutes ago] hi"));
        assert!(ok("[Sent  ago]"));
        assert!(!ok("[Sent ago]"));
        assert!(!ok("[Sent 5 minutes\n ago]"));
        assert!(!ok("[sent 5 minutes ago]"));
        assert!(!ok("[Sent 5 minutes ago"));
        assert!(matches!(
            decide_timestamp("[Sent 5 min", false),
            Decision::Wait
        ));
        let run = |n: usize| format!("[Sent {} ago]", "é".repeat(n / 2));
        assert!(ok(&run(TIMESTAMP_RUN_MAX)));
        assert!(!ok(&run(TIMESTAMP_RUN_MAX + 2)));
        // Past the longest run, no more text is waited for.
        let long = format!(
            "[Sent {}",
            "a".repeat(TIMESTAMP_RUN_MAX + TIMESTAMP_CLOSE.len())
        );
        assert!(matches!(decide_timestamp(&long, false), Decision::Keep));
    }
}
