//! The parser's input: the source bytes, where they end, whether more may follow, and search memos.
//!
//! A step that needs a byte past what has arrived asks for it here ([`Input::need`], [`Input::byte`],
//! [`Input::need_through`]) and suspends before changing anything while more input may still bring it.

use super::*;

/// What the parser reads: the source, where it ends, whether more may follow, and memos of searches in it.
/// Every byte a step looks at past what it has read is asked of the input ([`Input::need`],
/// [`Input::byte`]), which suspends the step while more input may still bring that byte.
pub(crate) struct Input<'a> {
    /// The text's bytes; past `end` they are not the source's (after a closing fence) or have not
    /// arrived. Steps see them only through [`Input::bytes`] and the methods here.
    s: &'a [u8],
    /// End of the source: the text's end, or a closing fence once one is met outside strings.
    pub(super) end: usize,
    /// More input may follow `end` (a stream that has not finished, and no closing fence met yet).
    pub(super) more: bool,
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
        }
    }

    /// The same input holding no bytes, to be kept between the chunks of a stream.
    pub(super) fn detach(self) -> Input<'static> {
        let (end, more) = (self.end, self.more);
        let mut input = self.resume(&[], more);
        input.end = end;
        input
    }

    /// The source's bytes that have arrived: a step indexing past them has skipped asking
    /// [`Input::need`] and panics (in tests and fuzzing) instead of reading bytes that are not the source's.
    #[inline]
    pub(super) fn bytes(&self) -> &'a [u8] {
        &self.s[..self.end]
    }

    /// The source's bytes when the input is complete, for the fast lane: with nothing more to come, no
    /// read of them needs to wait, so the lane reads them freely. `None` in a stream that has not ended.
    #[inline]
    pub(super) fn complete_bytes(&self) -> Option<&'a [u8]> {
        (!self.more).then(|| self.bytes())
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

    /// Whether byte `i` of the source is available: `Ok(i < end)` once the input is complete, and a
    /// suspension while more input may still bring it.
    #[inline]
    pub(super) fn need(&self, i: usize) -> Result<bool, Stop> {
        if i < self.end {
            Ok(true)
        } else if self.more {
            Err(Stop::SUSPEND)
        } else {
            Ok(false)
        }
    }

    /// Byte `i` of the source: `None` past its end once the input is complete, and a suspension while
    /// more input may still bring it.
    #[inline]
    pub(super) fn byte(&self, i: usize) -> Result<Option<u8>, Stop> {
        Ok(if self.need(i)? { Some(self.s[i]) } else { None })
    }

    /// Suspends unless every byte up to `last` is available or the input is complete: for look-aheads
    /// that read at most a few bytes past a position.
    #[inline]
    pub(super) fn need_through(&self, last: usize) -> Result<(), Stop> {
        if self.more && last >= self.end {
            return Err(Stop::SUSPEND);
        }
        Ok(())
    }

    /// Ends the source at `at` for good, in a stream too: a closing fence outside strings.
    pub(super) fn end_at_fence(&mut self, at: usize) {
        self.end = at;
        self.more = false;
        self.fenced = true;
    }

    pub(super) fn is_fence_at(&self, i: usize) -> bool {
        matches!(self.fence, Some(m) if starts_with_at(self.s, i, &[m; 3]))
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

    /// Offset of the end of the line containing `i` (the `\n` itself, or the end of the source).
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
                // What skip_space drops as well: invisible characters, vertical tab, form feed.
                Some(0xE2 | 0xEF) if i + 2 < end && invisible_len(s, i) > 0 => i += 3,
                Some(0x0B | 0x0C) if i < end => i += 1,
                _ => return (i, newline),
            }
        }
    }
}
