//! Strings: their content, escapes, and whether a quote ends one.

use super::*;

/// Bytes that interrupt the bulk copy of string content: for `"`-delimited strings, and with `quote`
/// for those delimited by `'` or `` ` ``.
const fn special_table(quote: u8) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[0xE2] = true;
    t[quote as usize] = true;
    // The acute accent that may close a backtick string (`closer_len`).
    if quote == b'`' {
        t[0xC2] = true;
    }
    t
}
pub(super) static SPECIAL_DOUBLE: [bool; 256] = special_table(b'"');
pub(super) static SPECIAL_SINGLE: [bool; 256] = special_table(b'\'');
static SPECIAL_BACKTICK: [bool; 256] = special_table(b'`');

/// Whether `b` after a backslash makes a two-character JSON escape (`\\n`, `\\"`, …).
#[inline(always)]
pub(super) fn is_short_escape(b: u8) -> bool {
    matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

/// Whether `b`, the first byte past the spaces after a typographic quote in a straight-quoted string, may
/// let that quote close the string: a delimiter, `+` or the start of a fence.
pub(super) fn may_follow_closing_typographic(b: u8) -> bool {
    matches!(b, b',' | b'}' | b']' | b':' | b')' | b'+' | b'`' | b'~')
}

/// The most bytes of closers and spaces at the end of a string that [`Parser::closers_at_end`] reads
/// as the containers' closers; streams hold back as much (see [`held_tail`]).
const TAIL_MAX: usize = 16;

/// How a string counts the quotes it takes as content (`quotes_seen`): a straight double quote adds 1, any
/// other [`OTHER_QUOTE`] (a typographic one, an apostrophe in a single-quoted string), so that
/// `quotes_seen & STRAIGHT` is non-zero once a straight double quote was taken, as code pasted without
/// escaping writes them (the others are prose's). Wrapping: a count that overflows only blurs a heuristic.
const STRAIGHT: usize = 0xFFFF;
const OTHER_QUOTE: usize = 0x1_0000;

/// How many bytes `content` (a comma, spaces and line breaks) took in the output, where a line break is
/// written `\n`.
fn written_len(content: &[u8]) -> usize {
    content.len() + content.iter().filter(|&&b| b == b'\n').count()
}

/// How many bytes at the end of a value string's output so far a stream holds back: with `end` `}`,
/// closers, spaces, line breaks and backticks that the end of the input would make the containers'
/// closers or a closing fence (see [`Parser::closers_at_end`]); with `end` `,`, a comma and the spaces
/// and line breaks after it, where the next quote may end the string (see [`Parser::comma_before`]). An
/// escaped backslash before `n`, read as a line break, only holds back more.
pub(super) fn held_tail(out: &[u8], end: u8) -> usize {
    let mut k = out.len();
    while out.len() - k < 2 * TAIL_MAX {
        match out.get(k.wrapping_sub(1)) {
            Some(&b) if b == end => {
                if end == b',' {
                    return out.len() - k + 1;
                }
                k -= 1;
            }
            // Backticks: a closing fence the end of the input would cut off (see `closers_at_end`).
            Some(b']' | b'`') if end == b'}' => k -= 1,
            Some(b' ') => k -= 1,
            Some(b'n') if out.get(k.wrapping_sub(2)) == Some(&b'\\') => k -= 2,
            _ => break,
        }
    }
    if end == b',' {
        0
    } else {
        out.len() - k
    }
}

impl Parser<'_> {
    /// Opens a string at `pos`. With `continued`, the previous string's closing quote was removed and
    /// this one's content is appended to it.
    #[inline(never)]
    pub(super) fn open_string(
        &mut self,
        quote: (QuoteStyle, usize),
        ctx: Ctx,
        continued: bool,
    ) -> Step {
        let (style, qlen) = quote;
        match style {
            QuoteStyle::Double => {}
            // repair: `` `text` ``, a JavaScript template string
            QuoteStyle::Single | QuoteStyle::Backtick => {
                self.record(RepairKind::SingleQuotes, self.st.pos)?
            }
            // repair: `{location:<|"|>Paris<|"|>}`, a string between quote tokens
            // repair: `"code": ```python⏎…⏎```,`, a fenced code block as a value
            QuoteStyle::GemmaToken | QuoteStyle::EscapeToken | QuoteStyle::Fence => {
                self.record(RepairKind::QuoteToken, self.st.pos)?
            }
            // repair: `"""text"""`, a Python triple-quoted string
            QuoteStyle::TripleQuote => self.record(RepairKind::PythonLiteral, self.st.pos)?,
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

    /// [`Self::string_content`] between quote tokens (a model's, Python's `"""`, a value's fences):
    /// everything up to the closing token is content as it stands, escaped as JSON (backslashes, quotes
    /// and line breaks too).
    #[cold]
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn token_content(&mut self) -> Result<bool, Stop> {
        let s = self.input.seen();
        let style = self.st.str.style;
        let token = QUOTE_TOKENS[style as usize - QuoteStyle::GemmaToken as usize];
        // A fence's lines are read a line at a time.
        let first = if style == QuoteStyle::Fence {
            b'\n'
        } else {
            token[0]
        };
        loop {
            let run = self.st.pos;
            self.st.pos = s.run(run, |b| b != first);
            escape_into(&mut self.st.out, s.span(run, self.st.pos));
            let truncated = s.at(self.st.pos)?.is_none();
            // A fence closes at the start of a line, after its indentation; the line break before it is
            // not content.
            let mut at = self.st.pos;
            if first == b'\n' && !truncated {
                at += 1;
                while matches!(s.at(at)?, Some(b' ' | b'\t')) {
                    at += 1;
                }
            }
            if truncated || s.is_at(at, token)? {
                if !truncated {
                    self.st.pos = at + token.len();
                } else if self.st.str.ctx == Ctx::Value {
                    // repair: the input ends inside the string
                    self.record(RepairKind::TruncatedString, self.st.pos)?;
                }
                self.st.out.push(b'"');
                return Ok(truncated);
            }
            escape_into(&mut self.st.out, &[first]);
            self.st.pos += 1;
        }
    }

    /// At the end of the input inside a value string: when the string's last bytes are closers of the open
    /// containers, innermost first, with only spaces and line breaks around them (`{"a": "b}`, `["x ]`),
    /// and the string opened no bracket of its own, they close the containers and the quote before them is
    /// missing. So is it before a closing fence the string ends in, whose opening one is missing before
    /// the source (`{"a": "b```, `{"a": "b}```), unless the content opened a block of its own. Ends the
    /// string there and returns true; the parser reads what follows next.
    #[cold]
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn closers_at_end(&mut self, end: usize) -> Result<bool, Stop> {
        if self.st.str.ctx != Ctx::Value {
            return Ok(false);
        }
        let s = self.input.seen();
        let out = &self.st.out;
        let item = self.st.stack.last().map_or(out.len(), |f| f.item_out);
        // Back over spaces and line breaks, in the input and in the output (a line break is written
        // `\n` there), or closers too, while the run is short.
        let back = |(mut from, mut o): (usize, usize), closers: bool| loop {
            match from.checked_sub(1).map(|i| s[i]) {
                Some(b @ (b'}' | b']')) if closers && out.get(o.wrapping_sub(1)) == Some(&b) => {
                    o -= 1
                }
                Some(b' ') if out.get(o.wrapping_sub(1)) == Some(&b' ') => o -= 1,
                Some(b'\n') if out.get(o.wrapping_sub(2)..o) == Some(b"\\n") => o -= 2,
                _ => return (from, o),
            }
            from -= 1;
            if end - from > TAIL_MAX {
                return (from, o);
            }
        };
        let (f, o) = back((end, out.len()), false);
        let fence = (f >= 3
            && s.span(f - 3, f) == b"```"
            && out.get(o.wrapping_sub(3)..o) == Some(b"```")
            && fence_in(out.get(item..o - 3).unwrap_or_default()).is_none())
        .then(|| (f - 3, o - 3));
        let (from, o) = back(fence.unwrap_or((end, out.len())), true);
        // Forward, each closer closes the next container out, innermost first.
        let until = fence.map_or(end, |(f, _)| f);
        let mut depth = self.st.stack.len();
        let mut fits = end - from <= TAIL_MAX;
        for &b in s.span(from, until) {
            if matches!(b, b'}' | b']') {
                depth = depth.wrapping_sub(1);
                fits &= self.st.stack.get(depth).is_some_and(|f| f.closed_by(b));
            }
        }
        let inner = out.get(item..o).unwrap_or_default();
        fits &= depth < self.st.stack.len() && !inner.iter().any(|&b| b == b'{' || b == b'[');
        let Some((from, o)) = (if fits { Some((from, o)) } else { fence }) else {
            return Ok(false);
        };
        self.take_back_repairs(from);
        // repair: `{"a": "b}`: the closing quote is missing before the closers that end the input
        self.record(RepairKind::MissingQuote, from)?;
        self.cut_output(o);
        self.st.out.push(b'"');
        self.st.pos = from;
        Ok(true)
    }

    /// Reads string content up to the closing quote (or the end of the input), then moves on: a key
    /// to its colon (or is dropped when the input ended inside it), a value to `AfterString`.
    #[inline]
    pub(super) fn string_body(&mut self) -> Step {
        let truncated = self.string_content()?;
        // What the content counted is this string's: the rule for a quote outside any string (a
        // bare word's, the fast lane's) counts none.
        self.st.str.quotes_seen = 0;
        self.st.str.inner_open = 0;
        match self.st.str.ctx {
            Ctx::Key if truncated => {
                if self.key_holds_value(self.st.pos)? {
                    return Ok(());
                }
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
        let s = self.input.seen();
        let style = self.st.str.style;
        if matches!(
            style,
            QuoteStyle::GemmaToken
                | QuoteStyle::EscapeToken
                | QuoteStyle::TripleQuote
                | QuoteStyle::Fence
        ) {
            return self.token_content();
        }
        let single = matches!(style, QuoteStyle::Single | QuoteStyle::CurlySingle);
        let table = match style {
            _ if single => &SPECIAL_SINGLE,
            QuoteStyle::Backtick => &SPECIAL_BACKTICK,
            _ => &SPECIAL_DOUBLE,
        };
        loop {
            let run = self.st.pos;
            // The word-at-a-time scan knows the straight quotes only.
            if style != QuoteStyle::Backtick {
                self.st.pos = s.skip_plain_string(self.st.pos, single);
            }
            self.st.pos = s.run(self.st.pos, |b| !table[b as usize]);
            // What has arrived is content, whether the string ends here or the stream goes on.
            s.copy(&mut self.st.out, run, self.st.pos);
            let Some(b) = s.at(self.st.pos)? else {
                let mut end = self.st.pos;
                if let Some((out_len, at)) = self.st.str.fence_cut {
                    self.cut_output(out_len);
                    self.input.cut_at(at);
                    (end, self.st.pos) = (at, at);
                }
                if self.st.str.fence_cut.is_none() && self.closers_at_end(end)? {
                    return Ok(true);
                }
                // repair: the input ends inside the string
                if self.st.str.ctx == Ctx::Value {
                    self.record(RepairKind::TruncatedString, end)?;
                }
                self.st.out.push(b'"');
                return Ok(true);
            };
            if b == b'\\' {
                self.escape()?;
                continue;
            }
            if b < 0x20 {
                if b == b'\n' && self.st.str.fence_cut.is_none() && self.input.fenced_source() {
                    let (k, _) = self.input.peek_past_space(self.st.pos + 1);
                    if s.fence_at(k)? {
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
            let close = s.closer_len(self.st.str.style, self.st.curly_closes, self.st.pos);
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
            let straight_open = matches!(
                style,
                QuoteStyle::Double | QuoteStyle::Single | QuoteStyle::Backtick
            );
            // A typographic quote closes a straight-quoted string only before what may end one.
            let typographic = close == 3 && straight_open;
            let closes = (!typographic || self.typographic_may_close(self.st.pos + close)?)
                && self.ends_string(self.st.pos + close, self.st.str.ctx)?
                && !(typographic && self.closes_own_opener(self.st.pos));
            if let Some(cq) = self.st.str.comma_quote {
                // The quote after a `, "` in this string opened the next item if this one closes that
                // item (`["apple, "pear"]`) or its key (`{"a": "x, "b": 1}`): the string should have
                // ended before the comma.
                let split = if self.top() == Some(Container::Object) {
                    !closes
                        && b == b'"'
                        && self.st.str.inner_open == 0
                        && s.at(self.input.peek_past_space(self.st.pos + 1).0)? == Some(b':')
                } else {
                    closes
                };
                if split && cq.seen == self.st.str.quotes_seen {
                    return self.end_before_comma(cq);
                }
            }
            if closes {
                if (close == 1) != straight_open {
                    // repair: a typographic quote closes a straight-quoted string, or the reverse
                    self.record(RepairKind::CurlyQuotes, self.st.pos)?;
                }
                self.st.out.push(b'"');
                self.st.pos += close;
                return Ok(false);
            }
            if self.st.str.ctx == Ctx::Key
                && close == 1
                && s[self.st.pos - 1] == b':'
                && self.st.out.last() == Some(&b':')
            {
                // repair: `{"key:"value"}`: the key's closing quote and the value's opening one are
                // missing around its colon. The colon is read again after the key.
                self.st.pos -= 1;
                self.record(RepairKind::MissingQuote, self.st.pos)?;
                self.st.out.pop();
                self.st.out.push(b'"');
                return Ok(false);
            }
            // CSV doubles a quote inside a quoted field (`"say ""hi"" now"`): the pair is one quote of the
            // content, unless its second quote ends the string.
            let doubled = b == b'"'
                && s.at(self.st.pos + 1)? == Some(b'"')
                && !self.ends_string(self.st.pos + 2, self.st.str.ctx)?;
            // Straight double quotes count in the low bits (see `STRAIGHT`).
            let seen =
                self.st
                    .str
                    .quotes_seen
                    .wrapping_add(if b == b'"' { 1 } else { OTHER_QUOTE });
            if self.st.str.ctx == Ctx::Value && b == b'"' && self.st.str.inner_open == 0 {
                self.st.str.comma_quote = self.comma_before(self.st.pos).map(|c| CommaQuote {
                    out_len: self.st.out.len() - written_len(s.span(c, self.st.pos)),
                    comma_at: c,
                    seen,
                });
            }
            self.st.str.quotes_seen = seen;
            // Only a straight quote pastes code: a typographic one after a bracket is prose.
            if self.st.str.ctx == Ctx::Value && close == 1 {
                if self.opens_before(self.st.pos) {
                    if self.st.str.inner_open == 0 {
                        self.input.open_inner(self.st.pos);
                    }
                    self.st.str.inner_open += 1;
                } else if self.st.str.inner_open > 0
                    && matches!(s.at(self.st.pos + close), Ok(Some(b'}' | b']')))
                {
                    // The closer after this quote closes a bracket of the content.
                    self.st.str.inner_open -= 1;
                }
            }
            if b == b'"' {
                if !self.st.str.noted_quote {
                    // repair: an unescaped quote inside a string is content
                    self.record(RepairKind::UnescapedQuote, self.st.pos)?;
                    self.st.str.noted_quote = true;
                }
                self.st.out.extend_from_slice(b"\\\"");
            } else {
                s.copy(&mut self.st.out, self.st.pos, self.st.pos + close);
            }
            self.st.pos += close + doubled as usize;
        }
    }

    /// The byte that precedes `i` with only spaces and line breaks between, and its offset.
    pub(super) fn before_spaces(&self, i: usize) -> Option<(usize, u8)> {
        let s = self.input.seen();
        let mut k = i;
        while k > 0 && matches!(s[k - 1], b' ' | b'\n') {
            k -= 1;
        }
        (k > 0).then(|| (k - 1, s[k - 1]))
    }

    /// The offset of a `,` that precedes `i` with only spaces and line breaks between, if any.
    pub(super) fn comma_before(&self, i: usize) -> Option<usize> {
        self.before_spaces(i)
            .and_then(|(k, b)| (b == b',').then_some(k))
    }

    /// Forgets the repairs recorded at `from` or after: the parser reads that input again (a quote or a
    /// line break it took as a string's content).
    fn take_back_repairs(&mut self, from: usize) {
        while self.st.repairs.last().is_some_and(|r| r.offset >= from) {
            self.st.repairs.pop();
        }
    }

    /// Ends the string before the comma of `cq`, where it should have ended; what was recorded past the
    /// comma (a quote taken as content) is taken back, and the parser reads on from the comma.
    #[cold]
    #[inline(never)]
    fn end_before_comma(&mut self, cq: CommaQuote) -> Result<bool, Stop> {
        self.take_back_repairs(cq.comma_at);
        self.record(RepairKind::MissingQuote, cq.comma_at)?;
        self.cut_output(cq.out_len);
        self.st.out.push(b'"');
        self.st.pos = cq.comma_at;
        Ok(false)
    }

    /// An escape sequence at `pos` inside a string.
    pub(super) fn escape(&mut self) -> Step {
        let s = self.input.seen();
        let at = self.st.pos;
        let Some(code) = s.at(at + 1)? else {
            // repair: a dangling backslash at the end of the input is dropped
            self.st.pos = at + 1;
            return Ok(());
        };
        match code {
            _ if is_short_escape(code) => {
                self.st.out.extend_from_slice(s.span(at, at + 2));
                self.st.pos += 2;
            }
            b'\'' | b'`' if code == b'\'' || self.st.str.style == QuoteStyle::Backtick => {
                // repair: `\'` is not a JSON escape, nor `\`` in a template string; the quote is content
                self.record(RepairKind::InvalidEscape, at)?;
                self.st.out.push(code);
                self.st.pos += 2;
            }
            b'u' => {
                // The hex digits that follow, up to four; a stream may still bring the rest.
                let mut hex_end = at + 2;
                while hex_end < at + 6 && s.at(hex_end)?.is_some_and(|b| b.is_ascii_hexdigit()) {
                    hex_end += 1;
                }
                if hex_end == at + 6 {
                    self.st.out.extend_from_slice(s.span(at, at + 6));
                    self.st.pos += 6;
                } else if !s.has(hex_end)? {
                    // repair: a partial `\uXX` at the end of the input is dropped
                    self.st.pos = hex_end;
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

    /// Whether a typographic quote that would close a straight-quoted string, ending at `after`, stands
    /// before what may end one (SPEC §3: "followed by a delimiter"): `,` `}` `]` `:` `)`, `+`, a fence or
    /// a line break. Before anything else (`"say “yes” “no” twice"`, `'it’s'`) it is content, whatever a
    /// straight quote there would be; `ends_string` decides the rest. At the end of the input it is
    /// content too: the string was cut off after it (`"the “ready” `).
    pub(super) fn typographic_may_close(&self, after: usize) -> Result<bool, Stop> {
        let (q, newline) = self.peek_past_space_and_comments(after, true)?;
        Ok(newline
            || self
                .input
                .seen()
                .at(q)?
                .is_some_and(may_follow_closing_typographic))
    }

    /// Whether the typographic closing quote at `at` in a straight-quoted string closes one the content
    /// opened: the nearest typographic quote of its kind before it opens (`"a “b”, “c”"`, where `”, ` may
    /// otherwise end the string), with no straight quote of the string's kind between. Each search stops
    /// at the quote before it, so a string's searches read it once. Asked last, when nothing else keeps
    /// the quote in the string, so a stream waiting on what follows does not search again.
    #[inline(never)]
    fn closes_own_opener(&self, at: usize) -> bool {
        let s = self.input.seen().span(0, at);
        let (opener, own) = if self.input.seen()[at + 2] == RDQUO[2] {
            (LDQUO[2], b'"')
        } else {
            (LSQUO[2], b'\'')
        };
        for k in (0..at).rev() {
            let b = s[k];
            if b == own {
                return false;
            }
            // `“` or `”` for a `”`, `‘` or `’` for a `’`: the other kind's quotes are content.
            if k >= 2 && s[k - 2] == 0xE2 && s[k - 1] == 0x80 && b | 1 == opener | 1 {
                return b == opener;
            }
        }
        false
    }

    /// Whether a closing quote whose end is at `after` really ends the string: what follows must be a
    /// delimiter and then what the context expects next.
    pub(super) fn ends_string(&self, after: usize, ctx: Ctx) -> Result<bool, Stop> {
        let s = self.input.seen();
        // The common cases, decided by the next byte alone.
        match s.at(after)? {
            Some(b':') if ctx == Ctx::Key => return Ok(true),
            Some(c @ (b'}' | b']')) => return self.closer_ends_string(after, c, after),
            None => return Ok(true),
            _ => {}
        }
        // After a string, `#` starts a comment as it does in skip_space.
        let (q, newline) = self.peek_past_space_and_comments(after, true)?;
        if !s.has(q)? {
            return Ok(true);
        }
        let (next, width) = s.punct(q);
        if matches!(next, b'`' | b'~') && s.fence_at(q)? {
            return Ok(true);
        }
        let spaced = q > after;
        // A typographic quote that would close a straight-quoted string is prose's unless a delimiter
        // follows: another typographic quote after it (`the “ready”\n“ready” module`) or words on the
        // next line do not end the string.
        let prose = s[after - 1] >= 0x80
            && matches!(self.st.str.style, QuoteStyle::Double | QuoteStyle::Single);
        Ok(match next {
            b':' => ctx == Ctx::Key || self.key_in_value_place(q + width)?,
            b'}' | b']' => self.closer_ends_string(q, next, after)?,
            // Inside a bracket the content opened, a comma is the pasted value's (`"{"a": 1, "b": 2}"`);
            // not once the content closed it again (`"x = {"a": 1}; f(x["a"])", "b": 2`).
            b',' => {
                (self.st.str.inner_open == 0 || self.input.inner_depth(after - 1) == 0)
                    && self.continues_after_comma(q + width, ctx)?
            }
            b')' => self.in_parens(),
            b'+' => ctx == Ctx::Value && self.is_concatenation(q)?,
            // A key written with `=` or `=>` for its colon (`{"a" = 1}`), as `after_key` reads it.
            b'=' if ctx == Ctx::Key => true,
            // A quote right after it starts the next key when a key follows (`"x""b": 1`: a comma
            // missing between members); else the two are content (`""` doubled as in CSV), and so is
            // the first of two before the end of the object or the input, the second closing the
            // string (`{"q": ""Run!""}`), not a key cut off after its opening quote. A key the input
            // ends in does not count: quotes doubled in a string whose kind of quote the rest of the
            // text never closes (`{"t": 'F'', "a": 1}`) would make the members after it that key.
            _ if s.quote_at(q).is_some() => {
                if prose {
                    spaced && s[q] < 0x80
                } else if ctx == Ctx::Value && self.top() == Some(Container::Object) {
                    (spaced || !matches!(self.punct_after(q)?, None | Some(b'}' | b']')))
                        && self.key_ahead(q, false)?
                } else {
                    spaced
                }
            }
            // A key followed by a value with no colon between: `{"a" 1}`.
            b if ctx == Ctx::Key && spaced && self.value_starts_at(q, b)? => true,
            // A key or an array's item followed by a whole value with no colon or comma between:
            // `{"a"2}`, `["a" 2]`. Prose goes on after its number (`"say "hi" 2 times"`), and code
            // after a bracket in an object's value, where no key follows (`"print(f"{x}")"`). In a
            // list's record, the next record follows where its `},` is missing, on a line of its own
            // or starting with the record's first key, unless straight quotes taken as content make
            // the string code.
            b if (ctx == Ctx::Key
                || self.st.str.quotes_seen == 0
                    && !(self.top() == Some(Container::Object) && matches!(b, b'{' | b'['))
                || b == b'{'
                    && self.st.str.quotes_seen & STRAIGHT == 0
                    && self.record_follows(q, newline)?
                || matches!(
                    self.top(),
                    Some(Container::Array | Container::Wrapper | Container::Tuple | Container::Set)
                ))
                && self.whole_value_at(q, b, newline)? =>
            {
                true
            }
            _ if ctx == Ctx::Key || prose => false,
            _ => {
                (newline && self.top() == Some(Container::Object) && self.is_key_ahead(q)?)
                    || self.is_ellipsis_item_ahead(q)?
                    // An array's item followed by bare words up to a `,` or `]` (`["a" b, "c"]`),
                    // unless quotes taken as content before make it prose (`["the "best" one]`).
                    || (spaced
                        && self.st.str.quotes_seen == 0
                        && self.top() == Some(Container::Array)
                        && self.is_bare_item_ahead(q, true)?)
            }
        })
    }

    /// Whether the `{` at `q` after a string in a list's record (or an object inside one) starts the
    /// list's next record: on a line of its own (`line`), or with the first key of the record it follows.
    #[inline(never)]
    fn record_follows(&self, q: usize, line: bool) -> Result<bool, Stop> {
        let objects = self.objects_above_list();
        if objects == 0 {
            return Ok(false);
        }
        let (r, _) = self.input.peek_past_space(q + 1);
        Ok(line || self.repeats_key(r, self.st.stack.len() - 1 - objects)?)
    }

    /// The punctuation after the quote or the byte at `q`, past spaces (`None` at the end of the input).
    #[cfg_attr(shipped, optimize(size))]
    fn punct_after(&self, q: usize) -> Result<Option<u8>, Stop> {
        let s = self.input.seen();
        let width = s.quote_at(q).map_or(1, |(_, w)| w);
        let (r, _) = self.input.peek_past_space(q + width);
        s.punct_at(r)
    }

    /// Whether a quote followed by the closer `c` at `at` ends the string. It does when the closer closes
    /// the innermost container, unless the string's content holds brackets open since one just before a
    /// quote taken as content ([`Input::inner_depth`]): then the closers after the quote are the
    /// content's, as many as it holds open, and it ends only if the end of the input or a closer of the
    /// innermost container follows them (`"see {"b": "c"}, ok"` goes on). A closer that
    /// closes no open container, or one below the innermost (the brackets around it left open), ends it
    /// unless text goes on after the closer on the same line up to another quote (`{"re": "x"] y"}`, and
    /// `[{"re": "['"]+"}]`, a regular expression's character class): then the quote is content. A
    /// closer below the innermost still ends it before a line break, a comma, a closer, a colon or a
    /// quote that opens what comes next (`{"a": ["x", "y"}, "b": 1}`, `{"a": ["y"} "b": 1}`). The quote
    /// ends just before `quote_end`.
    #[inline(always)]
    fn closer_ends_string(&self, at: usize, c: u8, quote_end: usize) -> Result<bool, Stop> {
        if self.st.str.inner_open == 0 && self.closes_top(c) {
            return Ok(true);
        }
        self.closer_ends_string_slow(at, c, quote_end)
    }

    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn closer_ends_string_slow(&self, at: usize, c: u8, quote_end: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let (mut r, newline) = self.input.peek_past_space(at + 1);
        // The brackets the content holds open (none once it closed them again).
        let mut inner = match self.st.str.inner_open {
            0 => 0,
            _ => self.input.inner_depth(quote_end - 1),
        };
        if inner > 0 {
            // The closers the content's brackets may take, then what follows them: the end, or the
            // closer of the string's container (not the `]` of code's `[{"a": "b"}]` in an object,
            // whose `[` came before the quote that was counted from).
            while inner > 1 && matches!(s.at(r)?, Some(b'}' | b']')) {
                inner -= 1;
                r = self.input.peek_past_space(r + 1).0;
            }
            return Ok(s.at(r)?.map_or(true, |c| self.closes_top(c)));
        }
        if self.closes_top(c) || matches!(s.punct_at(r)?, None | Some(b',' | b'}' | b']')) {
            return Ok(true);
        }
        if self.open_closed_by(c).is_some() {
            if newline || s[r] == b':' {
                return Ok(true);
            }
            if s.quote_at(r).is_some() {
                // A quote right after the closer opens the next key or item (`"y"} "b": 1`), unless a
                // comma or a closer follows it: then it is this string's (`"['"]"}`).
                return Ok(!matches!(self.punct_after(r)?, Some(b',' | b'}' | b']')));
            }
        }
        let k = s.scan(r, |b| b != b'"' && b != b'\n')?;
        Ok(s.at(k)? != Some(b'"'))
    }

    /// Whether a value string followed by a colon is a key standing where a value does, so that the quote
    /// before the colon ends it: an array's item (`["name": "Ada"]`, a record whose braces are missing),
    /// or a member's key written again as its value (`{"k": "k": "v"}`). `after` is past the colon, where
    /// a value must start. A quote taken as content before it (`["say "x": y"]`) makes it prose.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn key_in_value_place(&self, after: usize) -> Result<bool, Stop> {
        let fits = match self.top() {
            Some(Container::Array) => self.st.str.quotes_seen == 0,
            Some(Container::Object) => self.echoes_key(false),
            _ => false,
        };
        if !fits {
            return Ok(false);
        }
        let (r, _) = self.input.peek_past_space(after);
        Ok(!matches!(
            self.input.seen().punct_at(r)?,
            Some(b',' | b':' | b'}' | b']')
        ))
    }

    /// Whether the value string of the current member repeats its key: the output since the member began
    /// is `"k":"k` (`closed`: and the value's closing quote).
    #[inline(never)]
    pub(super) fn echoes_key(&self, closed: bool) -> bool {
        let out = &self.st.out;
        let from = self.st.stack.last().map_or(out.len(), |f| f.item_out);
        let m = out
            .get(from..out.len() - closed as usize)
            .unwrap_or_default();
        let m = m.strip_prefix(b",").unwrap_or(m);
        let l = m.len() / 2;
        l > 1
            && m.len() % 2 == 0
            && m.get(l - 1..l + 1) == Some(b"\":")
            && m.get(..l - 1) == m.get(l + 1..)
    }

    /// Whether a `{` or `[` stands just before `i` (past spaces and line breaks), or before what code
    /// writes between it and a quote: a string's prefix (`[f"{x}"]`, `[rb"`) or a bare key and its colon
    /// (`{method: "POST"}`).
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn opens_before(&self, i: usize) -> bool {
        let s = self.input.seen();
        let back = |mut k: usize, f: fn(u8) -> bool| {
            while k > 0 && f(s[k - 1]) {
                k -= 1;
            }
            k
        };
        let spaces = |b: u8| matches!(b, b' ' | b'\n');
        let mut k = back(i, spaces);
        let colon = k > 0 && s[k - 1] == b':';
        if colon {
            k = back(k - 1, spaces);
        }
        let word = back(k, |b| b.is_ascii_alphanumeric() || b == b'_');
        // A key before its colon, or one or two letters right before the quote.
        if colon || (k == i && word + 2 >= k) {
            k = back(word, spaces);
        }
        k > 0 && matches!(s[k - 1], b'{' | b'[')
    }

    /// Whether a value that is not a string stands whole at `q`, whose byte is `b`: a `[`, a `{` before
    /// a key or its `}`, or a number or keyword followed by `,`, `]`, `}` or the end, or with `line`
    /// (it starts a line) by a line break: items on lines of their own, their commas missing.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn whole_value_at(&self, q: usize, b: u8, line: bool) -> Result<bool, Stop> {
        if !self.value_starts_at(q, b)? {
            return Ok(false);
        }
        if b == b'[' {
            return Ok(true);
        }
        if b == b'{' {
            // An object: empty, or a key first (not code's `{x}`, as in `f"{x}"`), comments before it
            // skipped.
            let (r, _) = self.peek_past_space_and_comments(q + 1, true)?;
            return Ok(self.input.seen().at(r)? == Some(b'}') || self.is_key_ahead(r)?);
        }
        self.value_ends_at(self.word_end(q)?, line)
    }

    /// Whether a value that ends at `e` is followed by `,`, `]`, `}` or the end, or with `line` by a line
    /// break.
    #[inline(never)]
    pub(super) fn value_ends_at(&self, e: usize, line: bool) -> Result<bool, Stop> {
        let (r, newline) = self.input.peek_past_space(e);
        Ok(line && newline
            || matches!(
                self.input.seen().punct_at(r)?,
                None | Some(b',' | b']' | b'}')
            ))
    }

    /// Whether a value that is not a string starts at `q`, whose byte is `b`: a bracket, a number or a
    /// keyword.
    pub(super) fn value_starts_at(&self, q: usize, b: u8) -> Result<bool, Stop> {
        Ok(matches!(b, b'{' | b'[') || b.is_ascii_digit() || b == b'-' || self.keyword_at(q)?)
    }

    /// After a comma that may end a string: does what follows continue the container?
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn continues_after_comma(&self, i: usize, ctx: Ctx) -> Result<bool, Stop> {
        let s = self.input.seen();
        // After a comma in an object a key comes, and `#` starts a comment; in an array a value comes,
        // and `#` starts an unquoted value (`#fff`).
        let in_object = ctx == Ctx::Key || self.top() == Some(Container::Object);
        let (mut r, _) = self.peek_past_space_and_comments(i, in_object)?;
        // Commas doubled after it (`"a",, "b"`) are dropped as redundant: what follows them decides.
        while s.has(r)? && s.punct(r).0 == b',' {
            r = self
                .peek_past_space_and_comments(r + s.punct(r).1, in_object)?
                .0;
        }
        // The prefix of a Python string (`, u'b'`) before the next item: its quote decides.
        r += usize::from(self.string_prefix_at(r, in_object)?);
        let Some(b) = s.at(r)? else {
            return Ok(true);
        };
        if self.is_ellipsis_item_ahead(r)? {
            return Ok(true);
        }
        // A closing fence ends the source, also right after the quote or the sign of the next item
        // (`"a", "```, `"a", -```).
        let q = r + usize::from(matches!(b, b'"' | b'-'));
        if s.at(q)? == Some(b'`') && s.fence_at(q)? {
            return Ok(true);
        }
        // A closer, of the innermost container or of one around it whose own closer is missing
        // (`{"tags": ["a", "b",}`): read as right after the quote.
        if matches!(b, b'}' | b']') {
            return self.closer_ends_string_slow(r, b, i);
        }
        if in_object {
            let member = b == b'}' || self.is_key_ahead(r)? || self.member_string_at(r)?;
            // In a record opened around a key in an array, the array's next item may follow instead;
            // so may it after an object in a list whose `}` is missing (`[{"i": "x", {"i": "y"}]`,
            // `[{"i": "x", 2]`), or in an object inside such a record, both `}` missing
            // (`[{"a": {"i": "x", {"a": …`), unless a straight quote taken as content makes it code
            // (`[{"code": "fetch("/api", {method: "POST"})"}]`).
            if member || ctx == Ctx::Key || self.st.implicit != self.st.stack.len() {
                if self.st.str.quotes_seen & STRAIGHT == 0
                    && self.objects_above_list() > 0
                    && self.whole_value_at(r, b, false)?
                {
                    return Ok(true);
                }
                return Ok(member);
            }
        }
        Ok(s.quote_at(r).is_some()
            || matches!(b, b'{' | b'[' | b']' | b'`')
            || (matches!(b, b'(' | b')' | b'}')
                && matches!(self.top(), Some(Container::Tuple | Container::Set)))
            || (matches!(b, b'(' | b')') && self.top() == Some(Container::Call))
            || b.is_ascii_digit()
            // A sign the input ends after is a number cut off (`["a", -`).
            || (b == b'-' && s.at(r + 1)?.map_or(true, |b| b.is_ascii_digit()))
            || self.keyword_at(r)?
            || self.is_bare_item_ahead(r, false)?
            // A keyword argument after a positional one (`f("x", tz=None)`).
            || (self.in_parens() && self.keyword_argument_at(r)?))
    }

    /// Whether a member written as one double-quoted string with its colon inside stands at `i`, up to a
    /// `,`, a `}` or the end (`{"city": "Lisbon", "weather:sunny"}`), as `key_holds_value` reads it; or,
    /// in an object that is a list's item, a string up to a `]`: the list's next item, the object's `}`
    /// missing (`[{"i": "x", "y"]`, as `key_is_next_item` reads it), unless a straight quote was taken
    /// as content before.
    #[inline(never)]
    fn member_string_at(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        if s[i] != b'"' {
            return Ok(false);
        }
        let Some(k) = self.find_closer(QuoteStyle::Double, i + 1)? else {
            return Ok(false);
        };
        let end = if s.at(k - 1)? == Some(b'"') && k - 1 > i {
            k - 1
        } else {
            k
        };
        let content = s.span(i + 1, end);
        let (r, _) = self.input.peek_past_space(k);
        let after = s.punct_at(r)?;
        Ok(content.len() > 2
            && content[1..content.len() - 1].contains(&b':')
            && matches!(after, None | Some(b',' | b'}'))
            || after == Some(b']') && self.st.str.quotes_seen & STRAIGHT == 0 && self.in_list())
    }

    /// Whether an ellipsis placeholder stands at `i` as a whole item or member (`["a", ...]`,
    /// `{"a": "b", ...}`): a `,`, `]` or `}` or the end of the input follows it.
    #[inline(never)]
    pub(super) fn is_ellipsis_item_ahead(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let len = match s[i] {
            b'.' | 0xE2 => s.ellipsis_len(i)?,
            _ => 0,
        };
        if len == 0 {
            return Ok(false);
        }
        let (r, _) = self.input.peek_past_space(i + len);
        Ok(matches!(s.punct_at(r)?, None | Some(b',' | b']' | b'}')))
    }

    /// Whether bare words stand at `i` as an array item (`["a", active]`, `["x", #fff]`, `["a", in
    /// progress]`): words on one line that run to a `,` or `]`. Words that run on into more text
    /// (`["a "b", c d"]`) are not one; a group in parentheses among them is (`["x", F(3)]`), and with
    /// `quoted_end` so is a quote right after them, before a `,` or `]` (`["a" b", "c"]`, the item's
    /// opening quote missing; after a comma that reads as prose's: `["a "b", c d"]`).
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn is_bare_item_ahead(&self, i: usize, quoted_end: bool) -> Result<bool, Stop> {
        let s = self.input.seen();
        if !(is_ident_start(s[i]) || s[i] == b'#') {
            return Ok(false);
        }
        let mut k = i + 1;
        loop {
            // The first word, or the one after `new` (`new Date("…")`).
            let first = k == i + 1 || s.is_at(i, b"new ")?;
            k = s.scan(k, |b| is_word_byte(b) || b == b'#')?;
            let (r, newline) = self.input.peek_past_space(k);
            match s.punct_at(r)? {
                None | Some(b',' | b']') => return Ok(true),
                // A call (`ObjectId("…")`, `Point(x=1)`), as `word` reads one; not after a quote taken
                // as content, in prose's words (`"He said "go", call("x") now"`).
                Some(b'(') if first && r == k && self.st.str.quotes_seen == 0 => return Ok(true),
                Some(b')') if self.in_parens() => return Ok(true),
                Some(b'`') if s.fence_at(r)? => return Ok(true),
                // The closing quote of an item whose opening one is missing (`["a" b", "c"]`).
                Some(b'"') if r == k && quoted_end => {
                    let (q, _) = self.input.peek_past_space(r + 1);
                    return Ok(matches!(s.punct_at(q)?, None | Some(b',' | b']')));
                }
                // Words in a row on one line are one item, as `bare_string` reads them.
                Some(b) if r > k && !newline && is_ident_start(b) && s.quote_at(r).is_none() => {
                    k = r + 1
                }
                // A group in parentheses on the line (`["x", This is F(3)]`).
                Some(b'(') if !newline => {
                    let c = s.scan(r + 1, |b| !matches!(b, b')' | b'(' | b'"' | b'\n'))?;
                    if s.at(c)? != Some(b')') {
                        return Ok(false);
                    }
                    k = c + 1;
                }
                _ => return Ok(false),
            }
        }
    }

    /// Whether a JSON or Python keyword stands at `i` as a whole word.
    pub(super) fn keyword_at(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        // Only keywords with the same first letter are compared: most bytes leave at once.
        let first = s.at(i)?;
        for (kw, _, _) in KEYWORDS {
            // Only a text that could still become this keyword waits for more.
            if first == Some(kw[0])
                && s.is_at(i, kw)?
                && !s
                    .at(i + kw.len())?
                    .is_some_and(|b| is_word_byte(b) && s.punct(i + kw.len()).1 == 1)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `+` at `i` joins two strings: `"a" + "b"`.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn is_concatenation(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let (r, _) = self.input.peek_past_space(i + 1);
        Ok(s.has(r)? && s.quote_at(r).is_some())
    }

    /// After a value string: repair string concatenation, `"a" + "b"` becomes `"ab"`; otherwise the
    /// value is complete.
    #[inline]
    pub(super) fn after_string(&mut self) -> Step {
        let s = self.input.seen();
        // Most strings are followed directly by a delimiter: no concatenation to look for.
        if !matches!(s.at(self.st.pos), Ok(Some(b',' | b'}' | b']' | b':'))) {
            let (q, _) = self.input.peek_past_space(self.st.pos);
            if s.at(q)? == Some(b'+') {
                let (r, _) = self.input.peek_past_space(q + 1);
                if let Some(quote) = s.has(r)?.then(|| s.quote_at(r)).flatten() {
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
