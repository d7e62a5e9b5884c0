//! Text the host hands over in the form it can write fastest, turned into UTF-8 here.
//!
//! A JavaScript string is stored as Latin-1 when every character fits in a byte. Node copies that form
//! into linear memory as it is (`Buffer.write(text, at, 'latin1')`) more than ten times faster than
//! `TextEncoder.encodeInto` transcodes accented text to UTF-8, so the binding layer takes those bytes and
//! the transcoding happens here instead, eight bytes at a time across ASCII.

/// The high bit of every byte of a word: set in a word exactly when it holds a non-ASCII byte.
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Length of the longest ASCII prefix of `bytes`, eight bytes at a time.
pub(crate) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= bytes.len() {
        if word(bytes, i) & HIGHS != 0 {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i].is_ascii() {
        i += 1;
    }
    i
}

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
}
