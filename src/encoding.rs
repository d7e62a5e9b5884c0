//! Text the host hands over in the form it can write fastest, turned into UTF-8 here.
//!
//! A JavaScript string is stored as Latin-1 when every character fits in a byte. Node copies that form
//! into linear memory as it is (`Buffer.write(text, at, 'latin1')`) more than ten times faster than
//! `TextEncoder.encodeInto` transcodes accented text to UTF-8, so the binding layer takes those bytes and
//! the transcoding happens here instead, eight bytes at a time across ASCII.

use crate::prelude::*;
/// The high bit of every byte of a word: set in a word exactly when it holds a non-ASCII byte.
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `i` as a little-endian word (byte `i` lowest).
#[inline(always)]
pub(crate) fn word(bytes: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[i..i + 8]);
    u64::from_le_bytes(w)
}

/// The eight bytes at `i` when all of them are ASCII.
#[inline(always)]
pub(crate) fn ascii_word(bytes: &[u8], i: usize) -> Option<[u8; 8]> {
    let w = bytes.get(i..i + 8).map(|_| word(bytes, i))?;
    (w & HIGHS == 0).then(|| w.to_le_bytes())
}

/// Whether the Latin-1 text `s` holds no byte in 0x80..=0xBF (the range of UTF-8 continuation bytes),
/// eight bytes at a time.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn has_no_continuation_bytes(s: &[u8]) -> bool {
    let mut i = 0;
    while i + 8 <= s.len() {
        let w = word(s, i);
        // A byte 10xxxxxx: the high bit set and the next one clear.
        if w & !(w << 1) & HIGHS != 0 {
            return false;
        }
        i += 8;
    }
    !s[i..].iter().any(|&b| b & 0xc0 == 0x80)
}

/// Turns the Latin-1 text (one character per byte) in `buf[len..2 * len]` into UTF-8 at the start of
/// `buf` and returns its length. UTF-8 takes at most two bytes per Latin-1 character, so the writing
/// never overtakes the reading and one buffer serves both. ASCII moves eight bytes at a time in fixed
/// size stores: in wasm a copy of a length known only at run time is a call into the host, which costs
/// more than the short runs between accented letters.
pub(crate) fn latin1_to_utf8_in_place(buf: &mut [u8], len: usize) -> usize {
    let (mut from, end) = (len, 2 * len);
    let mut to = 0;
    while from < end {
        if let Some(w) = ascii_word(&buf[..end], from) {
            // Read before written: `to <= from` throughout.
            buf[to..to + 8].copy_from_slice(&w);
            to += 8;
            from += 8;
            continue;
        }
        let b = buf[from];
        if b.is_ascii() {
            buf[to] = b;
            to += 1;
        } else {
            buf[to] = 0xc0 | b >> 6;
            buf[to + 1] = 0x80 | (b & 0x3f);
            to += 2;
        }
        from += 1;
    }
    to
}

/// The character whose UTF-8 sequence starts at `bytes[i]` (not ASCII), and the sequence's length; U+FFFD
/// and 1 for a byte that does not start a valid sequence. Decoded here rather than by `str::from_utf8`,
/// whose call per character cost as much as the rest of the narrowing in text of other scripts.
#[inline(always)]
fn utf8_char(bytes: &[u8], i: usize) -> (u32, usize) {
    let lead = u32::from(bytes[i]);
    let cont = |k: usize| {
        bytes
            .get(i + k)
            .filter(|&&b| b & 0xc0 == 0x80)
            .map(|&b| u32::from(b & 0x3f))
    };
    match lead {
        0xc2..=0xdf => {
            if let Some(c1) = cont(1) {
                return ((lead & 0x1f) << 6 | c1, 2);
            }
        }
        0xe0..=0xef => {
            if let (Some(c1), Some(c2)) = (cont(1), cont(2)) {
                let c = (lead & 0x0f) << 12 | c1 << 6 | c2;
                if c >= 0x800 && !(0xd800..=0xdfff).contains(&c) {
                    return (c, 3);
                }
            }
        }
        0xf0..=0xf4 => {
            if let (Some(c1), Some(c2), Some(c3)) = (cont(1), cont(2), cont(3)) {
                let c = (lead & 0x07) << 18 | c1 << 12 | c2 << 6 | c3;
                if (0x1_0000..=0x10_ffff).contains(&c) {
                    return (c, 4);
                }
            }
        }
        _ => {}
    }
    (0xfffd, 1)
}

/// Appends the UTF-8 JSON text `json` to `out` in a narrow form, one byte per character for the host to
/// decode: every non-ASCII character written as a `\uXXXX` escape (surrogate pairs beyond the BMP), or
/// with `latin1` characters up to U+00FF as one Latin-1 byte each (Node decodes that form fastest, and
/// `JSON.parse` reads unescaped strings faster). The value is unchanged. A byte that does not start a valid
/// UTF-8 sequence (never written by the parser) comes out as `\ufffd`.
pub(crate) fn push_narrow_json(out: &mut Vec<u8>, json: &[u8], latin1: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(json.len());
    let mut i = 0;
    while i < json.len() {
        // ASCII in fixed-size pieces (see `latin1_to_utf8_in_place` for why not one copy per run).
        if let Some(w) = ascii_word(json, i) {
            out.extend_from_slice(&w);
            i += 8;
            continue;
        }
        let lead = json[i];
        if lead.is_ascii() {
            out.push(lead);
            i += 1;
            continue;
        }
        // U+0080..U+00FF: a lead byte 0xC2 or 0xC3 and one continuation byte.
        if let (true, 0xc2 | 0xc3, Some(&next)) = (latin1, lead, json.get(i + 1)) {
            if next & 0xc0 == 0x80 {
                out.push((lead & 3) << 6 | (next & 0x3f));
                i += 2;
                continue;
            }
        }
        // Anything else as `\u` escapes: with `latin1`, U+0100 and up, or a byte that is not UTF-8.
        let (c, used) = utf8_char(json, i);
        i += used;
        // UTF-16 code units: one, or a surrogate pair beyond the BMP.
        let units = if c >= 0x1_0000 {
            let v = c - 0x1_0000;
            [0xd800 | v >> 10, 0xdc00 | (v & 0x3ff)]
        } else {
            [c, 0]
        };
        for &u in units.iter().take(1 + usize::from(c >= 0x1_0000)) {
            out.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[(u >> shift & 15) as usize]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn from_latin1(s: &str) -> Option<Vec<u8>> {
        s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
    }

    /// `s` written as Latin-1 into the second half of a buffer and transcoded in place.
    fn round_trip(s: &str) -> String {
        let latin1 = from_latin1(s).unwrap();
        let mut buf = vec![b'#'; latin1.len()];
        buf.extend_from_slice(&latin1);
        let n = latin1_to_utf8_in_place(&mut buf, latin1.len());
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn latin1_becomes_utf8() {
        assert_eq!(
            round_trip("déjà vu, café: 100 °C ÿ"),
            "déjà vu, café: 100 °C ÿ"
        );
        assert_eq!(round_trip("ÿÿÿÿÿÿÿÿÿÿ"), "ÿÿÿÿÿÿÿÿÿÿ");
        assert_eq!(round_trip(""), "");
    }

    proptest! {
        #[test]
        fn latin1_matches_the_standard_decoding(s in "([\\x00-\\x7f]{0,20}[\\x80-\\xff]?){0,8}") {
            prop_assert_eq!(round_trip(&s), s);
        }
    }

    proptest! {
        /// Both narrow forms hold the same value as the UTF-8 text, whatever mix of ASCII runs (the
        /// word-at-a-time path) and other characters it has.
        #[test]
        fn narrow_forms_keep_the_value(s in "([a-z \\\\\"]{0,19}[\\x00-\\x1f\\u{80}-\\u{ff}\\u{100}-\\u{10ffff}]?){0,6}") {
            let json = serde_json::to_string(&s).unwrap();
            for latin1 in [false, true] {
                let back: String = serde_json::from_str(&narrow(&json, latin1)).unwrap();
                prop_assert_eq!(&back, &s);
            }
        }
    }

    /// The narrowed text decoded one byte per character, as the host reads it.
    fn narrow(json: &str, latin1: bool) -> String {
        let mut out = Vec::new();
        push_narrow_json(&mut out, json.as_bytes(), latin1);
        out.iter().map(|&b| char::from(b)).collect()
    }

    #[test]
    fn latin1_form_keeps_characters_up_to_u00ff_and_escapes_the_rest() {
        let json = "[\"a\u{7f}\u{80}\u{9f}é\u{ff}\",\"\u{100}“😀\"]";
        assert_eq!(
            narrow(json, true),
            "[\"a\u{7f}\u{80}\u{9f}é\u{ff}\",\"\\u0100\\u201c\\ud83d\\ude00\"]"
        );
        assert_eq!(
            narrow(json, false),
            "[\"a\u{7f}\\u0080\\u009f\\u00e9\\u00ff\",\"\\u0100\\u201c\\ud83d\\ude00\"]"
        );
        assert_eq!(narrow("\u{ff}", true), "\u{ff}");
    }

    proptest! {
        /// The decoder agrees with the standard one on every character, and on bytes that are not UTF-8
        /// reads one byte as U+FFFD (the standard one's first error, as `from_utf8_lossy` shows it).
        #[test]
        fn characters_decode_as_the_standard_decoder_does(c in any::<char>(), junk in proptest::collection::vec(any::<u8>(), 1..5)) {
            let mut b = [0u8; 4];
            let s = c.encode_utf8(&mut b).as_bytes();
            if !c.is_ascii() {
                prop_assert_eq!(utf8_char(s, 0), (u32::from(c), s.len()));
            }
            if junk[0] >= 0x80 {
                let (got, len) = utf8_char(&junk, 0);
                let valid = core::str::from_utf8(&junk).map_or_else(|e| e.valid_up_to(), |_| junk.len());
                if (got, len) == (0xfffd, 1) {
                    prop_assert_eq!(valid, 0);
                } else {
                    prop_assert!(valid >= len);
                    let one = core::str::from_utf8(&junk[..len]).unwrap();
                    prop_assert_eq!(one.chars().next().map(u32::from), Some(got));
                }
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_escapes() {
        let mut out = Vec::new();
        push_narrow_json(&mut out, b"\"a\xff\xc3\"", true);
        assert_eq!(out, b"\"a\\ufffd\\ufffd\"");
    }
}
