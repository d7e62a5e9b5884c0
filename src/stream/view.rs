//! The partial value as a list of changes.
//!
//! The tolerant parser writes strict, compact JSON text and knows how much of it is settled (no later
//! step can rewind it). [`View`] reads the settled text once, left to right, and describes what it adds
//! as operations on a live value, so a host can keep its value current in time proportional to the
//! change, never to the size of the value. It is a strict reader of text this crate wrote; the
//! tolerance lives in the parser.
//!
//! Operations are written as the elements of a JSON array, so the host's `JSON.parse` decodes strings
//! and numbers exactly as it would in the final value:
//!
//! | code | operands | meaning |
//! | --- | --- | --- |
//! | 0 | | the value is gone (the JSON turned out to be elsewhere); start again |
//! | 1, 2 | | an object, an array, starts as the next value |
//! | 3 | | the innermost container is complete |
//! | 4 | key | the next value is the member `key` of the innermost object |
//! | 5 | text | a string starts as the next value, with this text so far |
//! | 6 | text | the open string goes on with `text` |
//! | 7 | | the open string is complete |
//! | 8 | value | a number, `true`, `false` or `null` as the next value |
//! | 9 | | the root becomes the first element of a new root array (comma-separated values) |
//!
//! "The next value" is the root, the next element of the innermost array, or the member just named.

/// Operation codes (see the module documentation).
pub(crate) mod op {
    pub const RESET: u8 = b'0';
    pub const OBJECT: u8 = b'1';
    pub const ARRAY: u8 = b'2';
    pub const CLOSE: u8 = b'3';
    pub const KEY: u8 = b'4';
    pub const STRING: u8 = b'5';
    pub const APPEND: u8 = b'6';
    pub const END_STRING: u8 = b'7';
    pub const SCALAR: u8 = b'8';
    pub const WRAP: u8 = b'9';

    /// Every code by name, for the host's side of the wire format (see `crate::wire::vocabulary`).
    pub const ALL: [(&str, u8); 10] = [
        ("RESET", RESET),
        ("OBJECT", OBJECT),
        ("ARRAY", ARRAY),
        ("CLOSE", CLOSE),
        ("KEY", KEY),
        ("STRING", STRING),
        ("APPEND", APPEND),
        ("END_STRING", END_STRING),
        ("SCALAR", SCALAR),
        ("WRAP", WRAP),
    ];
}

/// Operations written since the host last took them: the elements of a JSON array, without brackets.
#[derive(Default)]
pub(crate) struct Ops(Vec<u8>);

impl Ops {
    fn sep(&mut self) {
        if !self.0.is_empty() {
            self.0.push(b',');
        }
    }

    fn code(&mut self, code: u8) {
        self.sep();
        self.0.push(code);
    }

    /// An operation with string content that is already JSON-escaped.
    fn text(&mut self, code: u8, escaped: &[u8]) {
        self.code(code);
        self.0.extend_from_slice(b",\"");
        self.0.extend_from_slice(escaped);
        self.0.push(b'"');
    }

    /// An operation with a JSON number or literal.
    fn scalar(&mut self, token: &[u8]) {
        self.code(op::SCALAR);
        self.0.push(b',');
        self.0.extend_from_slice(token);
    }

    /// Takes the operations written so far, leaving none.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
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
}

impl View {
    /// The value is gone: tells the host, if it was shown anything.
    pub fn reset(&mut self, ops: &mut Ops) {
        if self.shown {
            ops.code(op::RESET);
        }
        *self = View::default();
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
        ops: &mut Ops,
    ) {
        if rewound_to < self.consumed {
            self.reset(ops);
        }
        if wrapped && !self.wrapped {
            self.wrapped = true;
            // Text already read moved one byte to the right; text not yet read includes the `[`.
            if self.consumed > root_start {
                ops.code(op::WRAP);
                self.consumed += 1;
                self.stack.insert(0, b'[');
            }
        }
        let end = settled.min(out.len());
        let mut i = self.consumed;
        while i < end {
            self.shown = true;
            if self.in_string {
                let (j, closed) = string_end(out, i, end);
                if j > i {
                    ops.text(op::APPEND, &out[i..j]);
                }
                if !closed {
                    i = j;
                    break;
                }
                ops.code(op::END_STRING);
                self.in_string = false;
                i = j + 1;
                continue;
            }
            match out[i] {
                b'{' => {
                    ops.code(op::OBJECT);
                    self.stack.push(b'{');
                    self.expect_key = true;
                    i += 1;
                }
                b'[' => {
                    ops.code(op::ARRAY);
                    self.stack.push(b'[');
                    self.expect_key = false;
                    i += 1;
                }
                b'}' | b']' => {
                    ops.code(op::CLOSE);
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
                    ops.text(op::KEY, &out[i + 1..j]);
                    self.expect_key = false;
                    i = j + 1;
                }
                b'"' => {
                    let (j, closed) = string_end(out, i + 1, end);
                    ops.text(op::STRING, &out[i + 1..j]);
                    if closed {
                        ops.code(op::END_STRING);
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
                    ops.scalar(&out[i..j]);
                    i = j;
                }
            }
        }
        self.consumed = i;
    }
}

/// The offset of the closing quote of a JSON string whose content starts at `from`, and `true`; or the
/// offset where the settled text ends inside it (never inside an escape) and `false`.
fn string_end(out: &[u8], from: usize, end: usize) -> (usize, bool) {
    let mut k = from;
    while let Some(off) = memchr::memchr2(b'"', b'\\', &out[k..end]) {
        k += off;
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

    fn read(out: &str, settled: usize) -> String {
        let mut v = View::default();
        let mut ops = Ops::default();
        v.update(out.as_bytes(), settled, 0, false, usize::MAX, &mut ops);
        String::from_utf8(ops.take()).unwrap()
    }

    #[test]
    fn settled_text_becomes_operations() {
        let out = r#"{"a":[1,"x\"y"],"b":{"c":true}}"#;
        assert_eq!(
            read(out, out.len()),
            r#"1,4,"a",2,8,1,5,"x\"y",7,3,4,"b",1,4,"c",8,true,3,3"#
        );
    }

    #[test]
    fn an_open_string_grows_and_escapes_are_never_split() {
        let out = r#"["ab\u00e9cd"#;
        let mut v = View::default();
        let mut ops = Ops::default();
        v.update(out.as_bytes(), 5, 0, false, usize::MAX, &mut ops);
        v.update(out.as_bytes(), 8, 0, false, usize::MAX, &mut ops);
        v.update(out.as_bytes(), out.len(), 0, false, usize::MAX, &mut ops);
        assert_eq!(
            String::from_utf8(ops.take()).unwrap(),
            r#"2,5,"ab",6,"\u00e9cd""#
        );
    }
}
