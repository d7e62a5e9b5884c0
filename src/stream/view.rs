//! The partial value as a list of changes.
//!
//! The tolerant parser writes strict, compact JSON text and knows how much of it is settled (no later
//! step can rewind it). [`View`] reads the settled text once, left to right, and describes what it adds
//! as operations on a live value, so a host can keep its value current in time proportional to the
//! change, never to the size of the value. It is a strict reader of text this crate wrote; the
//! tolerance lives in the parser.
//!
//! Each change is a [`Change`]; the binding encodes them for the host (`crate::wire`). Text in a change
//! is as it stands between the quotes of a JSON string, escapes kept: a fragment never splits an escape,
//! but the two halves of a surrogate pair may arrive in two fragments, so decode a string once it is whole.

use crate::prelude::*;
use crate::repair::chars::find_byte3;
use crate::schema::{Released, Walk};

/// One change to the partial value. "The next value" is the root, the next element of the innermost
/// array, or the member just named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    /// The value is gone (the JSON turned out to be elsewhere): start again.
    Reset,
    /// An object starts as the next value.
    Object,
    /// An array starts as the next value.
    Array,
    /// The innermost container is complete.
    Close,
    /// The next value is the member with this key (JSON-escaped) of the innermost object.
    Key(&'a str),
    /// A string starts as the next value, with this text (JSON-escaped) so far.
    String(&'a str),
    /// The open string goes on with this text (JSON-escaped).
    Append(&'a str),
    /// The open string is complete.
    EndString,
    /// A number, `true`, `false` or `null`, as its JSON token, is the next value.
    Scalar(&'a str),
    /// The root becomes the first element of a new root array (the text holds comma-separated values).
    Wrap,
}

/// What a change is, without its text. The order is the wire's (`crate::wire`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    Reset,
    Object,
    Array,
    Close,
    Key,
    String,
    Append,
    EndString,
    Scalar,
    Wrap,
}

impl Code {
    /// Whether a change of this code has text: a key, string content, an append, a number or literal.
    pub(crate) fn has_text(self) -> bool {
        matches!(self, Code::Key | Code::String | Code::Append | Code::Scalar)
    }
}

/// Changes since the host last took them. Their text is kept in one buffer, so recording a change
/// allocates nothing once the buffers have grown.
#[derive(Debug, Default)]
pub struct Changes {
    text: String,
    list: Vec<(Code, usize, usize)>,
}

impl Changes {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The changes, in order.
    pub fn iter(&self) -> impl Iterator<Item = Change<'_>> + '_ {
        self.list.iter().map(|&(code, from, to)| {
            let text = self.text.get(from..to).unwrap_or_default();
            match code {
                Code::Reset => Change::Reset,
                Code::Object => Change::Object,
                Code::Array => Change::Array,
                Code::Close => Change::Close,
                Code::Key => Change::Key(text),
                Code::String => Change::String(text),
                Code::Append => Change::Append(text),
                Code::EndString => Change::EndString,
                Code::Scalar => Change::Scalar(text),
                Code::Wrap => Change::Wrap,
            }
        })
    }
}

/// Records changes as the view reads the parser's output.
#[derive(Default)]
pub(crate) struct Recorder {
    text: Vec<u8>,
    list: Vec<(Code, usize, usize)>,
}

impl Recorder {
    fn code(&mut self, code: Code) {
        self.list.push((code, 0, 0));
    }

    /// A change with text: JSON-escaped string content, or a JSON number or literal.
    fn text(&mut self, code: Code, text: &[u8]) {
        let from = self.text.len();
        self.text.extend_from_slice(text);
        self.list.push((code, from, self.text.len()));
    }

    /// The changes recorded so far, each as its code and its text (the parser's output, JSON-escaped).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn raw(&self) -> impl Iterator<Item = (Code, &[u8])> + '_ {
        self.list
            .iter()
            .map(|&(code, from, to)| (code, self.text.get(from..to).unwrap_or_default()))
    }

    /// The text of the one change recorded, if it is an `Append`.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn only_append(&self) -> Option<&[u8]> {
        match self.list.as_slice() {
            [(Code::Append, from, to)] => self.text.get(*from..*to),
            _ => None,
        }
    }

    /// Whether no change was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Forgets the changes recorded so far, keeping the buffers.
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.text.clear();
    }

    /// Takes the changes recorded so far, leaving none. The text is the parser's output, cut only at
    /// ASCII bytes, so it is UTF-8; were it not, the changes are dropped rather than a panic.
    pub fn take(&mut self) -> Changes {
        let list = core::mem::take(&mut self.list);
        match String::from_utf8(core::mem::take(&mut self.text)) {
            Ok(text) => Changes { text, list },
            Err(_) => Changes::default(),
        }
    }
}

/// The schema a view shows the value by: strings the schema restricts to fixed values, or wants as
/// numbers or booleans, are shown only once complete, the second coerced (see [`crate::schema::StringView`]).
pub(crate) type Guide = Walk;

/// Shows a held string, now complete.
fn release(guide: &mut Guide, ops: &mut Recorder) {
    match guide.release() {
        Some(Released::Scalar(json)) => ops.text(Code::Scalar, json.as_bytes()),
        Some(Released::String(text)) => {
            ops.text(Code::String, &text);
            ops.code(Code::EndString);
        }
        None => {}
    }
}

/// How far the host's value has been told about the parser's output.
#[derive(Default)]
pub(crate) struct View {
    /// Output bytes read.
    consumed: usize,
    /// Open containers, `{` or `[`.
    stack: Vec<u8>,
    /// Inside a string value whose closing quote has not been read.
    in_string: bool,
    /// In an object where the next string is a key.
    expect_key: bool,
    /// The root was wrapped in an array.
    wrapped: bool,
    /// Anything has been shown since the last reset.
    shown: bool,
    /// The schema the value is shown by, if any.
    guide: Option<Guide>,
}

impl View {
    /// A view that shows the value by `guide`'s schema.
    pub fn guided(guide: Guide) -> View {
        View {
            guide: Some(guide),
            ..View::default()
        }
    }

    /// Whether the value is shown by a schema.
    pub fn has_guide(&self) -> bool {
        self.guide.is_some()
    }

    /// The value is gone: tells the host, if it was shown anything.
    pub fn reset(&mut self, ops: &mut Recorder) {
        if self.shown {
            ops.code(Code::Reset);
        }
        self.consumed = 0;
        self.stack.clear();
        (self.in_string, self.expect_key, self.wrapped, self.shown) = (false, false, false, false);
        if let Some(g) = &mut self.guide {
            g.reset();
        }
    }

    /// Reads `out[..settled]` past what was read before. `root_start` is where the root value begins in
    /// `out`, and `wrapped` whether the parser has inserted a `[` there.
    /// `rewound_to` is the shortest the output has been cut back to since the last update: when that is
    /// below what was read, what the host was told is no longer the output's, and it starts over.
    pub fn update(
        &mut self,
        out: &[u8],
        settled: usize,
        root_start: usize,
        wrapped: bool,
        rewound_to: usize,
        ops: &mut Recorder,
    ) {
        if rewound_to < self.consumed {
            self.reset(ops);
        }
        if wrapped && !self.wrapped {
            self.wrapped = true;
            // Text already read moved one byte to the right; text not yet read includes the `[`.
            if self.consumed > root_start {
                ops.code(Code::Wrap);
                self.consumed += 1;
                self.stack.insert(0, b'[');
                if let Some(g) = &mut self.guide {
                    g.wrap();
                }
            }
        }
        let end = settled.min(out.len());
        let mut i = self.consumed;
        while i < end {
            self.shown = true;
            if self.in_string {
                let (j, closed) = string_end(out, i, end);
                match self.guide.as_mut().filter(|g| g.holds()) {
                    Some(g) => g.hold(&out[i..j]),
                    None if j > i => ops.text(Code::Append, &out[i..j]),
                    None => {}
                }
                if !closed {
                    i = j;
                    break;
                }
                self.end_string(ops);
                i = j + 1;
                continue;
            }
            match out[i] {
                b @ (b'{' | b'[') => {
                    if let Some(g) = &mut self.guide {
                        g.open(b == b'{');
                    }
                    ops.code(if b == b'{' { Code::Object } else { Code::Array });
                    self.stack.push(b);
                    self.expect_key = b == b'{';
                    i += 1;
                }
                b'}' | b']' => {
                    if let Some(g) = &mut self.guide {
                        g.close();
                    }
                    ops.code(Code::Close);
                    self.stack.pop();
                    self.expect_key = false;
                    i += 1;
                }
                b',' => {
                    self.expect_key = self.stack.last() == Some(&b'{');
                    i += 1;
                }
                b':' => i += 1,
                b'"' if self.expect_key => {
                    let (j, closed) = string_end(out, i + 1, end);
                    if !closed {
                        // Keys are settled only with their value; wait for the rest.
                        break;
                    }
                    let key = &out[i + 1..j];
                    if let Some(g) = &mut self.guide {
                        g.key(key);
                    }
                    ops.text(Code::Key, key);
                    self.expect_key = false;
                    i = j + 1;
                }
                b'"' => {
                    let (j, closed) = string_end(out, i + 1, end);
                    let text = &out[i + 1..j];
                    if !self.guide.as_mut().is_some_and(|g| g.string_starts(text)) {
                        ops.text(Code::String, text);
                    }
                    if closed {
                        self.end_string(ops);
                        i = j + 1;
                    } else {
                        self.in_string = true;
                        i = j;
                    }
                }
                _ => {
                    let j = out[i..end]
                        .iter()
                        .position(|b| matches!(b, b',' | b']' | b'}'))
                        .map_or(end, |o| i + o);
                    if let Some(g) = &mut self.guide {
                        g.scalar();
                    }
                    ops.text(Code::Scalar, &out[i..j]);
                    i = j;
                }
            }
        }
        self.consumed = i;
    }

    /// The open string is complete.
    fn end_string(&mut self, ops: &mut Recorder) {
        self.in_string = false;
        match self.guide.as_mut().filter(|g| g.holds()) {
            Some(g) => release(g, ops),
            None => ops.code(Code::EndString),
        }
    }
}

/// The offset of the closing quote of a JSON string whose content starts at `from`, and `true`; or the
/// offset where the settled text ends inside it (never inside an escape) and `false`.
fn string_end(out: &[u8], from: usize, end: usize) -> (usize, bool) {
    let mut k = from;
    while let Some(at) = find_byte3(&out[..end], k, b'"', b'\\', b'\\') {
        k = at;
        if out[k] == b'"' {
            return (k, true);
        }
        let len = if out.get(k + 1) == Some(&b'u') { 6 } else { 2 };
        if k + len > end {
            return (k, false);
        }
        k += len;
    }
    (end, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Change::{Append, Array, Close, EndString, Key, Object, Scalar};

    fn read(out: &str, settled: &[usize]) -> Vec<String> {
        let mut v = View::default();
        let mut ops = Recorder::default();
        for &n in settled {
            v.update(out.as_bytes(), n, 0, false, usize::MAX, &mut ops);
        }
        let changes = ops.take();
        changes.iter().map(|c| format!("{c:?}")).collect()
    }

    fn names(changes: &[Change<'_>]) -> Vec<String> {
        changes.iter().map(|c| format!("{c:?}")).collect()
    }

    #[test]
    fn settled_text_becomes_changes() {
        let out = r#"{"a":[1,"x\"y"],"b":{"c":true}}"#;
        let expected = [
            Object,
            Key("a"),
            Array,
            Scalar("1"),
            Change::String(r#"x\"y"#),
            EndString,
            Close,
            Key("b"),
            Object,
            Key("c"),
            Scalar("true"),
            Close,
            Close,
        ];
        assert_eq!(read(out, &[out.len()]), names(&expected));
    }

    #[test]
    fn an_open_string_grows_and_escapes_are_never_split() {
        let out = r#"["ab\u00e9cd"#;
        let expected = [Array, Change::String("ab"), Append(r"\u00e9cd")];
        assert_eq!(read(out, &[5, 8, out.len()]), names(&expected));
    }
}
