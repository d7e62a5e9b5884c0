//! A JSON value for the schema engine: parsed from strict JSON text, compared, and written back.
//!
//! Objects keep their members in order, with the last of duplicate keys winning as in `JSON.parse`.
//! Parsing, writing, comparing and dropping use explicit stacks, so no input depth can overflow the
//! call stack.
//!
//! One file, although long: the value, its strict parser and its writer share the escape rules and the
//! explicit-stack walks, and are read together.

use super::sub;
use crate::prelude::*;

pub use super::number::Number;

/// A JSON value.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as the text it was written as (compared as an exact decimal).
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object: members in order, keys unique.
    Object(Vec<(String, Value)>),
}

impl Drop for Value {
    fn drop(&mut self) {
        // Move nested containers onto a heap stack so that dropping a deep value does not recurse.
        let mut stack: Vec<Value> = match self {
            Value::Array(items) if items.iter().any(Value::is_container) => core::mem::take(items),
            Value::Object(members) if members.iter().any(|(_, v)| v.is_container()) => {
                core::mem::take(members)
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect()
            }
            _ => return,
        };
        while let Some(mut v) = stack.pop() {
            match &mut v {
                Value::Array(items) => stack.append(items),
                Value::Object(members) => {
                    stack.extend(core::mem::take(members).into_iter().map(|(_, v)| v))
                }
                _ => {}
            }
        }
    }
}

/// The JSON type names used by the `type` keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `integer` (a number with no fractional part)
    Integer,
    /// `number`
    Number,
    /// `string`
    String,
    /// `array`
    Array,
    /// `object`
    Object,
}

impl Kind {
    /// The name as written in schemas.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }

    /// The kind named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "null" => Kind::Null,
            "boolean" => Kind::Boolean,
            "integer" => Kind::Integer,
            "number" => Kind::Number,
            "string" => Kind::String,
            "array" => Kind::Array,
            "object" => Kind::Object,
            _ => return None,
        })
    }
}

impl Value {
    fn is_container(&self) -> bool {
        matches!(self, Value::Array(_) | Value::Object(_))
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The most specific type name of this value (`integer` for whole numbers).
    pub fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(n) if n.is_integer() => Kind::Integer,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    /// Whether the value is of type `kind` (an integer is also a `number`).
    pub fn is(&self, kind: Kind) -> bool {
        let own = self.kind();
        own == kind || (kind == Kind::Number && own == Kind::Integer)
    }

    /// Parses strict JSON text. Containers deeper than `max_depth` are an error.
    ///
    /// # Errors
    /// A [`ParseError`] with the byte offset of the first problem.
    pub fn parse(text: &str, max_depth: usize) -> Result<Value, ParseError> {
        Reader {
            s: text.as_bytes(),
            text,
            pos: 0,
        }
        .document(max_depth)
    }

    /// Writes the value as compact JSON text, in the form `JSON.stringify` produces.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(self, &mut out);
        out
    }
}

/// Deep equality in the JSON Schema sense: numbers compare by value (`1` equals `1.0`), object member
/// order does not matter.
pub fn equal(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Null, Value::Null) => {}
            (Value::Bool(x), Value::Bool(y)) if x == y => {}
            (Value::Number(x), Value::Number(y)) if x.cmp_value(y).is_eq() => {}
            (Value::String(x), Value::String(y)) if x == y => {}
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                stack.extend(x.iter().zip(y))
            }
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                for (k, v) in x {
                    match b.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// Where strict JSON text stopped parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// Whether the problem is nesting deeper than the limit.
    pub too_deep: bool,
}

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

/// An open container while parsing: the values so far, and for objects the key of the pending member.
enum Open {
    Array(Vec<Value>),
    Object(Vec<(String, Value)>, String),
}

impl Reader<'_> {
    fn fail<T>(&self) -> Result<T, ParseError> {
        Err(ParseError {
            offset: self.pos.min(self.s.len()),
            too_deep: false,
        })
    }

    fn space(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        if self.s.get(self.pos) == Some(&b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn document(mut self, max_depth: usize) -> Result<Value, ParseError> {
        let mut stack: Vec<Open> = Vec::new();
        'value: loop {
            self.space();
            // Read one value; containers open a frame and continue with their first item.
            let mut v = match self.s.get(self.pos) {
                Some(b'{') | Some(b'[') => {
                    if stack.len() >= max_depth {
                        return Err(ParseError {
                            offset: self.pos,
                            too_deep: true,
                        });
                    }
                    let object = self.s[self.pos] == b'{';
                    self.pos += 1;
                    if object {
                        if self.eat(b'}') {
                            Value::Object(Vec::new())
                        } else {
                            let key = self.key()?;
                            stack.push(Open::Object(Vec::new(), key));
                            continue 'value;
                        }
                    } else if self.eat(b']') {
                        Value::Array(Vec::new())
                    } else {
                        stack.push(Open::Array(Vec::new()));
                        continue 'value;
                    }
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
                _ => return self.fail(),
            };
            // Attach the value to its container, closing every container that ends here.
            loop {
                match stack.last_mut() {
                    None => {
                        self.space();
                        return if self.pos == self.s.len() {
                            Ok(v)
                        } else {
                            self.fail()
                        };
                    }
                    Some(Open::Array(items)) => {
                        items.push(v);
                        if self.eat(b',') {
                            continue 'value;
                        }
                        if !self.eat(b']') {
                            return self.fail();
                        }
                    }
                    Some(Open::Object(members, key)) => {
                        members.push((core::mem::take(key), v));
                        if self.eat(b',') {
                            let next = self.key()?;
                            if let Some(Open::Object(_, k)) = stack.last_mut() {
                                *k = next;
                            }
                            continue 'value;
                        }
                        if !self.eat(b'}') {
                            return self.fail();
                        }
                    }
                }
                v = match stack.pop() {
                    Some(Open::Array(items)) => Value::Array(items),
                    Some(Open::Object(members, _)) => Value::Object(dedupe(members)),
                    None => unreachable!("checked above"),
                };
            }
        }
    }

    fn key(&mut self) -> Result<String, ParseError> {
        self.space();
        if self.s.get(self.pos) != Some(&b'"') {
            return self.fail();
        }
        let k = self.string()?;
        if !self.eat(b':') {
            return self.fail();
        }
        Ok(k)
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, ParseError> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            self.fail()
        }
    }

    fn number(&mut self) -> Result<Number, ParseError> {
        let start = self.pos;
        let s = self.s;
        let digits = |mut i: usize| {
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        let mut i = start + usize::from(s[start] == b'-');
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i),
            _ => return self.fail(),
        }
        if s.get(i) == Some(&b'.') {
            let j = digits(i + 1);
            if j == i + 1 {
                self.pos = j;
                return self.fail();
            }
            i = j;
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let j = digits(i);
            if j == i {
                self.pos = j;
                return self.fail();
            }
            i = j;
        }
        self.pos = i;
        Ok(Number::from_json_text(sub(self.text, start..i)))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let h = self
            .s
            .get(self.pos..self.pos + 4)
            .and_then(|h| core::str::from_utf8(h).ok());
        match h.and_then(|h| u32::from_str_radix(h, 16).ok()) {
            Some(u) => {
                self.pos += 4;
                Ok(u)
            }
            None => self.fail(),
        }
    }

    /// The end of the run of bytes from `from` that a string holds as they are.
    fn plain_run(&self, from: usize) -> usize {
        from + plain_len(&self.s[from..])
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1;
        // The common case, no escape: one allocation of the exact size.
        let end = self.plain_run(self.pos);
        if self.s.get(end) == Some(&b'"') {
            let out = sub(self.text, self.pos..end).to_string();
            self.pos = end + 1;
            return Ok(out);
        }
        let mut out = String::new();
        loop {
            let run = self.pos;
            self.pos = self.plain_run(run);
            out.push_str(sub(self.text, run..self.pos));
            match self.s.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let e = self.s.get(self.pos).copied();
                    self.pos += 1;
                    let c = match e {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let lo_follows = self.s[self.pos..].starts_with(b"\\u");
                            if (0xD800..0xDC00).contains(&hi) && lo_follows {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                        .unwrap_or('\u{FFFD}')
                                } else {
                                    self.pos = save;
                                    '\u{FFFD}'
                                }
                            } else {
                                // A lone surrogate has no UTF-8 form: it reads as U+FFFD.
                                char::from_u32(hi).unwrap_or('\u{FFFD}')
                            }
                        }
                        _ => {
                            self.pos -= 1;
                            return self.fail();
                        }
                    };
                    out.push(c);
                }
                _ => return self.fail(),
            }
        }
    }
}

/// Resolves duplicate keys as `JSON.parse` does: the last value wins, in the first one's place.
/// Sorting finds duplicates in n log n, so an object with many keys stays linear-ish.
fn dedupe(mut members: Vec<(String, Value)>) -> Vec<(String, Value)> {
    if members.len() < 2 {
        return members;
    }
    // Small objects (the common case) are checked pairwise, without allocating.
    let n = members.len();
    if n <= 16 && !(1..n).any(|j| (0..j).any(|i| members[i].0 == members[j].0)) {
        return members;
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    crate::order::sort_indices(&mut order, &|a, b| {
        members[a].0.cmp(&members[b].0).then(a.cmp(&b))
    });
    if !order.windows(2).any(|w| members[w[0]].0 == members[w[1]].0) {
        return members;
    }
    // For each run of equal keys: the first index keeps its place and takes the last value.
    let mut keep = vec![true; members.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && members[order[j + 1]].0 == members[order[i]].0 {
            j += 1;
        }
        if j > i {
            let last = core::mem::take(&mut members[order[j]].1);
            members[order[i]].1 = last;
            for &k in &order[i + 1..=j] {
                keep[k] = false;
            }
        }
        i = j + 1;
    }
    let mut n = 0;
    members.retain(|_| {
        n += 1;
        keep[n - 1]
    });
    members
}

/// How many bytes `bytes` starts with that a JSON string holds as they are: up to the first `"`, `\\`
/// or control character. Eight bytes a step: a string's text is most of a document, read once when it
/// is parsed and once when it is written.
fn plain_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` below `ONES * n`, exact up to the first such byte (a borrow
    // only marks bytes after it).
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let found = below(w ^ (ONES * u64::from(b'"')), 1)
            | below(w ^ (ONES * u64::from(b'\\')), 1)
            | below(w, 0x20);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + bytes[i..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(bytes.len() - i)
}

/// Appends `s` as a JSON string literal, escaped as `JSON.stringify` escapes.
#[inline(never)]
pub fn write_str(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let (mut run, mut i) = (0, 0);
    loop {
        i += plain_len(&bytes[i..]);
        let Some(&b) = bytes.get(i) else { break };
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            _ => "",
        };
        out.push_str(sub(s, run..i));
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            out.push_str(esc);
        }
        i += 1;
        run = i;
    }
    out.push_str(sub(s, run..));
    out.push('"');
}

fn write_json(v: &Value, out: &mut String) {
    // Each frame is a container and the index of its next child.
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, i)) = stack.pop() {
        match v {
            Value::Array(items) => {
                if i == items.len() {
                    out.push(if i == 0 { '[' } else { ']' });
                    if i == 0 {
                        out.push(']');
                    }
                    continue;
                }
                out.push(if i == 0 { '[' } else { ',' });
                stack.push((v, i + 1));
                stack.push((&items[i], 0));
            }
            Value::Object(members) => {
                if i == members.len() {
                    out.push(if i == 0 { '{' } else { '}' });
                    if i == 0 {
                        out.push('}');
                    }
                    continue;
                }
                out.push(if i == 0 { '{' } else { ',' });
                write_str(&members[i].0, out);
                out.push(':');
                stack.push((v, i + 1));
                stack.push((&members[i].1, 0));
            }
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(n.text()),
            Value::String(s) => write_str(s, out),
        }
    }
}

/// Appends `token` to a JSON Pointer, escaping `~` and `/`.
#[inline(never)]
pub fn push_pointer(pointer: &mut String, token: &str) {
    pointer.push('/');
    // A byte test: a `[char]` pattern would decode every character.
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compares() {
        for text in [
            r#"{"a":[1,2.5,-3e-7,true,null,"x\"\n\u0001"],"b":{}}"#,
            "[]",
            r#""é😀""#,
            "1e+300",
            "-0",
            "2.50",
        ] {
            let v = Value::parse(text, 100).unwrap();
            assert_eq!(v.to_json(), text, "numbers are written as they were read");
            let again = Value::parse(&v.to_json(), 100).unwrap();
            assert!(equal(&v, &again), "{text}");
        }
        assert!(equal(
            &Value::parse("1.0", 1).unwrap(),
            &Value::parse("1", 1).unwrap()
        ));
        assert!(equal(
            &Value::parse(r#"{"a":1,"b":2}"#, 1).unwrap(),
            &Value::parse(r#"{"b":2,"a":1}"#, 1).unwrap()
        ));
        assert_eq!(
            Value::parse(r#"{"a":1,"a":2}"#, 1).unwrap().to_json(),
            r#"{"a":2}"#
        );
    }

    #[test]
    fn rejects_what_json_rejects() {
        for text in [
            "", "[1,]", "{\"a\"}", "01", "1.", "[1 2]", "\"\\x\"", "tru", "{} {}", "\"a\nb\"",
        ] {
            assert!(Value::parse(text, 10).is_err(), "{text:?}");
        }
        let deep = "[".repeat(50) + &"]".repeat(50);
        assert!(Value::parse(&deep, 49).unwrap_err().too_deep);
        assert!(Value::parse(&deep, 50).is_ok());
    }

    #[test]
    fn deep_values_drop_and_write_without_recursion() {
        let n = 1_000_000;
        let deep = "[".repeat(n) + &"]".repeat(n);
        let v = Value::parse(&deep, n).unwrap();
        assert_eq!(v.to_json().len(), 2 * n);
        drop(v);
    }

    /// The word-at-a-time scan stops where a byte-at-a-time one does: every byte value at every place
    /// in the first and second word and in the tail, over fillers below, at and above the stops (a
    /// borrow in the subtraction must not hide the first stop or invent an earlier one).
    #[test]
    fn plain_runs_end_at_the_first_quote_backslash_or_control() {
        let naive = |b: &[u8]| {
            b.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .unwrap_or(b.len())
        };
        for filler in [
            b'a', b' ', b'!', b'#', b'[', b']', 0x7f, 0x80, 0xa2, 0xdc, 0xff,
        ] {
            for len in 0..20 {
                for at in 0..len {
                    for stop in 0..=255u8 {
                        let mut b = vec![filler; len];
                        b[at] = stop;
                        assert_eq!(plain_len(&b), naive(&b), "{b:?}");
                        if at + 1 < len {
                            b[at + 1] = 0;
                            assert_eq!(plain_len(&b), naive(&b), "{b:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn strings_are_written_as_json_stringify_writes_them() {
        for c in (0u8..=0x7f).map(char::from).chain(['é', '😀', '\u{2028}']) {
            for before in ["", "abcdefghij"] {
                let s: String = [before, &c.to_string(), "xyz"].concat();
                let mut out = String::new();
                write_str(&s, &mut out);
                let expected = match c {
                    '"' => "\\\"".to_string(),
                    '\\' => "\\\\".to_string(),
                    '\n' => "\\n".to_string(),
                    '\r' => "\\r".to_string(),
                    '\t' => "\\t".to_string(),
                    '\u{8}' => "\\b".to_string(),
                    '\u{c}' => "\\f".to_string(),
                    c if u32::from(c) < 0x20 => crate::cat!(
                        "\\u00",
                        if u32::from(c) < 0x10 { "0" } else { "1" },
                        char::from(b"0123456789abcdef"[(u32::from(c) & 15) as usize])
                    ),
                    c => c.to_string(),
                };
                assert_eq!(
                    out,
                    crate::cat!("\"", before, expected.as_str(), "xyz\""),
                    "{c:?}"
                );
            }
        }
    }
}
