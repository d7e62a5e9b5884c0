//! The parser's input: the source bytes, where they end, whether more may follow, and search memos.
//!
//! The general steps read the bytes through [`Seen`], which has no length and no `get`: the only way to
//! learn that a position lies past what has arrived is a method that returns `Err(Stop)` while more input
//! may still bring it ([`Seen::at`], [`Seen::has`], [`Seen::is_at`], [`Seen::scan`], …). A step that
//! forgets to wait therefore does not compile, or (indexing past the arrival) panics in tests and fuzzing;
//! it cannot quietly take the end of a chunk for the end of the text. The fast lane reads a plain slice,
//! which it gets only when the input is complete ([`Input::complete_bytes`]).

use super::*;

/// What the parser reads: the source, where it ends, whether more may follow, and memos of searches in it.
/// The general steps read the bytes through [`Input::seen`], which suspends a step while more input
/// may still bring a byte it asks for; the fast lane reads [`Input::complete_bytes`].
pub(crate) struct Input<'a> {
    /// The text's bytes; past `end` they are not the source's (after a closing fence) or have not
    /// arrived. Steps see them only through [`Seen`], [`Input::complete_bytes`] and the methods here.
    s: &'a [u8],
    /// End of the source: the text's end, or a closing fence once one is met outside strings.
    end: usize,
    /// More input may follow `end` (a stream that has not finished, and no closing fence met yet).
    more: bool,
    /// A closing fence outside strings ended the source at `end`.
    pub(super) fenced: bool,
    /// The fence marker (```` ` ```` or `~`) of a fenced source.
    pub(super) fence: Option<u8>,
    /// The text is Latin-1 (one byte per character) rather than UTF-8; see [`Parser::read_latin1`].
    pub(super) latin1: bool,
    /// Memo for look-aheads that skip comments: (searched from, end found) for the next `*/` and the
    /// next line break. Look-aheads move forward, so each byte is searched at most once: linear time.
    pub(super) block_end: Cell<(usize, usize)>,
    pub(super) line_break: Cell<(usize, usize)>,
    /// Memo for [`Parser::line_comment_end`]: (comment start, container it was read in, its end). A
    /// comment is looked past, then skipped: it is searched once.
    pub(super) comment_end: Cell<(usize, usize, usize)>,
    /// For [`Input::inner_depth`]: where the count starts, how far it went, the depth there.
    inner_depth: Cell<(usize, usize, usize)>,
}

impl<'a> Input<'a> {
    /// The whole of `s`, complete, as UTF-8; `fence` is the marker of a fenced source.
    pub(super) fn new(s: &'a [u8], fence: Option<u8>) -> Input<'a> {
        Input {
            s,
            end: s.len(),
            more: false,
            fenced: false,
            fence,
            latin1: false,
            block_end: Cell::new((usize::MAX, 0)),
            line_break: Cell::new((usize::MAX, 0)),
            comment_end: Cell::new((usize::MAX, 0, 0)),
            inner_depth: Cell::new((0, 0, 0)),
        }
    }

    /// The same input over `s`, a longer prefix of the same text (or the whole text, without `more`). A
    /// source already ended by a closing fence keeps its end.
    pub(super) fn resume<'b>(self, s: &'b [u8], more: bool) -> Input<'b> {
        let end = if self.fenced { self.end } else { s.len() };
        // A memo whose search ran into the old end found nothing yet; forget it.
        for memo in [&self.block_end, &self.line_break] {
            if memo.get().1 >= self.end {
                memo.set((usize::MAX, 0));
            }
        }
        Input {
            s,
            end,
            more: more && !self.fenced,
            fenced: self.fenced,
            fence: self.fence,
            latin1: self.latin1,
            block_end: self.block_end,
            line_break: self.line_break,
            comment_end: self.comment_end,
            inner_depth: self.inner_depth,
        }
    }

    /// The same input holding no bytes, to be kept between the chunks of a stream.
    pub(super) fn detach(self) -> Input<'static> {
        let (end, more) = (self.end, self.more);
        let mut input = self.resume(&[], more);
        input.end = end;
        input
    }

    /// The source's bytes that have arrived, as the general steps read them.
    #[inline]
    pub(super) fn seen(&self) -> Seen<'a> {
        Seen {
            s: &self.s[..self.end],
            more: self.more,
            fence: self.fence,
        }
    }

    /// The source's bytes when the input is complete, for the fast lane: with nothing more to come, no
    /// read of them needs to wait, so the lane reads them freely. `None` in a stream that has not ended.
    #[inline]
    pub(super) fn complete_bytes(&self) -> Option<&'a [u8]> {
        (!self.more).then(|| &self.s[..self.end])
    }

    /// Where the source ends so far: a position to report or cut at once the end is known to be final
    /// (a step learns that from [`Seen`]), never a test of whether a byte has arrived.
    #[inline]
    pub(super) fn end(&self) -> usize {
        self.end
    }

    /// Whether more input may follow (a stream that has not finished).
    #[inline]
    pub(super) fn more(&self) -> bool {
        self.more
    }

    /// Whether the source is fenced (a closing fence may end it).
    #[inline]
    pub(super) fn fenced_source(&self) -> bool {
        self.fence.is_some()
    }

    /// Reads the text as Latin-1 (see [`Parser::read_latin1`]).
    pub(super) fn read_latin1(&mut self) {
        self.latin1 = true;
    }

    /// The length of the character at `i`: one byte in Latin-1, its UTF-8 length otherwise.
    #[inline]
    pub(super) fn char_len(&self, i: usize) -> usize {
        if self.latin1 {
            1
        } else {
            char_len(self.s[i])
        }
    }

    /// Where the first `n` bytes of the text's UTF-8 form from `i` end, within the source: `i + n` for
    /// UTF-8; in Latin-1, where a character beyond ASCII takes two bytes there, usually sooner. Bounded
    /// look-aheads count in UTF-8 so that both forms of a text read alike.
    pub(super) fn utf8_window_end(&self, i: usize, n: usize) -> usize {
        if !self.latin1 {
            return (i + n).min(self.end);
        }
        let (mut k, mut utf8) = (i, 0);
        while k < self.end && utf8 + 1 + usize::from(self.s[k] >= 0x80) <= n {
            utf8 += 1 + usize::from(self.s[k] >= 0x80);
            k += 1;
        }
        k
    }

    /// Ends the source at `at` for good, in a stream too: a closing fence outside strings.
    pub(super) fn end_at_fence(&mut self, at: usize) {
        self.end = at;
        self.more = false;
        self.fenced = true;
    }

    /// Ends the complete source at `at`, before its end: where a closing fence cuts a string that ran
    /// into the end of the input.
    pub(super) fn cut_at(&mut self, at: usize) {
        debug_assert!(!self.more && at <= self.end);
        self.end = at;
    }

    /// The first occurrence of `pat` at or after `from` (the end of the source if none), memoized in `memo`.
    /// `pat` is two bytes, or one byte followed by 0.
    #[inline(always)]
    pub(super) fn find_memo(
        &self,
        memo: &Cell<(usize, usize)>,
        from: usize,
        pat: &[u8; 2],
    ) -> usize {
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

    /// Marks the quote at `from`, taken as content right after a bracket the content opened (see
    /// [`Input::inner_depth`]).
    pub(super) fn open_inner(&self, from: usize) {
        self.inner_depth.set((from, from, 1));
    }

    /// How many of the brackets a string's content opened, from the one before the quote marked by
    /// [`Input::open_inner`] on, are still open at `to`: `{` and `[` counted against `}` and `]`, a
    /// closer with none open counting for nothing (in `x[{"id": 1}]`, the `]` closes what came before
    /// the mark, and a later `{"a": "x", "b": 2}` is open again). Asked with growing `to` as a string is
    /// read, the count goes on from where it stopped: linear time.
    #[inline(never)]
    pub(super) fn inner_depth(&self, to: usize) -> usize {
        let (from, mut at, mut depth) = self.inner_depth.get();
        if at > to {
            (at, depth) = (from, 1);
        }
        // From one bracket to the next (`b | 0x20` maps `[` and `]` onto `{` and `}`).
        while let Some(k) = self.s[at..to]
            .iter()
            .position(|&b| matches!(b | 0x20, b'{' | b'}'))
        {
            at += k + 1;
            depth = if self.s[at - 1] | 0x20 == b'{' {
                depth + 1
            } else {
                depth.saturating_sub(1)
            };
        }
        self.inner_depth.set((from, to, depth));
        depth
    }

    /// Offset of the end of the line containing `i` (the `\n` itself, or the end of the source).
    #[inline(never)]
    pub(super) fn line_end(&self, i: usize) -> usize {
        self.find_memo(&self.line_break, i, b"\n\0").min(self.end)
    }

    /// Offset just after the `*/` that closes a block comment whose body starts at `body` (the end of the
    /// source if none).
    pub(super) fn block_comment_end(&self, body: usize) -> usize {
        self.find_memo(&self.block_end, body, b"*/")
            .saturating_add(2)
            .min(self.end)
    }

    /// Skips JSON whitespace, no-break spaces, invisible characters, vertical tabs and form feeds from `i`
    /// without recording; also reports a newline.
    pub(super) fn peek_past_space(&self, mut i: usize) -> (usize, bool) {
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
                // What skip_space drops as well: invisible characters, other Unicode spaces,
                // vertical tab, form feed.
                Some(0xE1..=0xE3 | 0xEF)
                    if i + 2 < end && (invisible_len(s, i) > 0 || unicode_space_len(s, i) > 0) =>
                {
                    i += 3
                }
                Some(0x0B | 0x0C) if i < end => i += 1,
                _ => return (i, newline),
            }
        }
    }
}

/// The bytes of the source that have arrived, as a general step reads them (from [`Input::seen`]).
///
/// It has no length and no `get`. Whether a position lies past what has arrived is learned only from the
/// methods that return `Result`: they answer `Err(Stop::SUSPEND)` while more input may still bring the
/// bytes, and `None` or `false` past the end once the input is complete. Indexing reads a byte a step
/// already knows is there, and panics past the arrival. [`Seen::run`] and [`Seen::skip_plain_string`] stop
/// at the arrival without a verdict; the step then asks [`Seen::at`] what stopped them.
#[derive(Clone, Copy)]
pub(super) struct Seen<'a> {
    s: &'a [u8],
    more: bool,
    fence: Option<u8>,
}

impl core::ops::Index<usize> for Seen<'_> {
    type Output = u8;
    #[inline(always)]
    fn index(&self, i: usize) -> &u8 {
        &self.s[i]
    }
}

impl<'a> Seen<'a> {
    /// The bytes `from..to`, all of which a step knows have arrived.
    #[inline(always)]
    pub(super) fn span(self, from: usize, to: usize) -> &'a [u8] {
        &self.s[from..to]
    }

    /// The bytes that have arrived from `from` on.
    #[inline(always)]
    pub(super) fn rest(self, from: usize) -> &'a [u8] {
        &self.s[from..]
    }

    /// Appends the bytes `from..to`, all of which a step knows have arrived, to `out` (see
    /// [`copy_from`] for why not `extend_from_slice`).
    #[inline(always)]
    pub(super) fn copy(self, out: &mut Vec<u8>, from: usize, to: usize) {
        copy_from(out, self.s, from..to);
    }

    /// Whether byte `i` is in the source: `false` past its end once the input is complete, and a
    /// suspension while more input may still bring it.
    #[inline(always)]
    pub(super) fn has(self, i: usize) -> Result<bool, Stop> {
        if i < self.s.len() {
            Ok(true)
        } else if self.more {
            Err(Stop::SUSPEND)
        } else {
            Ok(false)
        }
    }

    /// Byte `i`: `None` past the end of the source once the input is complete, and a suspension while
    /// more input may still bring it.
    #[inline(always)]
    pub(super) fn at(self, i: usize) -> Result<Option<u8>, Stop> {
        Ok(if self.has(i)? { Some(self.s[i]) } else { None })
    }

    /// Suspends unless every byte up to `last` has arrived or the input is complete: for look-aheads
    /// that read at most a few bytes past a position, within what has arrived.
    #[inline]
    pub(super) fn has_through(self, last: usize) -> Result<(), Stop> {
        if self.more && last >= self.s.len() {
            return Err(Stop::SUSPEND);
        }
        Ok(())
    }

    /// Whether `pat` stands at `i`; a suspension while what has arrived from `i` is a proper prefix of
    /// it and more may follow, so the answer never changes with more input.
    #[inline(never)]
    pub(super) fn is_at(self, i: usize, pat: &[u8]) -> Result<bool, Stop> {
        let seen = self.s.get(i..).unwrap_or_default();
        if seen.starts_with(pat) {
            return Ok(true);
        }
        if self.more && pat.starts_with(seen) {
            return Err(Stop::SUSPEND);
        }
        Ok(false)
    }

    /// The first position from `from` whose byte fails `keep`, or where the arrived bytes end: a run
    /// with no verdict on the end, which the step asks [`Seen::at`] about.
    #[inline(always)]
    pub(super) fn run(self, mut from: usize, keep: impl Fn(u8) -> bool) -> usize {
        while from < self.s.len() && keep(self.s[from]) {
            from += 1;
        }
        from
    }

    /// Like [`Seen::run`], and a suspension when the run reaches the end of a stream that may go on.
    #[inline(always)]
    pub(super) fn scan(self, from: usize, keep: impl Fn(u8) -> bool) -> Result<usize, Stop> {
        let k = self.run(from, keep);
        self.has(k)?;
        Ok(k)
    }

    /// The first of `a`, `b` or `c` from `from`; `None` when the complete source has none, and a
    /// suspension while more input may still bring one.
    #[inline]
    pub(super) fn find3(self, from: usize, a: u8, b: u8, c: u8) -> Result<Option<usize>, Stop> {
        match find_byte3(self.s, from.min(self.s.len()), a, b, c) {
            Some(at) => Ok(Some(at)),
            None if self.more => Err(Stop::SUSPEND),
            None => Ok(None),
        }
    }

    /// Where the run of plain string content from `from` stops (see [`skip_plain_string_bytes`]), or the
    /// end of the arrived bytes: no verdict on the end, which the step asks [`Seen::at`] about.
    #[inline(always)]
    pub(super) fn skip_plain_string(self, from: usize, single: bool) -> usize {
        skip_plain_string_bytes(self.s, from, self.s.len(), single)
    }

    /// The punctuation at `i` (which has arrived) and its length in bytes (see [`punct`]).
    #[inline(always)]
    pub(super) fn punct(self, i: usize) -> (u8, usize) {
        punct(self.s, i)
    }

    /// [`Seen::at`] with full-width punctuation read as its ASCII form (see [`Seen::punct`]).
    #[inline(never)]
    pub(super) fn punct_at(self, i: usize) -> Result<Option<u8>, Stop> {
        Ok(if self.has(i)? {
            Some(self.punct(i).0)
        } else {
            None
        })
    }

    /// The quote that opens a string at `i`, which has arrived (a character never spans two chunks).
    #[inline(always)]
    pub(super) fn quote_at(self, i: usize) -> Option<(QuoteStyle, usize)> {
        debug_assert!(i < self.s.len(), "quote_at past the arrived bytes");
        quote_at(self.s, i)
    }

    /// The length of a quote at `i` (which has arrived) that can close a string opened with `style`
    /// (see [`closer_len`]).
    #[inline(always)]
    pub(super) fn closer_len(self, style: QuoteStyle, curly_closes: bool, i: usize) -> usize {
        closer_len(style, curly_closes, self.s, i)
    }

    /// The length of an invisible character at `i` (which has arrived), or 0.
    #[inline(always)]
    pub(super) fn invisible_len(self, i: usize) -> usize {
        debug_assert!(i < self.s.len(), "invisible_len past the arrived bytes");
        invisible_len(self.s, i)
    }

    /// The length of a Unicode space at `i` (which has arrived; see [`unicode_space_len`]), or 0.
    #[inline(always)]
    pub(super) fn unicode_space_len(self, i: usize) -> usize {
        debug_assert!(i < self.s.len(), "unicode_space_len past the arrived bytes");
        unicode_space_len(self.s, i)
    }

    /// Whether the one character `ch` stands at `i`, which has arrived.
    #[inline(always)]
    pub(super) fn char_is(self, i: usize, ch: &[u8]) -> bool {
        debug_assert!(i < self.s.len(), "char_is past the arrived bytes");
        starts_with_at(self.s, i, ch)
    }

    /// The length of an ellipsis placeholder (`...` or `…`) at `i`, or 0; a suspension while `.` or
    /// `..` at the end of a stream may still grow into one.
    #[inline(never)]
    pub(super) fn ellipsis_len(self, i: usize) -> Result<usize, Stop> {
        Ok(if self.is_at(i, b"...")? || self.is_at(i, ELLIPSIS)? {
            3
        } else {
            0
        })
    }

    /// Whether the closing fence of the source stands at `i`: its own marker's for a fenced source, else
    /// a backtick fence whose opening one is missing (`{"a": 1}```): neither is ever JSON.
    #[inline(never)]
    pub(super) fn fence_at(self, i: usize) -> Result<bool, Stop> {
        self.is_at(i, &[self.fence.unwrap_or(b'`'); 3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input over `text`, with `more` to come or complete.
    fn input(text: &str, more: bool) -> Input<'_> {
        Input::new(b"", Some(b'`')).resume(text.as_bytes(), more)
    }

    #[test]
    fn a_byte_past_the_arrival_waits_in_a_stream_and_is_none_at_the_end() {
        assert_eq!(input("ab", true).seen().at(1), Ok(Some(b'b')));
        assert_eq!(input("ab", true).seen().at(2), Err(Stop::SUSPEND));
        assert_eq!(input("ab", false).seen().at(2), Ok(None));
        assert_eq!(input("ab", true).seen().has_through(1), Ok(()));
        assert_eq!(input("ab", true).seen().has_through(2), Err(Stop::SUSPEND));
        assert_eq!(input("ab", false).seen().has_through(9), Ok(()));
    }

    #[test]
    fn a_pattern_waits_only_while_what_arrived_could_still_become_it() {
        let seen = |t| input(t, true).seen();
        assert_eq!(seen("x</").is_at(1, b"</s>"), Err(Stop::SUSPEND));
        assert_eq!(seen("x").is_at(1, b"</s>"), Err(Stop::SUSPEND));
        assert_eq!(seen("x<a").is_at(1, b"</s>"), Ok(false));
        assert_eq!(seen("x</s>").is_at(1, b"</s>"), Ok(true));
        assert_eq!(input("x</", false).seen().is_at(1, b"</s>"), Ok(false));
        assert_eq!(seen("``").fence_at(0), Err(Stop::SUSPEND));
        assert_eq!(seen("```").fence_at(0), Ok(true));
        assert_eq!(seen("..").ellipsis_len(0), Err(Stop::SUSPEND));
        assert_eq!(seen(".,").ellipsis_len(0), Ok(0));
        assert_eq!(seen("…").ellipsis_len(0), Ok(3));
    }

    #[test]
    fn scans_and_searches_wait_when_they_reach_the_end_of_a_stream() {
        let digit = |b: u8| b.is_ascii_digit();
        assert_eq!(input("123a", true).seen().scan(0, digit), Ok(3));
        assert_eq!(input("123", true).seen().scan(0, digit), Err(Stop::SUSPEND));
        assert_eq!(input("123", false).seen().scan(0, digit), Ok(3));
        // A run gives a position and no verdict; the step asks `at` what stopped it.
        assert_eq!(input("123", true).seen().run(0, digit), 3);
        assert_eq!(
            input("ab\"c", true).seen().find3(0, b'"', b'\\', b'\n'),
            Ok(Some(2))
        );
        assert_eq!(
            input("abc", true).seen().find3(0, b'"', b'\\', b'\n'),
            Err(Stop::SUSPEND)
        );
        assert_eq!(
            input("abc", false).seen().find3(0, b'"', b'\\', b'\n'),
            Ok(None)
        );
    }

    #[test]
    #[should_panic]
    fn indexing_past_the_arrival_panics() {
        let _ = input("ab", true).seen()[2];
    }
}
