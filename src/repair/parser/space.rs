//! Whitespace, comments and chat-template tokens between tokens, and look-aheads past them.

use super::*;

impl Parser<'_> {
    /// Skips whitespace and comments, records the non-JSON ones, and stops the source at a closing fence.
    pub(super) fn skip_space(&mut self) -> Step {
        let s = self.input.bytes();
        while self.st.pos < self.input.end {
            let b = s[self.st.pos];
            // Dispatch on the byte first: most tokens start with a plain ASCII byte and leave at once.
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    self.st.pos += 1;
                    while self.st.pos < self.input.end && is_json_ws(s[self.st.pos]) {
                        self.st.pos += 1;
                    }
                }
                b'/' if matches!(self.input.byte(self.st.pos + 1)?, Some(b'/' | b'*')) => {
                    let end = if s[self.st.pos + 1] == b'/' {
                        self.input.line_end(self.st.pos)
                    } else {
                        let body = self.st.pos + 2;
                        self.input.block_comment_end(body)
                    };
                    // A comment that runs into the end of a stream may still close.
                    self.input.need_through(end)?;
                    self.record(RepairKind::Comment, self.st.pos)?;
                    self.st.pos = end;
                }
                b'#' if self.st.state != State::Value => {
                    let end = self.input.line_end(self.st.pos);
                    self.input.need_through(end)?;
                    self.record(RepairKind::Comment, self.st.pos)?;
                    self.st.pos = end;
                }
                0xEF | 0xE2 if invisible_len(s, self.st.pos) > 0 => {
                    self.record(RepairKind::InvisibleCharacter, self.st.pos)?;
                    self.st.pos += 3;
                }
                0x0B | 0x0C => {
                    self.record(RepairKind::NonstandardWhitespace, self.st.pos)?;
                    self.st.pos += 1;
                }
                0xC2 if starts_with_at(s, self.st.pos, NBSP) => {
                    self.record(RepairKind::NonstandardWhitespace, self.st.pos)?;
                    self.st.pos += 2;
                }
                b'`' | b'~'
                    if self.input.need(self.st.pos + 2)? && self.input.is_fence_at(self.st.pos) =>
                {
                    // The closing fence ends the source for good, in a stream too.
                    self.input.end_at_fence(self.st.pos);
                }
                b'<' => match self.chat_token_len(self.st.pos)? {
                    Some(len) => {
                        self.record(RepairKind::SurroundingText, self.st.pos)?;
                        self.st.pos += len;
                    }
                    None => break,
                },
                _ => break,
            }
        }
        Ok(())
    }

    /// Length of a chat-template token (`<|im_end|>`, `</s>`) at `i`.
    pub(super) fn chat_token_len(&self, i: usize) -> Result<Option<usize>, Stop> {
        let s = self.input.bytes();
        if starts_with_at(s, i, b"</s>") {
            return Ok(Some(4));
        }
        if !starts_with_at(s, i, b"<|") {
            // In a stream, `<`, `</` or `</s` at the end may still become a token.
            let seen = &s[i..self.input.end.max(i)];
            if self.input.more && (b"</s>".starts_with(seen) || b"<|".starts_with(seen)) {
                return Err(Stop::SUSPEND);
            }
            return Ok(None);
        }
        // Bounded look-ahead: such tokens are short.
        const LIMIT: usize = 64;
        let limit = self.input.utf8_window_end(i, LIMIT);
        match s[i + 2..limit].windows(2).position(|w| w == b"|>") {
            Some(off) => Ok(Some(off + 4)),
            None => {
                self.input.need_through(i + LIMIT - 1)?;
                Ok(None)
            }
        }
    }

    /// Like [`Self::peek_past_space`], and also past comments: where the next token starts.
    /// A comment that runs to the end of the source ends the look-ahead there (callers then need more
    /// input in a stream). With `hash`, `#` to the end of the line is a comment too.
    pub(super) fn peek_past_space_and_comments(
        &self,
        mut i: usize,
        hash: bool,
    ) -> Result<(usize, bool), Stop> {
        let mut newline = false;
        loop {
            let (j, nl) = self.input.peek_past_space(i);
            newline |= nl;
            if hash && self.input.bytes().get(j) == Some(&b'#') && j < self.input.end {
                i = self.input.line_end(j);
                continue;
            }
            if self.input.bytes().get(j) != Some(&b'/') || !self.input.need(j + 1)? {
                return Ok((j, newline));
            }
            i = match self.input.bytes()[j + 1] {
                b'/' => self.input.line_end(j),
                b'*' => self.input.block_comment_end(j + 2),
                _ => return Ok((j, newline)),
            };
        }
    }
}
