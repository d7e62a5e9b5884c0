//! Numbers, keywords and bare words.

use super::fast::keyword_prefix;
use super::*;

/// A keyword as written, its JSON, and the repair that rewriting it is.
pub(super) type Keyword = (&'static [u8], &'static [u8], Option<RepairKind>);

/// The keywords a bare word may be, and the JSON they become.
pub(super) const KEYWORDS: [Keyword; 9] = [
    (b"true", b"true", None),
    (b"false", b"false", None),
    (b"null", b"null", None),
    (b"True", b"true", Some(RepairKind::PythonLiteral)),
    (b"False", b"false", Some(RepairKind::PythonLiteral)),
    (b"None", b"null", Some(RepairKind::PythonLiteral)),
    (b"undefined", b"null", Some(RepairKind::NonJsonLiteral)),
    (b"NaN", b"null", Some(RepairKind::NonJsonLiteral)),
    (b"Infinity", b"null", Some(RepairKind::NonJsonLiteral)),
];

/// How a number-like token reads (SPEC §3, numbers).
pub(super) enum NumberShape {
    /// Strict JSON already.
    Valid,
    /// Rewritten into this JSON number text.
    Fixed(Vec<u8>, RepairKind),
    /// Not a JSON number but number-like (`02134`, `1.2.3`): kept as a string.
    AsString,
    /// No digits at all (`-`, `+`, `.`): no value has started.
    NotStarted,
    /// Something else (`12px`, `0x1F`): an unquoted string.
    Word,
}

/// The bytes that end a number or keyword wherever they follow it: JSON whitespace and the separators
/// after a value. The general steps end a token at more than these (see `Parser::ends_token`); the fast
/// lane ends one only at these.
#[inline(always)]
pub(super) fn is_token_end(b: u8) -> bool {
    is_json_ws(b) || matches!(b, b',' | b'}' | b']')
}

/// Whether `tok` is exactly a strict JSON number: the one definition, for the general steps and the fast
/// lane alike.
#[inline(always)]
pub(super) fn is_strict_number(tok: &[u8]) -> bool {
    let n = tok.len();
    let mut i = (tok.first() == Some(&b'-')) as usize;
    let digits = |i: &mut usize| {
        let from = *i;
        while *i < n && tok[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > from
    };
    match tok.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if tok.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(tok.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(tok.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == n
}

/// Classifies a token made of word bytes that starts like a number. `at_eof`: the input ends with it.
pub(super) fn classify_number(tok: &[u8], at_eof: bool) -> NumberShape {
    if is_strict_number(tok) {
        return NumberShape::Valid;
    }
    let n = tok.len();
    let mut i = 0;
    let plus = tok.first() == Some(&b'+');
    i += plus as usize;
    let neg = tok.get(i) == Some(&b'-');
    i += neg as usize;
    // Digits, and `_` between two of them (`82_461_110`, as Python, Rust and JavaScript write them).
    let digits_from = |mut i: usize| {
        while i < n
            && (tok[i].is_ascii_digit()
                || (tok[i] == b'_'
                    && i > 0
                    && tok[i - 1].is_ascii_digit()
                    && tok.get(i + 1).is_some_and(u8::is_ascii_digit)))
        {
            i += 1;
        }
        i
    };
    let int_start = i;
    i = digits_from(i);
    let int = &tok[int_start..i];
    let dot = tok.get(i) == Some(&b'.');
    i += dot as usize;
    let frac_start = i;
    i = digits_from(i);
    let frac = &tok[frac_start..i];
    let exp = matches!(tok.get(i), Some(b'e' | b'E')) && (!int.is_empty() || !frac.is_empty());
    let mut exp_sign: &[u8] = b"";
    let mut exp_digits: &[u8] = b"";
    if exp {
        i += 1;
        if matches!(tok.get(i), Some(b'+' | b'-')) {
            exp_sign = &tok[i..i + 1];
            i += 1;
        }
        let d = i;
        while i < n && tok[i].is_ascii_digit() {
            i += 1;
        }
        exp_digits = &tok[d..i];
    }
    if int.is_empty() && frac.is_empty() {
        return if tok.iter().any(u8::is_ascii_alphanumeric) {
            NumberShape::Word
        } else {
            NumberShape::NotStarted
        };
    }
    if i < n {
        // Dotted versions and the like stay strings; anything else is a word.
        let dotted = tok.iter().all(|b| b.is_ascii_digit() || *b == b'.')
            && tok.iter().filter(|&&b| b == b'.').count() > 1;
        return if dotted {
            NumberShape::AsString
        } else {
            NumberShape::Word
        };
    }
    if int.len() > 1 && int[0] == b'0' {
        return NumberShape::AsString;
    }
    // Rewrite: drop '+', add a leading 0, drop an empty fraction or exponent.
    let truncated = at_eof && ((dot && frac.is_empty() && !exp) || (exp && exp_digits.is_empty()));
    let mut fixed = Vec::with_capacity(n + 1);
    if neg {
        fixed.push(b'-');
    }
    let digit = |b: &&u8| **b != b'_';
    if int.is_empty() {
        fixed.push(b'0');
    } else {
        fixed.extend(int.iter().filter(digit));
    }
    if !frac.is_empty() {
        fixed.push(b'.');
        fixed.extend(frac.iter().filter(digit));
    }
    if !exp_digits.is_empty() {
        fixed.push(b'e');
        fixed.extend_from_slice(exp_sign);
        fixed.extend_from_slice(exp_digits);
    }
    let kind = if truncated {
        RepairKind::TruncatedNumber
    } else {
        RepairKind::NumberFormat
    };
    NumberShape::Fixed(fixed, kind)
}

impl Parser<'_> {
    /// Whether the byte at `k` ends a number-like token.
    #[inline]
    pub(super) fn ends_token(&self, k: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let Some(b) = s.at(k)? else {
            return Ok(true);
        };
        // Comments and fences are recognised by two and three characters.
        Ok(is_token_end(b)
            || matches!(b, b')' | b'[' | b'{' | b'"' | b'\'')
            || s.punct(k) == (b',', 3)
            || (b == b'/' && matches!(s.at(k + 1)?, Some(b'/' | b'*')))
            || s.quote_at(k).is_some()
            || s.invisible_len(k) > 0
            || s.char_is(k, NBSP)
            || s.unicode_space_len(k) > 0
            || (matches!(b, b'`' | b'~') && s.fence_at(k)?))
    }

    /// The end of the word-like token at `start`; in a stream, a token that runs into the end waits.
    #[inline]
    pub(super) fn word_end(&self, start: usize) -> Result<usize, Stop> {
        let s = self.input.seen();
        // Only `.` (an ellipsis) and bytes beyond ASCII (typographic quotes, `…`, spaces) need a closer
        // look.
        let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-' | b'+');
        let mut k = start;
        loop {
            k = s.run(k, plain);
            match s.at(k)? {
                Some(b)
                    if is_word_byte(b)
                        && s.quote_at(k).is_none()
                        && s.punct(k).1 == 1
                        && s.ellipsis_len(k)? == 0
                        && s.unicode_space_len(k) == 0
                        && !s.char_is(k, NBSP) =>
                {
                    k += 1
                }
                _ => return Ok(k),
            }
        }
    }

    pub(super) fn number(&mut self) -> Step {
        let s = self.input.seen();
        let start = self.st.pos;
        let k = self.word_end(start)?;
        if !self.ends_token(k)? {
            // `12:30`, `1/2`: prose, not a number
            return self.bare_string(start);
        }
        // repair: `"weight": 5 kg`, `"phone": +1 555 0100`, `"share": 45 %`: what follows a member's
        // number on its line, when it is no key, is the number's too, all one string (read as a key, it
        // was lost). In an array, words that start with no digit and no keyword (`[2 eggs, 1 cup
        // flour]`; not `[1 2]`, `[1 true]`): read as the next item, they split one in two.
        if matches!(s.at(k)?, Some(b' ' | b'\t'))
            && match self.top() {
                Some(Container::Object) => self.words_go_on(k, false, true)?,
                // The look-ahead first: it waits until the word has arrived.
                Some(Container::Array) => {
                    self.words_go_on(k, false, false)? && {
                        let r = self.input.peek_past_space(k).0;
                        !s[r].is_ascii_digit() && keyword_prefix(s.rest(r)).is_none()
                    }
                }
                _ => false,
            }
        {
            return self.bare_string(start);
        }
        let next = s.at(k)?;
        if next == Some(b',')
            && self.top() == Some(Container::Object)
            && self.grouped_number(start, k)?
        {
            return Ok(());
        }
        let tok = s.span(start, k);
        let at_eof = next.is_none();
        if matches!(tok, b"-Infinity" | b"+Infinity" | b"-NaN") {
            self.begin_value();
            self.record(RepairKind::NonJsonLiteral, start)?;
            self.st.out.extend_from_slice(b"null");
            self.st.pos = k;
            self.value_done();
            return Ok(());
        }
        match classify_number(tok, at_eof) {
            NumberShape::Valid => {
                self.begin_value();
                s.copy(&mut self.st.out, start, k);
            }
            NumberShape::Fixed(text, kind) => {
                self.begin_value();
                self.record(kind, start)?;
                self.st.out.extend_from_slice(&text);
            }
            NumberShape::AsString => {
                self.begin_value();
                self.record(RepairKind::NumberAsString, start)?;
                self.st.out.push(b'"');
                s.copy(&mut self.st.out, start, k);
                self.st.out.push(b'"');
            }
            NumberShape::NotStarted => {
                self.begin_value();
                self.st.pos = k;
                // repair: `"delta": -` — no digits, so no value
                let kind = if at_eof {
                    RepairKind::TruncatedMember
                } else {
                    RepairKind::MissingValue
                };
                return self.drop_item(kind, start);
            }
            NumberShape::Word => return self.bare_string(start),
        }
        self.st.pos = k;
        self.value_done();
        Ok(())
    }

    /// After a member's number that ends at a `,` at `k`: the end of the digits that go on right after
    /// the comma (`1,000,000`, `12,50`), or `None` when the next member follows. A member does not start
    /// with a digit straight after its comma, except a numeric key (`1,2: "b"`), which stays one. A group
    /// of fewer than three digits cut off by the end of the input is left out (`1,00` reads as `1`).
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn digits_past_comma(&self, k: usize) -> Result<Option<usize>, Stop> {
        let s = self.input.seen();
        let (mut e, mut comma) = (k, k);
        while s.at(e)? == Some(b',') && s.at(e + 1)?.is_some_and(|b| b.is_ascii_digit()) {
            comma = e;
            e = s.scan(e + 1, |b| b.is_ascii_digit() || b == b'.')?;
        }
        if !s.has(e)? && e - comma < 4 && !s.span(comma, e).contains(&b'.') {
            e = comma;
        }
        if e == k || !self.ends_token(e)? {
            return Ok(None);
        }
        let (q, _) = self.input.peek_past_space(e);
        Ok((s.at(q)? != Some(b':')).then_some(e))
    }

    /// A member's number written with commas (its first group `s[start..k]` ends at a comma), if it is
    /// one (see `digits_past_comma`): thousands separators (`1,000,000`,
    /// `-12,345.5`: groups of three digits after a first group of one to three) are dropped; any other
    /// shape (`12,50`, `1,2,3`) is kept as a string, whose meaning the caller knows better.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn grouped_number(&mut self, start: usize, k: usize) -> Result<bool, Stop> {
        let Some(e) = self.digits_past_comma(k)? else {
            return Ok(false);
        };
        let s = self.input.seen();
        let digits = start + usize::from(s[start] == b'-');
        let mut thousands = s[digits] != b'0';
        // Digits since the last comma or dot, commas so far, and whether a fraction has begun.
        let (mut run, mut commas, mut frac) = (0, 0, false);
        for &b in s.span(digits, e) {
            match b {
                b',' => {
                    thousands &= !frac
                        && if commas == 0 {
                            (1..=3).contains(&run)
                        } else {
                            run == 3
                        };
                    (run, commas) = (0, commas + 1);
                }
                b'.' => {
                    thousands &= !frac && commas > 0 && run == 3;
                    (run, frac) = (0, true);
                }
                b'0'..=b'9' => run += 1,
                // `+1,000`, `1e5,000`: no JSON number with its commas dropped
                _ => thousands = false,
            }
        }
        thousands &= if frac { run > 0 } else { run == 3 };
        self.begin_value();
        if thousands {
            // repair: `"population": 1,000,000` (thousands separators)
            self.record(RepairKind::NumberFormat, start)?;
            self.st
                .out
                .extend(s.span(start, e).iter().filter(|&&b| b != b','));
        } else {
            // repair: `"price": 12,50` (a decimal comma, or digits that are no JSON number)
            self.record(RepairKind::NumberAsString, start)?;
            self.st.out.push(b'"');
            s.copy(&mut self.st.out, start, e);
            self.st.out.push(b'"');
        }
        self.st.pos = e;
        self.value_done();
        Ok(true)
    }

    /// A word in value position: keyword, truncated keyword, wrapper call, or unquoted string.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn word(&mut self) -> Step {
        let s = self.input.seen();
        let start = self.st.pos;
        let mut k = self.word_end(start)?;
        let tok = s.span(start, k);
        let mut next = s.at(k)?;
        if tok == b"new" {
            // `new ObjectId("…")`, `new Date(2024, 1, 5)`: JavaScript's constructor calls are calls too.
            let (r, _) = self.input.peek_past_space(k);
            if r > k && s.at(r)?.is_some_and(is_ident_start) {
                let e = self.word_end(r)?;
                if s.at(e)? == Some(b'(') {
                    (k, next) = (e, Some(b'('));
                }
            }
        }
        let call = k > start && is_ident_start(s[start]) && next == Some(b'(');
        if call && self.keyword_argument_at(k + 1)? {
            // repair: `Point(x=1, y=2)`, `dict(name="Ada")`: keyword arguments are an object's members,
            // and `)` closes it
            self.record(RepairKind::FunctionCall, start)?;
            self.st.pos = k;
            self.open(Container::Object)?;
            if let Some(f) = self.st.stack.last_mut() {
                f.closer = b')';
            }
            return Ok(());
        }
        // Not when its first argument reads as a key: `f(a: number, b: string): void` is a signature.
        if call && !self.is_key_ahead(self.input.peek_past_space(k + 1).0)? {
            // repair: `ObjectId("…")`, `NumberLong(2)`: the value is the argument
            self.record(RepairKind::FunctionCall, start)?;
            return self.open_call(k + 1);
        }
        if self.ends_token(k)? {
            let keyword = match tok.first() {
                Some(b't' | b'f' | b'n' | b'T' | b'F' | b'N' | b'u' | b'I') => {
                    KEYWORDS.iter().find(|(kw, _, _)| *kw == tok)
                }
                _ => None,
            };
            if let Some((_, json, kind)) = keyword {
                self.begin_value();
                if let Some(kind) = kind {
                    self.record(*kind, start)?;
                }
                push_bytes(&mut self.st.out, json);
                self.st.pos = k;
                self.value_done();
                return Ok(());
            }
            // The end of the source: the input's, or a closing fence past spaces and line breaks.
            let fence = |k| -> Result<bool, Stop> {
                let (r, _) = self.input.peek_past_space(k);
                Ok(matches!(s.at(r)?, Some(b'`' | b'~')) && s.fence_at(r)?)
            };
            if !tok.is_empty() && (next.is_none() || fence(k)?) {
                if let Some((_, json, _)) = KEYWORDS.iter().find(|(kw, _, _)| kw.starts_with(tok)) {
                    // repair: `tr`, `fal`, `nu` cut off by the end: every keyword with this prefix
                    // means the same JSON value, so completing it is unambiguous
                    self.begin_value();
                    self.record(RepairKind::TruncatedLiteral, start)?;
                    push_bytes(&mut self.st.out, json);
                    self.st.pos = k;
                    self.value_done();
                    return Ok(());
                }
            }
        }
        self.bare_string(start)
    }

    /// Whether the words of a member's bare value go on after the comma before `i`: more words follow on
    /// the same line, and they are not a key (`{"a": ipsum, sic, datum.", "b": 1}`). After a line break
    /// (`line`), they go on when the next line holds words and no colon before its first comma or its
    /// end (`b: hey world lets do\n  so that we can test this out,`): read as a member of its own, such
    /// a line was a key without a value, and dropped.
    ///
    /// After a member's number (`number`), the words may start with other characters too (`45 %`,
    /// `5 (approx)`, `10 - 20`): anything but what ends a value or may start what follows one (a
    /// delimiter, a bracket, a comment, an ellipsis, a fence, a control token, a backslash of escaped
    /// text): `"rating": 4 / 5` is one string, `"a": 1 // note` a number and a comment.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn words_go_on(&self, i: usize, line: bool, number: bool) -> Result<bool, Stop> {
        let s = self.input.seen();
        let (r, newline) = self.input.peek_past_space(i);
        let Some(b) = s.at(r)? else {
            return Ok(false);
        };
        let other = number
            && !matches!(
                b,
                b',' | b'}'
                    | b']'
                    | b')'
                    | b':'
                    | b'{'
                    | b'['
                    | b'#'
                    | b'.'
                    | b'`'
                    | b'~'
                    | b'<'
                    | b'\\'
            )
            && !(b == b'/' && matches!(s.at(r + 1)?, Some(b'/' | b'*')));
        if newline && !line
            || s.quote_at(r).is_some()
            || !(other || b.is_ascii_alphanumeric() || b >= 0x80)
            || s.ellipsis_len(r)? > 0
        {
            return Ok(false);
        }
        if line {
            // The whole line, once it has arrived (its end is memoized: a stream stays linear).
            let end = self.input.line_end(r);
            s.has_through(end)?;
            for &b in s.span(r, end) {
                match b {
                    b',' => break,
                    b':' => return Ok(false),
                    _ => {}
                }
            }
            return Ok(true);
        }
        Ok(!self.is_key_ahead(r)?)
    }

    /// Where a quoted phrase among a member's bare words that opens at `k` ends (`a: I would say "like
    /// this" or so`): past its closing quote on the same line, when no string ends at `k` (a value's
    /// opening quote missing: `{"a":foo","b":1}`) and something other than a colon follows (a key:
    /// `{a: x "b": 1}`).
    #[inline(never)]
    fn phrase_end(&self, k: usize) -> Result<Option<usize>, Stop> {
        let s = self.input.seen();
        if self.ends_string(k + 1, Ctx::Value)? {
            return Ok(None);
        }
        let q = s.scan(k + 1, |b| b != b'"' && b != b'\n')?;
        if s.at(q)? != Some(b'"') {
            return Ok(None);
        }
        // At the end of the input, it may be a key cut off before its colon (SPEC §3 drops it).
        let next = s.punct_at(self.input.peek_past_space(q + 1).0)?;
        Ok(next.is_some_and(|b| b != b':').then_some(q + 1))
    }

    /// Opens a call whose first argument starts at `at`: its value is that argument, or the array of its
    /// arguments once a comma follows the first.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn open_call(&mut self, at: usize) -> Step {
        let tentative = self.st.tentative;
        self.begin_value();
        // The call is dropped if its argument never starts: nothing of it is settled yet.
        self.st.tentative = tentative.or(self.st.stack.last().map(|f| f.item_out));
        self.push_frame(Container::Call)?;
        self.st.pos = at;
        self.st.state = State::Value;
        Ok(())
    }

    /// Whether a keyword argument starts at `i`, past spaces and line breaks: a name and `=` (not `==`),
    /// as Python writes them (`x=1`; `x = 1`, and one per line in a pretty-printed repr).
    #[inline(never)]
    pub(super) fn keyword_argument_at(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let i = s.run(i, is_json_ws);
        let e = s.run(i, |b| b.is_ascii_alphanumeric() || b == b'_');
        let eq = s.run(e, |b| b == b' ');
        Ok(e > i
            && !s[i].is_ascii_digit()
            && s.at(eq)? == Some(b'=')
            && s.at(eq + 1)? != Some(b'='))
    }

    /// Where a bare word at `start` ends that is the first key of a record written in an array without its
    /// braces (`[name: "Ada", age: 3]`, as `["name": "Ada"]` with its keys quoted): an identifier, in an
    /// array, with a colon after it and a quoted string, a number, a literal or a bracket after that. The
    /// colon then opens the record (`key_in_value_place_taken`).
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn bare_key_end(&self, start: usize) -> Result<Option<usize>, Stop> {
        let s = self.input.seen();
        if self.top() != Some(Container::Array) || !is_ident_start(s[start]) {
            return Ok(None);
        }
        let end = s.scan(start, is_word_byte)?;
        if s.at(end)? != Some(b':') {
            return Ok(None);
        }
        let (q, _) = self.input.peek_past_space(end + 1);
        let value = match s.at(q)? {
            Some(b) => s.quote_at(q).is_some() || self.value_starts_at(q, b)?,
            None => false,
        };
        Ok(value.then_some(end))
    }

    /// repair: bare words (`active`, `team-b`, `in progress`) become a string, up to the next delimiter.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn bare_string(&mut self, start: usize) -> Step {
        let s = self.input.seen();
        // Not a bare word but a string between a model's quote tokens (Gemma's tool calls,
        // `{location:<|"|>Paris<|"|>}`; their keys are bare words).
        if s[start] == b'<' {
            for (style, token) in [QuoteStyle::GemmaToken, QuoteStyle::EscapeToken]
                .into_iter()
                .zip(QUOTE_TOKENS)
            {
                if s.is_at(start, token)? {
                    self.begin_value();
                    return self.open_string((style, token.len()), Ctx::Value, false);
                }
            }
        }
        let in_call = self.in_parens();
        let in_object = self.top() == Some(Container::Object);
        // Brackets a member's words opened (`{text: see {the appendix} here}`): their closers and commas
        // are the words' too.
        let mut inner = 0u32;
        // Parentheses they opened (`sig: f(a: number, b: string): void`): their commas are theirs, and
        // only `)` closes them.
        let mut parens = 0u32;
        // The word is a key (`[name: "Ada"]`, see `bare_key_end`): it ends before its colon.
        let key = if in_object {
            None
        } else {
            self.bare_key_end(start)?
        };
        let mut k = key.unwrap_or(start);
        while key.is_none() {
            let Some(b) = s.at(k)? else {
                break;
            };
            match b {
                b'{' | b'[' if in_object => inner += 1,
                b'(' if in_object || in_call => parens += 1,
                b'}' | b']' | b',' if inner > 0 => {
                    inner -= u32::from(b != b',');
                    k += 1;
                    continue;
                }
                b')' | b',' if parens > 0 => {
                    parens -= u32::from(b != b',');
                    k += 1;
                    continue;
                }
                b',' | b'\n' if in_object && self.words_go_on(k + 1, b == b'\n', false)? => {
                    k += 1;
                    continue;
                }
                // A quoted phrase in a member's words (`a: I would say "like this" or so`) is theirs,
                // both its quotes (see `phrase_end` for the quotes that still end them).
                b'"' if in_object => {
                    if let Some(end) = self.phrase_end(k)? {
                        k = end;
                        continue;
                    }
                }
                _ => {}
            }
            if matches!(b, b',' | b'}' | b']' | b'\n' | b'\r' | b'"')
                || (b == 0xEF && s.punct(k) == (b',', 3))
                || (b == b')' && in_call)
                || (matches!(b, b'`' | b'~') && s.fence_at(k)?)
            {
                break;
            }
            // A comment after a space ends the word: ` #`, ` //`, ` /*`.
            if matches!(b, b' ' | b'\t') {
                match s.at(k + 1)? {
                    Some(b'#') => break,
                    Some(b'/') if matches!(s.at(k + 2)?, Some(b'/' | b'*')) => break,
                    _ => {}
                }
            }
            k += 1;
        }
        if k == start {
            return self.skip_unexpected();
        }
        // repair: `{"a":foo","b":1}`: a quote that ends the word as it would end a string is the
        // closing quote of a string whose opening one is missing.
        let closed = s.at(k)? == Some(b'"') && self.ends_string(k + 1, Ctx::Value)?;
        let mut e = k;
        // Spaces before a closing quote are the string's; before a delimiter they are not.
        while !closed && e > start && matches!(s[e - 1], b' ' | b'\t') {
            e -= 1;
        }
        self.begin_value();
        let kind = match (closed, key.is_some()) {
            (true, _) => RepairKind::MissingQuote,
            (false, true) => RepairKind::UnquotedKey,
            (false, false) => RepairKind::UnquotedString,
        };
        self.record(kind, start)?;
        self.st.out.push(b'"');
        escape_into(&mut self.st.out, s.span(start, e));
        self.st.out.push(b'"');
        self.st.pos = k + usize::from(closed);
        self.value_done();
        self.st.value_end = e + usize::from(closed);
        Ok(())
    }
}
