//! Strings: their content, escapes, and whether a quote ends one.

use super::*;

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
pub(super) static SPECIAL_DOUBLE: [bool; 256] = special_table(false);
pub(super) static SPECIAL_SINGLE: [bool; 256] = special_table(true);

impl Parser<'_> {
    /// Opens a string at `pos`. With `continued`, the previous string's closing quote was removed and
    /// this one's content is appended to it.
    #[inline]
    pub(super) fn open_string(
        &mut self,
        quote: (QuoteStyle, usize),
        ctx: Ctx,
        continued: bool,
    ) -> Step {
        let (style, qlen) = quote;
        match style {
            QuoteStyle::Double => {}
            QuoteStyle::Single => self.record(RepairKind::SingleQuotes, self.st.pos)?,
            _ => self.record(RepairKind::CurlyQuotes, self.st.pos)?,
        }
        self.st.pos += qlen;
        if !continued {
            self.st.out.push(b'"');
        }
        self.st.str = StrState {
            ctx,
            style,
            ..NO_STR
        };
        self.st.state = State::Str;
        Ok(())
    }

    /// Reads string content up to the closing quote (or the end of the input), then moves on: a key
    /// to its colon (or is dropped when the input ended inside it), a value to `AfterString`.
    #[inline]
    pub(super) fn string_body(&mut self) -> Step {
        let truncated = self.string_content()?;
        match self.st.str.ctx {
            Ctx::Key if truncated => {
                // repair: the input ends inside a key
                self.drop_item(RepairKind::TruncatedMember, self.st.pos)
            }
            Ctx::Key => {
                self.st.state = State::AfterKey;
                Ok(())
            }
            Ctx::Value => {
                self.st.state = State::AfterString;
                Ok(())
            }
        }
    }

    /// The loop of [`Self::string_body`]; returns whether the input ended inside the string.
    pub(super) fn string_content(&mut self) -> Result<bool, Stop> {
        let s = self.input.bytes();
        let single = matches!(
            self.st.str.style,
            QuoteStyle::Single | QuoteStyle::CurlySingle
        );
        let table = if single {
            &SPECIAL_SINGLE
        } else {
            &SPECIAL_DOUBLE
        };
        loop {
            let run = self.st.pos;
            self.st.pos = skip_plain_string_bytes(s, self.st.pos, self.input.end, single);
            while self.st.pos < self.input.end && !table[s[self.st.pos] as usize] {
                self.st.pos += 1;
            }
            copy_from(&mut self.st.out, s, run..self.st.pos);
            if self.st.pos >= self.input.end {
                if self.input.more {
                    return Err(Stop::SUSPEND);
                }
                if let Some((out_len, at)) = self.st.str.fence_cut {
                    self.cut_output(out_len);
                    self.input.end = at;
                    self.st.pos = at;
                }
                // repair: the input ends inside the string
                if self.st.str.ctx == Ctx::Value {
                    self.record(RepairKind::TruncatedString, self.input.end)?;
                }
                self.st.out.push(b'"');
                return Ok(true);
            }
            let b = s[self.st.pos];
            if b == b'\\' {
                self.escape()?;
                continue;
            }
            if b < 0x20 {
                if b == b'\n' && self.st.str.fence_cut.is_none() && self.input.fence.is_some() {
                    let (k, _) = self.input.peek_past_space(self.st.pos + 1);
                    self.input.need_through(k + 2)?;
                    if self.input.is_fence_at(k) {
                        self.st.str.fence_cut = Some((self.st.out.len(), k));
                    }
                }
                if !self.st.str.noted_control {
                    // repair: raw newline, tab or other control character inside a string
                    self.record(RepairKind::ControlCharacter, self.st.pos)?;
                    self.st.str.noted_control = true;
                }
                push_control(&mut self.st.out, b);
                self.st.pos += 1;
                continue;
            }
            let close = match closer_len(self.st.str.style, s, self.st.pos) {
                3 if self.st.str.style == QuoteStyle::Double
                    && (!self.st.curly_closes || !starts_with_at(s, self.st.pos, RDQUO)) =>
                {
                    0
                }
                n => n,
            };
            if close == 0 {
                // A quote character of another style, or a non-quote 0xE2 sequence: content.
                if b == b'"' {
                    self.st.out.extend_from_slice(b"\\\"");
                } else {
                    self.st.out.push(b);
                }
                self.st.pos += 1;
                continue;
            }
            if self.ends_string(self.st.pos + close, self.st.str.ctx)? {
                let straight_open =
                    matches!(self.st.str.style, QuoteStyle::Double | QuoteStyle::Single);
                if (close == 1) != straight_open {
                    // repair: a typographic quote closes a straight-quoted string, or the reverse
                    self.record(RepairKind::CurlyQuotes, self.st.pos)?;
                }
                self.st.out.push(b'"');
                self.st.pos += close;
                return Ok(false);
            }
            let seen = self.st.str.quotes_seen + 1;
            if self.st.str.ctx == Ctx::Value && b == b'"' && self.top() == Some(Container::Object) {
                let (k, _) = self.input.peek_past_space(self.st.pos + 1);
                if let Some(cq) = self.st.str.comma_quote {
                    if cq.seen + 1 == seen && self.input.byte(k)? == Some(b':') {
                        // repair: `"a": "x, "b": 1` — the string should have ended before the comma.
                        // What was recorded past the comma (the quote taken as content) is taken back.
                        self.st.repairs.truncate(cq.repairs);
                        self.record(RepairKind::MissingQuote, cq.comma_at)?;
                        self.cut_output(cq.out_len);
                        self.st.out.push(b'"');
                        self.st.pos = cq.comma_at;
                        return Ok(false);
                    }
                }
                self.st.str.comma_quote = self.comma_before(self.st.pos).map(|c| CommaQuote {
                    out_len: self.st.out.len() - (self.st.pos - c),
                    comma_at: c,
                    repairs: self.st.repairs.len(),
                    seen,
                });
            }
            self.st.str.quotes_seen = seen;
            if b == b'"' {
                if !self.st.str.noted_quote {
                    // repair: an unescaped quote inside a string is content
                    self.record(RepairKind::UnescapedQuote, self.st.pos)?;
                    self.st.str.noted_quote = true;
                }
                self.st.out.extend_from_slice(b"\\\"");
            } else {
                copy_from(&mut self.st.out, s, self.st.pos..self.st.pos + close);
            }
            self.st.pos += close;
        }
    }

    /// The offset of a `,` that precedes `i` with only spaces between, if any.
    pub(super) fn comma_before(&self, i: usize) -> Option<usize> {
        let mut k = i;
        while k > 0 && self.input.bytes()[k - 1] == b' ' {
            k -= 1;
        }
        (k > 0 && self.input.bytes()[k - 1] == b',').then(|| k - 1)
    }

    /// An escape sequence at `pos` inside a string.
    pub(super) fn escape(&mut self) -> Step {
        let s = self.input.bytes();
        let at = self.st.pos;
        if !self.input.need(at + 1)? {
            // repair: a dangling backslash at the end of the input is dropped
            self.st.pos = self.input.end;
            return Ok(());
        }
        match s[at + 1] {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.st.out.extend_from_slice(&s[at..at + 2]);
                self.st.pos += 2;
            }
            b'\'' => {
                // repair: `\'` is not a JSON escape; the quote is content
                self.record(RepairKind::InvalidEscape, at)?;
                self.st.out.push(b'\'');
                self.st.pos += 2;
            }
            b'u' => {
                let hex_end = (at + 6).min(self.input.end);
                let hex = &s[at + 2..hex_end];
                let all_hex = hex.iter().all(u8::is_ascii_hexdigit);
                if all_hex && hex.len() == 4 {
                    self.st.out.extend_from_slice(&s[at..at + 6]);
                    self.st.pos += 6;
                } else if all_hex && hex_end == self.input.end {
                    // A stream may still bring the rest of the digits.
                    self.input.need(self.input.end)?;
                    // repair: a partial `\uXX` at the end of the input is dropped
                    self.st.pos = self.input.end;
                } else {
                    // repair: `\u` without four hex digits keeps its backslash
                    self.record(RepairKind::InvalidEscape, at)?;
                    self.st.out.extend_from_slice(b"\\\\");
                    self.st.pos += 1;
                }
            }
            _ => {
                // repair: an invalid escape such as `\d` or `D:\Projects` keeps its backslash
                self.record(RepairKind::InvalidEscape, at)?;
                self.st.out.extend_from_slice(b"\\\\");
                self.st.pos += 1;
            }
        }
        Ok(())
    }

    /// Whether a closing quote whose end is at `after` really ends the string: what follows must be a
    /// delimiter and then what the context expects next.
    pub(super) fn ends_string(&self, after: usize, ctx: Ctx) -> Result<bool, Stop> {
        let s = self.input.bytes();
        // The common cases, decided by the next byte alone.
        match s.get(after) {
            Some(b':') if ctx == Ctx::Key => return Ok(true),
            Some(b'}' | b']') => return Ok(true),
            _ if !self.input.need(after)? => return Ok(true),
            _ => {}
        }
        // After a string, `#` starts a comment as it does in skip_space.
        let (q, newline) = self.peek_past_space_and_comments(after, true)?;
        if !self.input.need(q)? {
            return Ok(true);
        }
        self.input.need_through(q + 2).or_else(|stop| {
            if matches!(s[q], b'`' | b'~') {
                Err(stop)
            } else {
                Ok(())
            }
        })?;
        if self.input.is_fence_at(q) {
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
    pub(super) fn continues_after_comma(&self, i: usize, ctx: Ctx) -> Result<bool, Stop> {
        let s = self.input.bytes();
        // After a comma in an object a key comes, and `#` starts a comment; in an array a value comes,
        // and `#` starts an unquoted value (`#fff`).
        let in_object = ctx == Ctx::Key || self.top() == Some(Container::Object);
        let (r, _) = self.peek_past_space_and_comments(i, in_object)?;
        if !self.input.need(r)? {
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
            self.input.need_through(r + 1)?;
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
    pub(super) fn is_ellipsis_item_ahead(&self, i: usize) -> Result<bool, Stop> {
        if !(matches!(self.input.bytes()[i], b'.' | 0xE2) && self.ellipsis_at(i)?) {
            return Ok(false);
        }
        let (r, _) = self
            .input
            .peek_past_space(i + ellipsis_len(self.input.bytes(), i));
        Ok(matches!(
            self.input.byte(r)?,
            None | Some(b',' | b']' | b'}')
        ))
    }

    /// Whether a whole bare word stands at `i` as an array item (`["a", active]`, `["x", #fff]`): it runs
    /// to a `,` or `]`. A word that runs on into more text (`["a "b", c d"]`) is not one.
    pub(super) fn is_bare_item_ahead(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.bytes();
        if !(is_ident_start(s[i]) || s[i] == b'#') {
            return Ok(false);
        }
        let mut k = i + 1;
        while self
            .input
            .byte(k)?
            .is_some_and(|b| is_word_byte(b) || b == b'#')
        {
            k += 1;
        }
        let (r, _) = self.input.peek_past_space(k);
        Ok(matches!(self.input.byte(r)?, None | Some(b',' | b']')))
    }

    /// Whether a JSON or Python keyword stands at `i` as a whole word.
    pub(super) fn keyword_at(&self, i: usize) -> Result<bool, Stop> {
        // The longest keyword, `undefined`, and the byte after it.
        self.input.need_through(i + 9).or_else(|stop| {
            // Only a text that could still become a keyword needs to wait.
            let seen = &self.input.bytes()[i..self.input.end];
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
            starts_with_at(self.input.bytes(), i, kw)
                && !self
                    .input
                    .bytes()
                    .get(i + kw.len())
                    .is_some_and(|&c| is_word_byte(c))
        }))
    }

    /// Whether `+` at `i` joins two strings: `"a" + "b"`.
    pub(super) fn is_concatenation(&self, i: usize) -> Result<bool, Stop> {
        let (r, _) = self.input.peek_past_space(i + 1);
        Ok(self.input.need(r)? && quote_at(self.input.bytes(), r).is_some())
    }

    /// After a value string: repair string concatenation, `"a" + "b"` becomes `"ab"`; otherwise the
    /// value is complete.
    #[inline]
    pub(super) fn after_string(&mut self) -> Step {
        // Most strings are followed directly by a delimiter: no concatenation to look for.
        if !matches!(
            self.input.bytes().get(self.st.pos),
            Some(b',' | b'}' | b']' | b':')
        ) {
            let (q, _) = self.input.peek_past_space(self.st.pos);
            if self.input.byte(q)? == Some(b'+') {
                let (r, _) = self.input.peek_past_space(q + 1);
                if let Some(quote) = self
                    .input
                    .need(r)?
                    .then(|| quote_at(self.input.bytes(), r))
                    .flatten()
                {
                    self.record(RepairKind::StringConcatenation, q)?;
                    self.st.pos = r;
                    self.st.out.pop();
                    return self.open_string(quote, Ctx::Value, true);
                }
            }
        }
        self.value_done();
        Ok(())
    }
}
