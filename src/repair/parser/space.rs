//! Whitespace, comments and chat-template tokens between tokens, and look-aheads past them.

use super::*;

impl Parser<'_> {
    /// Skips whitespace and comments, records the non-JSON ones, and stops the source at a closing fence.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn skip_space(&mut self) -> Step {
        loop {
            // Again at each token: a closing fence ends the source.
            let s = self.input.seen();
            // The end, or bytes not yet arrived: the caller decides what either means.
            let Ok(Some(b)) = s.at(self.st.pos) else {
                return Ok(());
            };
            // Dispatch on the byte first: most tokens start with a plain ASCII byte and leave at once.
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.st.pos = s.run(self.st.pos + 1, is_json_ws),
                b'/' if matches!(s.at(self.st.pos + 1)?, Some(b'/' | b'*')) => {
                    let end = if s[self.st.pos + 1] == b'/' {
                        self.line_comment_end(self.st.pos)?
                    } else {
                        let body = self.st.pos + 2;
                        self.input.block_comment_end(body)
                    };
                    // A comment that runs into the end of a stream may still close.
                    s.has_through(end)?;
                    self.record(RepairKind::Comment, self.st.pos)?;
                    self.st.pos = end;
                }
                b'#' if self.st.state != State::Value => {
                    let end = self.line_comment_end(self.st.pos)?;
                    self.record(RepairKind::Comment, self.st.pos)?;
                    self.st.pos = end;
                }
                0xEF | 0xE2 if s.invisible_len(self.st.pos) > 0 => {
                    self.record(RepairKind::InvisibleCharacter, self.st.pos)?;
                    self.st.pos += 3;
                }
                // repair: `{"a":\u{3000}"foo"}`: a Unicode space between tokens
                0xE1..=0xE3 if s.unicode_space_len(self.st.pos) > 0 => {
                    self.record(RepairKind::NonstandardWhitespace, self.st.pos)?;
                    self.st.pos += 3;
                }
                0x0B | 0x0C => {
                    self.record(RepairKind::NonstandardWhitespace, self.st.pos)?;
                    self.st.pos += 1;
                }
                0xC2 if s.char_is(self.st.pos, NBSP) => {
                    self.record(RepairKind::NonstandardWhitespace, self.st.pos)?;
                    self.st.pos += 2;
                }
                // A fence that opens a value is a string's (see `value_fence`).
                b'`' if self.st.state == State::Value
                    && self.value_fence(self.st.pos)?.is_some() =>
                {
                    return Ok(())
                }
                // The closing fence ends the source for good, in a stream too.
                b'`' | b'~' if s.fence_at(self.st.pos)? => {
                    if !self.input.fenced_source() {
                        // repair: `{"a": 1}```: a closing fence whose opening one is missing
                        self.record(RepairKind::SurroundingText, self.st.pos)?;
                    }
                    self.input.end_at_fence(self.st.pos)
                }
                b'<' => match self.chat_token_len(self.st.pos)? {
                    Some(len) => {
                        self.record(RepairKind::SurroundingText, self.st.pos)?;
                        self.st.pos += len;
                    }
                    None => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Where a line comment (`//` or `#`) that starts at `i` ends: at the end of its line, or at a `}` or
    /// `]` that closes the innermost container, that no bracket in the comment opened, and that a `,`, a
    /// closer or the end of the input follows on the same line (`{"k": {"a": 1 // note }, "b": 2}`).
    /// Only a complete line is searched, and only its first bytes, so a stream decides as a whole text
    /// would, in linear time.
    pub(super) fn line_comment_end(&self, i: usize) -> Result<usize, Stop> {
        let s = self.input.seen();
        let line = self.input.line_end(i);
        s.has_through(line)?;
        // The answer depends on the innermost container, which the memo's key names.
        let within = self.st.stack.len() * 4 + self.top().map_or(0, |c| c as usize);
        let (start, key, end) = self.input.comment_end.get();
        if (start, key) == (i, within) {
            return Ok(end);
        }
        let end = self.find_comment_end(i, line)?;
        self.input.comment_end.set((i, within, end));
        Ok(end)
    }

    /// The search of [`Self::line_comment_end`] in the complete line that ends at `line`.
    fn find_comment_end(&self, i: usize, line: usize) -> Result<usize, Stop> {
        const WINDOW: usize = 256;
        let s = self.input.seen();
        let stop = line.min(i + WINDOW);
        // Most comments hold no bracket: one pass over them says so. (`[` and `]` are `{` and `}`
        // without bit 5.)
        let mut from = i + 1;
        while from < stop && !matches!(s[from] | 0x20, b'{' | b'}') {
            from += 1;
        }
        let mut depth = 0u32;
        for k in from..stop {
            match s[k] {
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                c @ (b'}' | b']') if self.closes_top(c) => {
                    let r = s.run(k + 1, |b| b == b' ' || b == b'\t');
                    if matches!(s.at(r)?, None | Some(b',' | b'}' | b']')) {
                        return Ok(k);
                    }
                }
                _ => {}
            }
        }
        Ok(line)
    }

    /// Length of a chat-template token (`<|im_end|>`, `</s>`) at `i`.
    pub(super) fn chat_token_len(&self, i: usize) -> Result<Option<usize>, Stop> {
        let s = self.input.seen();
        if s.is_at(i, b"</s>")? {
            return Ok(Some(4));
        }
        if !s.is_at(i, b"<|")? {
            return Ok(None);
        }
        // Bounded look-ahead: such tokens are short.
        const LIMIT: usize = 64;
        let limit = self.input.utf8_window_end(i, LIMIT);
        match s.span(i + 2, limit).windows(2).position(|w| w == b"|>") {
            // `<|"|>` is a quote (see [`QUOTE_TOKENS`]).
            Some(1) if s[i + 2] == b'"' => Ok(None),
            Some(off) => Ok(Some(off + 4)),
            None => {
                s.has_through(i + LIMIT - 1)?;
                Ok(None)
            }
        }
    }

    /// Like [`Input::peek_past_space`], and also past comments: where the next token starts.
    /// A comment that runs to the end of the source ends the look-ahead there (callers then need more
    /// input in a stream). With `hash`, `#` to the end of the line is a comment too.
    pub(super) fn peek_past_space_and_comments(
        &self,
        mut i: usize,
        hash: bool,
    ) -> Result<(usize, bool), Stop> {
        let s = self.input.seen();
        let mut newline = false;
        loop {
            let (j, nl) = self.input.peek_past_space(i);
            newline |= nl;
            // Where the look-ahead stops, the caller asks again (and waits if it must).
            i = match (s.at(j), s.at(j + 1)) {
                (Ok(Some(b'#')), _) if hash => self.line_comment_end(j)?,
                (Ok(Some(b'/')), Ok(Some(b'/'))) => self.line_comment_end(j)?,
                (Ok(Some(b'/')), Ok(Some(b'*'))) => self.input.block_comment_end(j + 2),
                (Ok(Some(b'/')), Err(stop)) => return Err(stop),
                _ => return Ok((j, newline)),
            };
        }
    }
}
