//! Writing strict JSON text: copies, escapes, control characters.

use crate::prelude::*;
/// Appends `s[range]` to `out`. Short ranges go in eight-byte blocks while `s` has the bytes past the
/// range, and the overshoot is cut off: in wasm a copy of unknown length is a call into the host, which
/// costs more than the copy itself for the short runs a parser writes.
#[inline(always)]
pub(super) fn copy_from(out: &mut Vec<u8>, s: &[u8], range: core::ops::Range<usize>) {
    if range.len() <= 32 && range.end + 8 <= s.len() {
        let len = out.len() + range.len();
        out.reserve(range.len() + 8);
        let mut i = range.start;
        while i < range.end {
            let mut block = [0u8; 8];
            block.copy_from_slice(&s[i..i + 8]);
            out.extend_from_slice(&block);
            i += 8;
        }
        out.truncate(len);
    } else {
        out.extend_from_slice(&s[range]);
    }
}

/// Appends a few bytes (a keyword) one by one, for the reason given at [`copy_from`].
#[inline]
pub(super) fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.push(b);
    }
}

/// Writes `bytes` as the content of a JSON string (no quotes), escaping what JSON requires.
pub(super) fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x00..=0x1F => push_control(out, b),
            _ => out.push(b),
        }
    }
}

/// `s` as a JSON string literal, quotes included (for the binding's report headers).
pub(crate) fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'"');
    escape_into(&mut out, s.as_bytes());
    out.push(b'"');
    // Escaping only replaces ASCII bytes, so the text stays UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the JSON escape of control character `b`.
pub(super) fn push_control(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // One append per arm's result, not one per arm (five inlined appends before).
    let short: &[u8; 2] = match b {
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0C => b"\\f",
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 15) as usize],
            ]);
            return;
        }
    };
    out.extend_from_slice(short);
}

/// Length in bytes of the UTF-8 character whose first byte is `b`.
pub(super) fn char_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}
