//! Values, containers and keys: what the parser reads where a value or a key is expected.

use super::*;

impl Parser<'_> {
    pub(super) fn value(&mut self) -> Step {
        let s = self.input.seen();
        let b = s[self.st.pos];
        match b {
            b'{' if self.set_at(self.st.pos)? => {
                // repair: `{1, 2}`, `{'a', 'b'}`: a Python set is an array
                self.record(RepairKind::PythonLiteral, self.st.pos)?;
                self.open(Container::Set)
            }
            b'{' | b'[' => self.open(if b == b'{' {
                Container::Object
            } else {
                Container::Array
            }),
            b'}' | b']' => self.closer_in_value(b),
            b',' => self.comma_in_value(),
            b')' if self.top() == Some(Container::Call) => {
                self.st.pos += 1;
                self.close_call()
            }
            b')' if self.closes_top(b) => self.closer_in_value(b),
            b'(' if self.tuple_at(self.st.pos)? => {
                // repair: `(1, 2)`, `("a", "b")`: a Python tuple is an array
                self.record(RepairKind::PythonLiteral, self.st.pos)?;
                let (q, _) = self.peek_past_space_and_comments(self.st.pos + 1, false)?;
                if s.at(q)? == Some(b')') {
                    return self.open(Container::Tuple);
                }
                // Parentheses around one value group it (`(1)` is 1 in Python): read as a call with no
                // name, whose first comma makes it the array of its items (`(1,)`, `(1, 2)`).
                self.open_call(self.st.pos + 1)
            }
            b':' => self.skip_unexpected(),
            _ => {
                let fence = match b {
                    b'`' => self.value_fence(self.st.pos)?,
                    _ => None,
                };
                let quote = match fence {
                    Some(n) => Some((QuoteStyle::Fence, n)),
                    None => self.opening_quote_at(self.st.pos)?,
                };
                if let Some(mut quote) = quote {
                    if b == b'"' && s.is_at(self.st.pos, QUOTE_TOKENS[2])? {
                        quote = (QuoteStyle::TripleQuote, 3);
                    }
                    self.begin_value();
                    self.open_string(quote, Ctx::Value, false)?;
                    // Straight on through the string: the states only matter when a stream stops.
                    self.string_body()?;
                    return self.after_string();
                }
                if matches!(b, b'.' | 0xE2) && self.ellipsis_at(self.st.pos)? {
                    self.ellipsis()
                } else if is_number_start(b) {
                    self.number()
                } else if self.string_prefix_at(self.st.pos, false)? {
                    self.skip_string_prefix()
                } else {
                    self.word()
                }
            }
        }
    }

    /// Whether the prefix of a string Python's `repr` writes ([`is_string_prefix`]) starts at `i`, right
    /// before a straight quote. Not before a `'` and a colon where a `key` is read (`{b': 1}`: the key
    /// `b` missing its opening quote), nor before a `"` and a delimiter: `repr` writes double quotes
    /// only around an apostrophe, and there the quote ends the word `u` or `b` (`["a" b", "c"]`).
    pub(super) fn string_prefix_at(&self, i: usize, key: bool) -> Result<bool, Stop> {
        let s = self.input.seen();
        if !s.at(i)?.is_some_and(is_string_prefix) {
            return Ok(false);
        }
        let next = s.at(i + 2);
        Ok(match s.at(i + 1)? {
            Some(b'\'') => !(key && next? == Some(b':')),
            Some(b'"') => !matches!(next?, None | Some(b',' | b']' | b'}' | b':')),
            _ => false,
        })
    }

    /// repair: `{u'name': u'Ada'}`, `b'data'`: the prefix of a Python string is dropped; the string is
    /// read next.
    #[cold]
    #[inline(never)]
    fn skip_string_prefix(&mut self) -> Step {
        self.record(RepairKind::PythonLiteral, self.st.pos)?;
        self.st.pos += 1;
        Ok(())
    }

    /// The quote that opens a string at `i`, which has arrived: one of [`quote_at`]'s, or a backtick that
    /// is no fence (a template string's, `` `text` ``).
    #[inline(always)]
    pub(super) fn opening_quote_at(&self, i: usize) -> Result<Option<(QuoteStyle, usize)>, Stop> {
        let s = self.input.seen();
        Ok(match s[i] {
            b'`' if !s.fence_at(i)? => Some((QuoteStyle::Backtick, 1)),
            _ => s.quote_at(i),
        })
    }

    /// A fenced code block written as an item's or a member's value (`"code": ```python⏎…⏎```,`), its
    /// fence at `i`: the length from the fence to the code's first line. The fence opens on the line of
    /// what came before it (a fence on a line of its own is the source's closing one), its line holds an
    /// info string at most (no backtick or quote before its line break), and text follows that line.
    #[inline(never)]
    pub(super) fn value_fence(&self, i: usize) -> Result<Option<usize>, Stop> {
        let s = self.input.seen();
        if self.st.stack.is_empty() || !s.fence_at(i)? {
            return Ok(None);
        }
        let mut j = i - 1;
        while matches!(s[j], b' ' | b'\t') {
            j -= 1;
        }
        // The line's end is memoized: a stream that brings a long line decides once, in linear time.
        let end = self.input.line_end(i);
        let mut info = s.span(i + 3, end).iter();
        Ok((!matches!(s[j], b'\n' | b'\r')
            && s.at(end + 1)?.is_some()
            && !info.any(|&b| matches!(b, b'`' | b'"')))
        .then_some(end + 1 - i))
    }

    /// Whether the `(` at `i` opens a tuple: an item or its `)` follows it, not a word (`(approx)` stays text).
    #[inline(never)]
    fn tuple_at(&self, i: usize) -> Result<bool, Stop> {
        let (q, _) = self.peek_past_space_and_comments(i + 1, false)?;
        let s = self.input.seen();
        let Some(b) = s.at(q)? else {
            return Ok(false);
        };
        Ok(matches!(b, b'0'..=b'9' | b'-' | b'[' | b'{' | b'(' | b')')
            || s.quote_at(q).is_some()
            || self.keyword_at(q)?)
    }

    /// Whether the `{` at `i` opens a Python set (`{1, 2}`, `{'a', 'b'}`): its first item, a number or a
    /// single-quoted string on one line (Python writes strings so), is followed by `}`, or by a comma and
    /// then no key. Only spaces are skipped, not comments: looking for comments at every `{` would cost
    /// more than such sets are worth.
    #[inline(never)]
    pub(super) fn set_at(&self, i: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let q = self.input.peek_past_space(i + 1).0;
        let Some(b) = s.at(q)? else {
            return Ok(false);
        };
        // Only Python's own quote: a JSON object's `{"` is never held back waiting for its first key.
        let end = if b == b'\'' {
            let mut k = q + 1;
            loop {
                match s.at(k)? {
                    Some(c) if c == b => break k + 1,
                    Some(b'\\') => k += 2,
                    Some(b'\n') | None => return Ok(false),
                    Some(_) => k += 1,
                }
                if k > q + SET_REACH {
                    return Ok(false);
                }
            }
        } else if b.is_ascii_digit() || b == b'-' {
            self.word_end(q)?
        } else {
            return Ok(false);
        };
        let r = self.input.peek_past_space(end).0;
        Ok(match s.punct_at(r)? {
            Some(b'}') => true,
            Some(b',') => !self.is_key_ahead(self.input.peek_past_space(r + s.punct(r).1).0)?,
            _ => false,
        })
    }

    /// Whether an ellipsis placeholder starts at `i` (in a stream, `.` and `..` at the end may grow into one).
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn ellipsis_at(&self, i: usize) -> Result<bool, Stop> {
        Ok(self.input.seen().ellipsis_len(i)? > 0)
    }

    #[inline(always)]
    pub(super) fn open(&mut self, kind: Container) -> Step {
        self.begin_value();
        if self.st.stack.is_empty() {
            self.st.root_is_object = kind == Container::Object;
        }
        self.push_frame(kind)?;
        self.st.out.push(if kind == Container::Object {
            b'{'
        } else {
            b'['
        });
        self.st.pos += 1;
        self.st.state = State::item(kind == Container::Object);
        Ok(())
    }

    /// A closing bracket where a value was expected.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn closer_in_value(&mut self, b: u8) -> Step {
        match self.top() {
            Some(Container::Object) => {
                // repair: `"key": }` has no value
                self.drop_item(RepairKind::MissingValue, self.st.pos)?;
                self.close_with(b)
            }
            Some(Container::Call) => self.close_call(),
            Some(_) => self.close_with(b),
            None => self.skip_unexpected(),
        }
    }

    /// A comma where a value was expected.
    pub(super) fn comma_in_value(&mut self) -> Step {
        match self.top() {
            Some(Container::Array | Container::Wrapper | Container::Tuple | Container::Set) => {
                // repair: `[,1]`, `[1,,2]`
                self.record(RepairKind::RedundantComma, self.st.pos)?;
                self.st.pending_comma = Some(self.st.pos);
                self.st.pos += 1;
                Ok(())
            }
            // repair: `"key": ,` has no value; the comma then separates members as usual
            Some(Container::Object) => self.drop_item(RepairKind::MissingValue, self.st.pos),
            _ => self.skip_unexpected(),
        }
    }

    /// An ellipsis placeholder in value or key position.
    pub(super) fn ellipsis(&mut self) -> Step {
        let at = self.st.pos;
        self.st.pos += self.input.seen().ellipsis_len(self.st.pos)?;
        if self.st.state == State::Value && self.top() == Some(Container::Object) {
            // repair: `"key": ...` (the member is a placeholder)
            return self.drop_item(RepairKind::Ellipsis, at);
        }
        // repair: `[1, 2, ...]`, `{"a": 1, ...}`: as if nothing were there
        self.record(RepairKind::Ellipsis, at)?;
        self.st.pending_comma = None;
        self.st.state = State::AfterValue;
        Ok(())
    }

    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn skip_unexpected(&mut self) -> Step {
        self.record(RepairKind::UnexpectedCharacter, self.st.pos)?;
        self.st.pos += self.input.char_len(self.st.pos);
        Ok(())
    }

    pub(super) fn key(&mut self) -> Step {
        let s = self.input.seen();
        let b = s[self.st.pos];
        match b {
            b'}' | b']' => self.close_with(b),
            b')' if self.closes_top(b) => self.close_with(b),
            b',' => {
                // repair: `{,"a":1}`, `{"a":1,,"b":2}`
                self.record(RepairKind::RedundantComma, self.st.pos)?;
                self.st.pos += 1;
                Ok(())
            }
            // repair: `[{"a": {"b": 1, {"a": …`: in objects that a list holds, up to that list
            b'{' | b'[' if self.objects_above_list() > 0 => self.close_missing_brace(),
            // repair: `[{"i": 1, 2]`: a whole value where a key is expected, as a bracket is
            _ if self.in_list() && self.whole_value_at(self.st.pos, b, false)? => {
                self.close_missing_brace()
            }
            // repair: `{"k": [[1], [2]], [3]}`: the last member's array was closed before this item;
            // `{"k": ["a"], ["b"]}`: an array whose last item is not an array was opened again by this
            // bracket, and its items go on after it (`["a", "b"]`), as json_repair reads them; unless
            // arrays stood before those items and a row follows the bracket: the items are a row written
            // without its `[` (`[["a"], "b", "c"], ["d"]]`), whose `]` closed the array too early.
            b'[' if self.st.pending_comma.is_some() && self.st.out.last() == Some(&b']') => {
                let n = self.st.out.len();
                let mut of_arrays = n >= 2 && self.st.out[n - 2] == b']';
                let mut row = if of_arrays { None } else { self.row_start() };
                if row.is_some() {
                    // A bracket before a row opens the array again and its rows go on (`[[1], "a"],
                    // [[2], [3]]`, as json_repair reads it). Looked at before anything changes: a
                    // stream may have to wait for it.
                    let (next, _) = self.input.peek_past_space(self.st.pos + 1);
                    if self.input.seen().at(next)? == Some(b'[') {
                        row = None;
                    }
                }
                if let Some(at) = row {
                    // The row's `]` stays; the array's own is written again, for `reopen` to take.
                    self.insert_output(at, b'[');
                    self.st.out.push(b']');
                    of_arrays = true;
                }
                self.reopen(Container::Array)?;
                if row.is_some() {
                    // repair: the missing `[` of the row
                    self.record(RepairKind::MissingBracket, self.st.pos)?;
                }
                if !of_arrays {
                    self.st.pos += 1;
                }
                Ok(())
            }
            b'{' | b'[' | b':' => self.skip_unexpected(),
            _ => {
                if let Some(quote) = self.opening_quote_at(self.st.pos)? {
                    self.begin_item();
                    self.open_string(quote, Ctx::Key, false)?;
                    self.string_body()
                } else if matches!(b, b'.' | 0xE2) && self.ellipsis_at(self.st.pos)? {
                    self.ellipsis()
                } else if self.string_prefix_at(self.st.pos, true)? {
                    self.skip_string_prefix()
                } else {
                    self.unquoted_key()
                }
            }
        }
    }

    /// Where the scalar items at the end of the array just written (its `]` last in the output) begin,
    /// when an array is the item before them: `[["a"],"b","c"]` gives the offset of `"b"`. `None` when
    /// an item among them is an object or an array, no array comes before them, or they run longer than
    /// [`ROW_REACH`] bytes.
    #[inline(never)]
    fn row_start(&self) -> Option<usize> {
        let out = &self.st.out;
        let stop = out.len().saturating_sub(ROW_REACH);
        // `i` is where an item ends: the `,` after it, or the array's `]`.
        let mut i = out.len() - 1;
        loop {
            let mut j = i.checked_sub(1)?;
            if out[j] == b'"' {
                // Back to the opening quote: a quote after an even run of backslashes.
                loop {
                    j = j.checked_sub(1).filter(|&j| j > stop)?;
                    if out[j] == b'"'
                        && out[..j].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
                    {
                        break;
                    }
                }
            } else {
                // A number or a literal.
                while j > stop
                    && matches!(out[j - 1], b'0'..=b'9' | b'a'..=b'z' | b'E' | b'.' | b'+' | b'-')
                {
                    j -= 1;
                }
                if !matches!(out[j], b'0'..=b'9' | b'a'..=b'z' | b'E' | b'.' | b'+' | b'-') {
                    return None;
                }
            }
            // `j` is where the item starts: after a comma, or after the array's `[` (no array before).
            match (out.get(j.checked_sub(2)?), out[j - 1]) {
                (Some(b']'), b',') => return Some(j),
                (_, b',') if j - 1 > stop => i = j - 1,
                _ => return None,
            }
        }
    }

    /// Whether the innermost container is an item of an array (or of comma-separated top-level values).
    pub(super) fn in_list(&self) -> bool {
        let n = self.st.stack.len();
        n >= 2
            && matches!(
                self.st.stack[n - 2].kind,
                Container::Array | Container::Wrapper | Container::Tuple | Container::Set
            )
    }

    /// How many objects are open above the innermost list, with nothing else between (`[{"a": {"b": 1, `
    /// has two); 0 where no list holds the innermost container, or only past [`CLOSER_REACH`] objects:
    /// asked at every bracket where a key is expected, a search through all of them took quadratic time
    /// on objects nested without end (`{"a":{{"a":{{…`).
    #[inline(never)]
    pub(super) fn objects_above_list(&self) -> usize {
        let stack = &self.st.stack;
        match stack
            .iter()
            .rev()
            .take(CLOSER_REACH)
            .position(|f| f.kind != Container::Object)
        {
            Some(k)
                if matches!(
                    stack[stack.len() - 1 - k].kind,
                    Container::Array | Container::Wrapper | Container::Tuple | Container::Set
                ) =>
            {
                k
            }
            _ => 0,
        }
    }

    /// repair: `[{"i": 1, {"i": 2}]`: a bracket where a key is expected in an object that is an array's
    /// item starts the array's next item, so the object's `}` is missing before it; in an object inside
    /// such an item, the `}` of each object up to the array (`[{"a": {"b": 1, {"a": {"b": 2}}]`, two).
    /// Callers know an array holds the innermost container through objects alone.
    #[inline(never)]
    pub(super) fn close_missing_brace(&mut self) -> Step {
        let comma = self.st.pending_comma;
        loop {
            self.record(RepairKind::MissingBracket, self.st.pos)?;
            let item = self.in_list();
            self.pop_and_close();
            if item {
                break;
            }
        }
        if comma.is_some() {
            // The comma read after the last member separates the array's items.
            self.st.pending_comma = comma;
            self.st.state = State::Value;
        }
        Ok(())
    }

    /// repair: unquoted key, quoted verbatim up to the colon.
    pub(super) fn unquoted_key(&mut self) -> Step {
        let s = self.input.seen();
        let start = self.st.pos;
        let mut k = start;
        // In a stream the key may go on, and a fence needs all three of its characters.
        let ended = loop {
            match s.punct_at(k)? {
                None => break true,
                Some(b':' | b'=' | b',' | b'{' | b'}' | b'[' | b']' | b'"' | b'\n' | b'\r') => {
                    break false
                }
                Some(_) if s.fence_at(k)? => break false,
                // repair (by `after_key`): `{a 'b'}`, a quoted value after the key with no colon
                Some(b' ' | b'\t') => {
                    let r = s.run(k, |b| b == b' ' || b == b'\t');
                    if s.has(r)? && s.quote_at(r).is_some() {
                        if self.is_key_ahead(r)? {
                            // repair: `{"a": 1, COMMENT "b": 2}`: words before a key are no member
                            self.record(RepairKind::UnexpectedCharacter, start)?;
                            self.st.pos = r;
                            return Ok(());
                        }
                        break false;
                    }
                    k = r;
                }
                Some(_) => k += 1,
            }
        };
        let mut e = k;
        while e > start && matches!(s[e - 1], b' ' | b'\t') {
            e -= 1;
        }
        if e == start {
            return self.skip_unexpected();
        }
        // repair: `{a": 1}`: a quote that ends the word as it would end a key is the closing quote of
        // a key whose opening one is missing.
        let closed = !ended && s[k] == b'"' && self.ends_string(k + 1, Ctx::Key)?;
        self.begin_item();
        if closed {
            self.record(RepairKind::MissingQuote, start)?;
        } else {
            self.record(RepairKind::UnquotedKey, start)?;
        }
        self.st.out.push(b'"');
        escape_into(&mut self.st.out, s.span(start, e));
        self.st.out.push(b'"');
        self.st.pos = k + usize::from(closed);
        self.st.loose_keys = true;
        if ended {
            // repair: the input ends inside an unquoted key
            return self.drop_item(RepairKind::TruncatedMember, start);
        }
        self.st.state = State::AfterKey;
        Ok(())
    }

    /// repair: `{"key:value"}`, `{"key:value}`: a key with no colon after it that holds one is a key
    /// and its value, the quotes around that colon missing. `end` is where the key's content ends in the
    /// input; its output must be the same bytes (no escapes). The parser reads on from the colon.
    #[cold]
    #[inline(never)]
    pub(super) fn key_holds_value(&mut self, end: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let out = &self.st.out;
        let Some(f) = self.st.stack.last() else {
            return Ok(false);
        };
        // The key's content as written, between its quotes.
        let open = f.item_out + usize::from(f.count > 0) + 1;
        let content = out
            .get(open..out.len().saturating_sub(1))
            .unwrap_or_default();
        let from = end.wrapping_sub(content.len());
        let colon = content.iter().position(|&b| b == b':').unwrap_or(0);
        if colon == 0 || colon + 1 == content.len() || from > end || s.span(from, end) != content {
            return Ok(false);
        }
        self.record(RepairKind::MissingQuote, from + colon)?;
        self.cut_output(open + colon);
        self.st.out.push(b'"');
        self.st.pos = from + colon;
        self.st.state = State::AfterKey;
        Ok(true)
    }

    /// A key with no value after the members of an object in a list, then the list's `]`, or a comma
    /// and no key: the object's `}` is missing, or misplaced, and the key is the list's next item
    /// (`[{"i": 1, "b"]`, `[{"i": 1, "b", "c"]`, `[{"i": 1, "b", }]`).
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn key_is_next_item(&mut self) -> Result<bool, Stop> {
        let Some(f) = self.st.stack.last().copied() else {
            return Ok(false);
        };
        if f.count == 0 || !self.in_list() {
            return Ok(false);
        }
        let s = self.input.seen();
        let fits = match s.punct(self.st.pos) {
            (b']', _) => true,
            (b',', width) => {
                let (r, _) = self.peek_past_space_and_comments(self.st.pos + width, true)?;
                !self.is_key_ahead(r)?
            }
            _ => false,
        };
        if !fits {
            return Ok(false);
        }
        self.record(RepairKind::MissingBracket, self.st.pos)?;
        self.pop_frame();
        // The record ends where the member began; the list counts it here and the string below
        // (`value_done`), which begins at the member's comma.
        self.insert_output(f.item_out, b'}');
        self.st.tentative = None;
        if let Some(p) = self.st.stack.last_mut() {
            p.count += 1;
            p.item_out = f.item_out + 1;
        }
        self.value_done();
        Ok(true)
    }

    pub(super) fn after_key(&mut self) -> Step {
        match self.input.seen().punct(self.st.pos) {
            (b':', 1) => {
                self.st.out.push(b':');
                self.st.pos += 1;
                self.st.state = State::Value;
                Ok(())
            }
            (b':', width) => {
                // repair: `{"名前"："太郎"}`
                self.record(RepairKind::FullwidthPunctuation, self.st.pos)?;
                self.st.out.push(b':');
                self.st.pos += width;
                self.st.state = State::Value;
                Ok(())
            }
            (b'=', _) => {
                // repair: `key = value`, `key => value` (Lua, Python's keywords, Ruby, PHP)
                let arrow = self.input.seen().is_at(self.st.pos, b"=>")?;
                self.record(RepairKind::MissingColon, self.st.pos)?;
                self.st.out.push(b':');
                self.st.pos += 1 + usize::from(arrow);
                self.st.loose_keys = true;
                self.st.state = State::Value;
                Ok(())
            }
            // repair: a key with no value, `{"a", "b": 1}`
            (b',' | b'}' | b']', _) => {
                // The key's closing quote, past the spaces and line breaks before the delimiter.
                if let Some((quote, _)) = self.before_spaces(self.st.pos) {
                    if self.key_holds_value(quote)? {
                        return Ok(());
                    }
                }
                if self.key_is_next_item()? {
                    return Ok(());
                }
                self.drop_item(RepairKind::MissingValue, self.st.pos)
            }
            _ => {
                // repair: `{"a" 1}`
                self.record(RepairKind::MissingColon, self.st.pos)?;
                self.st.out.push(b':');
                self.st.state = State::Value;
                Ok(())
            }
        }
    }
}

/// Whether `b`, the first byte after a `{` and its JSON spaces, may begin a Python set's first item or
/// a space [`Input::peek_past_space`] skips before it (a vertical tab, a form feed, a no-break or other
/// Unicode space).
pub(super) fn may_open_set(b: u8) -> bool {
    matches!(b, b'\'' | b'-' | b'0'..=b'9' | 0x0B | 0x0C | 0x80..)
}
