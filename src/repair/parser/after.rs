//! What follows a value: separators and closers, the end of the root value, the end of the input.

use super::*;

impl Parser<'_> {
    pub(super) fn after_value(&mut self) -> Step {
        let s = self.input.seen();
        let (b, width) = s.punct(self.st.pos);
        let top = self.top().expect("after_value has an open container");
        if top == Container::Call {
            if b == b',' {
                return self.call_arguments(width);
            }
            if b == b')' {
                self.st.pos += 1;
            }
            // Anything else ends the call implicitly and is read again by the parent.
            return self.close_call();
        }
        match b {
            b',' if top == Container::Wrapper => {
                let (r, _) = self.peek_past_space_and_comments(self.st.pos + width, false)?;
                if matches!(s.at(r)?, Some(b'{' | b'[')) {
                    self.separator(width)?;
                    self.st.state = State::Value;
                } else {
                    self.pop_and_close();
                }
                Ok(())
            }
            b',' if top == Container::Object && self.st.implicit == self.st.stack.len() => {
                self.record_comma(width)
            }
            b',' => {
                self.separator(width)?;
                self.st.state = State::item(top == Container::Object);
                Ok(())
            }
            b'}' | b']' => self.close_with(b),
            b')' if self.closes_top(b) => self.close_with(b),
            b':' => self.key_in_value_place_taken(top, width),
            b')' => self.skip_unexpected(),
            b'.' | 0xE2 if self.ellipsis_at(self.st.pos)? => self.ellipsis(),
            // repair: `[{"i": 1 {"i": 2}]`: the object's `}` and the comma after it are missing (the
            // `}` of each object up to the list: `[{"a": {"i": 1 {"a": …`)
            b'{' | b'[' if self.objects_above_list() > 0 => self.close_missing_brace(),
            _ if top == Container::Wrapper => {
                self.pop_and_close();
                Ok(())
            }
            // repair: `{"n": 12345", "m": true"}`: the closing quote of a value whose opening one is missing
            b'"' if self.stray_quote()? => self.skip_unexpected(),
            _ if s.quote_at(self.st.pos).is_some() || is_word_byte(b) || b == b'{' || b == b'[' => {
                // repair: `[1 2]`, `{"a": 1 "b": 2}`
                self.record(RepairKind::MissingComma, self.st.pos)?;
                self.st.state = State::item(top == Container::Object);
                Ok(())
            }
            _ => self.skip_unexpected(),
        }
    }

    /// A colon after a value (see `key_in_value_place`). In an array, after a string item, the item was
    /// a key and the `{` of its record is missing (`["name": "Ada"]`): the object opens around it, and
    /// the array's `]` closes it too. In an object, after a value that repeats the member's key
    /// (`{"k": "k": "v"}`), the repeated key is skipped. Anywhere else the colon is.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn key_in_value_place_taken(&mut self, top: Container, width: usize) -> Step {
        let Some(&f) = self.st.stack.last() else {
            return self.skip_unexpected();
        };
        let at = f.item_out + (f.count > 1) as usize;
        let out = &self.st.out;
        if top == Container::Array && out.get(at) == Some(&b'"') && out.last() == Some(&b'"') {
            // repair: `["name": "Ada"]`
            self.record(RepairKind::MissingBracket, self.st.pos)?;
            self.insert_output(at, b'{');
            if let Some(f) = self.st.stack.last_mut() {
                f.count -= 1;
            }
            self.push_frame(Container::Object)?;
            if let Some(f) = self.st.stack.last_mut() {
                f.item_out = at + 1;
            }
            self.st.tentative = Some(at + 1);
            self.st.implicit = self.st.stack.len();
            self.st.state = State::AfterKey;
            return Ok(());
        }
        if top == Container::Object && self.echoes_key(true) {
            // repair: `{"k": "k": "v"}`
            self.record(RepairKind::UnexpectedCharacter, self.st.pos)?;
            let len = self.st.out.len();
            self.cut_output(len - (len - at - 1) / 2);
            if let Some(f) = self.st.stack.last_mut() {
                f.count -= 1;
            }
            self.st.tentative = Some(f.item_out);
            self.st.pos += width;
            self.st.state = State::Value;
            return Ok(());
        }
        self.skip_unexpected()
    }

    /// A comma after a call's argument: unless a key follows (the call's `)` is missing before the next
    /// member), the call has several arguments (`foo(1, 2)`), and its value is the array of them.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn call_arguments(&mut self, width: usize) -> Step {
        let (r, _) = self.peek_past_space_and_comments(self.st.pos + width, false)?;
        // An item the input ends in is the next argument (`(1, 2`), not a member cut short; so is a
        // keyword argument after a positional one (`datetime(2024, 5, tzinfo=None)`).
        if self.key_ahead(r, false)? && !self.keyword_argument_at(r)? {
            return self.close_call();
        }
        let Some(f) = self.st.stack.last_mut() else {
            return self.close_call();
        };
        f.kind = Container::Tuple;
        f.closer = closer_of(Container::Tuple);
        let at = f.item_out;
        self.insert_output(at, b'[');
        self.separator(width)?;
        self.st.state = State::Value;
        Ok(())
    }

    /// Whether the quote at the current position stands right after a number or keyword and before a
    /// delimiter or the end: nothing can follow it there.
    #[inline(never)]
    fn stray_quote(&self) -> Result<bool, Stop> {
        let s = self.input.seen();
        let (r, _) = self.input.peek_past_space(self.st.pos + 1);
        Ok(s.at(self.st.pos - 1)?
            .is_some_and(|b| b.is_ascii_alphanumeric())
            && matches!(s.punct_at(r)?, None | Some(b',' | b'}' | b']')))
    }

    /// A comma in an object opened around a key written as an array's item: a key after it is the
    /// record's next member; anything else is the array's next item, and the record ends here
    /// (`["a": 1, "b"]`).
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    fn record_comma(&mut self, width: usize) -> Step {
        // Every look-ahead before the first change: a stream may stop in one and run the step again.
        let (r, _) = self.peek_past_space_and_comments(self.st.pos + width, true)?;
        let key =
            self.is_key_ahead(r)? && !self.repeats_key(r, self.st.stack.len().wrapping_sub(2))?;
        self.separator(width)?;
        if key {
            self.st.state = State::Key;
            return Ok(());
        }
        self.st.implicit = 0;
        self.close_missing_brace()
    }

    /// Whether the key at `r` (quoted or bare) is the first key of the current item of the list whose
    /// frame is `list`: a record written in an array without its braces (whose commas
    /// [`Self::record_comma`] reads: `["name": "Ada", "age": 3, "name": "Bob", "age": 4]` is two), or a
    /// record whose `},` is missing before the next (`[{"id": 1, "n": "a" {"id": 2, …`). Records that
    /// repeat a shape repeat its first key first.
    #[cold]
    #[inline(never)]
    pub(super) fn repeats_key(&self, r: usize, list: usize) -> Result<bool, Stop> {
        let s = self.input.seen();
        let first = s.at(r)?;
        let Some(frame) = self.st.stack.get(list) else {
            return Ok(false);
        };
        if !first.is_some_and(|b| b == b'"' || is_ident_start(b)) {
            return Ok(false);
        }
        // The key's name as written: between its quotes (a key with an escape is never compared), or a
        // bare word (`[name: "Ada", age: 3, name: "Bob"]`).
        let quoted = first == Some(b'"');
        let end = if quoted {
            s.scan(r + 1, |b| b != b'"' && b != b'\\')?
        } else {
            s.scan(r, is_word_byte)?
        };
        if quoted && s.at(end)? != Some(b'"') {
            return Ok(false);
        }
        let name = s.span(r + usize::from(quoted), end);
        // The record's `{`, inserted at its array's item (after the comma that separates it), then the
        // first key's name in quotes and its colon.
        let out = &self.st.out;
        let open = frame.item_out + usize::from(out.get(frame.item_out) == Some(&b','));
        let at = open + 2 + name.len();
        Ok(out.get(open..open + 2) == Some(b"{\"")
            && out.get(open + 2..at) == Some(name)
            && out.get(at..at + 2) == Some(b"\":"))
    }

    /// After the root value: stray closers, comma-separated values, an object closed too early, or the end.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn after_root(&mut self) -> Step {
        let s = self.input.seen();
        match s[self.st.pos] {
            b'}' | b']' => {
                // repair: `{"a":1}}`
                self.record(RepairKind::SuperfluousBracket, self.st.pos)?;
                self.st.pos += 1;
                return Ok(());
            }
            b',' => {
                // Comments may stand between the values (`{…},\n/* 2 */\n{…}`).
                let (r, _) = self.peek_past_space_and_comments(self.st.pos + 1, false)?;
                let next = s.at(r)?;
                if self.st.root_is_object && self.is_key_ahead(r)? {
                    // repair: `{"a":1}, "b":2}`: the root object was closed too early
                    self.st.pending_comma = Some(self.st.pos);
                    self.reopen(Container::Object)?;
                    self.st.pos += 1;
                    return Ok(());
                }
                if matches!(next, Some(b'{' | b'[')) {
                    // repair: `{…}, {…}`: an array whose brackets were forgotten
                    self.record(RepairKind::MultipleValues, self.st.pos)?;
                    self.st.out.insert(self.st.root_out, b'[');
                    self.st.wrapped = true;
                    self.st.stack.push(Frame {
                        kind: Container::Wrapper,
                        count: 1,
                        item_out: self.st.out.len(),
                        closer: closer_of(Container::Wrapper),
                    });
                    self.st.pending_comma = Some(self.st.pos);
                    self.st.pos += 1;
                    self.st.state = State::Value;
                    return Ok(());
                }
            }
            b')' if self.st.jsonp => {
                let (r, _) = self.input.peek_past_space(self.st.pos + 1);
                let r = if s.at(r)? == Some(b';') { r + 1 } else { r };
                let (r, _) = self.input.peek_past_space(r);
                if !s.has(r)? {
                    self.st.state = State::Done;
                    return Ok(());
                }
            }
            _ => {}
        }
        // Whatever follows is not part of the value: prose, a second value, a closing fence's tail.
        self.record(RepairKind::SurroundingText, self.st.pos)?;
        self.st.state = State::Done;
        Ok(())
    }

    /// Takes the comma at the current position, `width` bytes long (3 for a full-width `，`), as the
    /// separator before the next item.
    fn separator(&mut self, width: usize) -> Step {
        if width > 1 {
            // repair: `{"a": 1，"b": 2}`
            self.record(RepairKind::FullwidthPunctuation, self.st.pos)?;
        }
        self.st.pending_comma = Some(self.st.pos);
        self.st.pos += width;
        Ok(())
    }

    /// Whether a key (`"k":`, `'k':`, `k:`) starts at `i`; a token the input ends after reads as one
    /// (truncated).
    #[inline]
    pub(super) fn is_key_ahead(&self, i: usize) -> Result<bool, Stop> {
        self.key_ahead(i, true)
    }

    /// [`Self::is_key_ahead`], where a token the input ends after is a key only with `truncated`.
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn key_ahead(&self, i: usize, truncated: bool) -> Result<bool, Stop> {
        let s = self.input.seen();
        if !s.has(i)? {
            return Ok(false);
        }
        let quoted = self.opening_quote_at(i)?;
        let after = if let Some((style, q)) = quoted {
            match self.find_closer(style, i + q)? {
                // `"key:"value"`: the colon inside the quotes, as `string_content` reads it.
                Some(k)
                    if k > i + 2
                        && s.span(k - 2, k) == b":\""
                        && s.at(k)?.is_some_and(is_word_byte) =>
                {
                    return Ok(true)
                }
                Some(k) => k,
                None => return Ok(false),
            }
        } else if is_ident_start(s[i]) || s[i].is_ascii_digit() {
            // An identifier, or a number (`{"a": "x", 5: 1}`): JSON keys are strings either way. A quote
            // right after it and before the colon is the closing quote of a key whose opening one is
            // missing (`b":`), as `unquoted_key` reads it.
            // Up to a full-width colon or comma (`{"a": "x", 年龄：30}`), as the fast lane's keys end.
            let mut k = i;
            loop {
                k = s.scan(k, |b| is_word_byte(b) && b != 0xEF)?;
                match s.at(k)? {
                    Some(0xEF) if s.punct(k).1 == 1 => k += 1,
                    // A key of several words, where keys are loose and no quote in the string being
                    // read was taken as content: prose's or code's (`"He said "stop", then shouted:
                    // run"`, `"let a = "x", b = "y";"`).
                    Some(b' ')
                        if self.st.loose_keys
                            && self.st.str.quotes_seen == 0
                            && s.at(k + 1)?.is_some_and(is_word_byte) =>
                    {
                        k += 1
                    }
                    _ => break,
                }
            }
            if s.at(k)? == Some(b'"') && s.punct_at(k + 1)? == Some(b':') {
                k + 1
            } else {
                k
            }
        } else {
            return Ok(false);
        };
        // Input that ends before the colon could appear still reads as a (truncated) key.
        let (k, newline) = self.input.peek_past_space(after);
        match s.punct_at(k)? {
            None => Ok(truncated),
            Some(b'`') if s.fence_at(k)? => Ok(truncated),
            Some(b':') => Ok(true),
            // A colon written `=` (see `loose_keys`), on the same terms as a key of several words.
            Some(b'=') if self.st.loose_keys && self.st.str.quotes_seen == 0 => Ok(true),
            // A quoted key with its colon missing (`"age" 30`), as `ends_string` reads one; not between
            // typographic quotes, which are prose's (`‘fine’ ‘fine’`).
            Some(b)
                if k > after
                    && matches!(quoted, Some((QuoteStyle::Double | QuoteStyle::Single, _))) =>
            {
                match s.quote_at(k) {
                    // A quoted value that ends before a `,`, a `}` or a line break: not quoted words
                    // side by side in prose (`"no", "fine" "run!" she said`).
                    Some((style, q)) => match self.find_closer(style, k + q)? {
                        Some(e) => self.value_ends_at(e, true),
                        None => Ok(true),
                    },
                    None => self.whole_value_at(k, b, false),
                }
            }
            // Words before a quoted key on their line (`NOTE "items": [1]`), which `unquoted_key` skips.
            Some(_) if k > after && !newline && s.quote_at(k).is_some() => {
                self.key_ahead(k, truncated)
            }
            Some(_) => Ok(false),
        }
    }

    /// Offset just after the next closing quote for `style` from `i` on the same line, skipping escapes;
    /// the end of the source when the input ends first, or a closing fence before the line break;
    /// `None` at a line break.
    pub(super) fn find_closer(
        &self,
        style: QuoteStyle,
        mut i: usize,
    ) -> Result<Option<usize>, Stop> {
        let s = self.input.seen();
        let start = i;
        let fence_before = |at: usize| fence_in(s.span(start, at)).map(|k| start + k);
        if let Some(quote) = match style {
            QuoteStyle::Double => Some(b'"'),
            QuoteStyle::Single => Some(b'\''),
            _ => None,
        } {
            // Straight quotes: jump between the only bytes that matter. Only the opener's own kind of
            // quote closes, so a typographic quote inside a straight-quoted key cannot fool the look-ahead.
            loop {
                let Some(at) = s.find3(i, quote, b'\\', b'\n')? else {
                    return Ok(Some(self.input.end()));
                };
                match s[at] {
                    b'\\' => i = at + 2,
                    b'\n' => return Ok(fence_before(at)),
                    _ => return Ok(Some(at + 1)),
                }
            }
        }
        loop {
            match s.at(i)? {
                None => return Ok(Some(self.input.end())),
                Some(b'\\') => i += 2,
                Some(b'\n') => return Ok(fence_before(i)),
                Some(_) => {
                    // Typographic openers: straight quotes were handled above.
                    // Typographic styles: `curly_closes` concerns straight double quotes only.
                    let c = s.closer_len(style, true, i);
                    if c > 0 {
                        return Ok(Some(i + c));
                    }
                    i += 1;
                }
            }
        }
    }

    /// The end of the source inside a value: close what is open, dropping what has not started.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn finish_at_end(&mut self) -> Step {
        let at = self.input.end();
        match self.st.state {
            State::Value => {
                // A wrapper call whose argument never started began an item in its container.
                let mut in_call = false;
                while self.top() == Some(Container::Call) {
                    self.st.stack.pop();
                    in_call = true;
                }
                match self.top() {
                    None => return Err(self.fail(ErrorKind::NoJson, at)),
                    // repair: `{"age":` — the member's value never started
                    Some(Container::Object) => self.drop_item(RepairKind::TruncatedMember, at)?,
                    Some(_) if in_call => self.drop_item(RepairKind::TruncatedMember, at)?,
                    Some(_) => {}
                }
            }
            // repair: `{"a":1, "b"` — the key has no value
            State::AfterKey => self.drop_item(RepairKind::TruncatedMember, at)?,
            _ => {}
        }
        while let Some(kind) = self.top() {
            if !matches!(kind, Container::Call | Container::Wrapper) {
                self.record(RepairKind::UnclosedContainer, at)?;
            }
            self.st.pos = at;
            if kind == Container::Call {
                self.close_call()?;
                continue;
            }
            self.pop_and_close();
            if kind == Container::Wrapper {
                break;
            }
        }
        Ok(())
    }

    /// repair: `{"a":1}, "b":2}`, `{"k": [[1], [2]], [3]}`: the container just written was closed too
    /// early; it is opened again, and what follows its comma is its next member or item.
    #[inline(never)]
    #[cfg_attr(shipped, optimize(size))]
    pub(super) fn reopen(&mut self, kind: Container) -> Step {
        self.record(
            RepairKind::EarlyClose,
            self.st.pending_comma.unwrap_or(self.st.pos),
        )?;
        // Through `cut_output`: a stream that showed the closer (a member cut after it made it settled,
        // `{"k": [] "a"], [1]}`) reads the value again.
        self.cut_output(self.st.out.len() - 1);
        // An empty container (`{}, "k": 1`) has nothing to separate from.
        let count = !matches!(self.st.out.last(), Some(b'{' | b'[')) as u32;
        self.push_frame(kind)?;
        if let Some(f) = self.st.stack.last_mut() {
            f.count = count;
        }
        self.st.state = State::item(kind == Container::Object);
        Ok(())
    }
}
