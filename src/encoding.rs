//! Text the host hands over in the form it can write fastest, turned into UTF-8 here.
//!
//! A JavaScript string is stored as Latin-1 when every character fits in a byte. Node copies that form
//! into linear memory as it is (`Buffer.write(text, at, 'latin1')`) more than ten times faster than
//! `TextEncoder.encodeInto` transcodes accented text to UTF-8, so the binding layer takes those bytes and
//! the transcoding happens here instead, eight bytes at a time across ASCII.

/// Length of the longest ASCII prefix of `bytes`, eight bytes at a time.
pub(crate) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= bytes.len() {
        if word(bytes, i) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i].is_ascii() {
        i += 1;
    }
    i
}

/// The eight bytes at `i` as a little-endian word.
fn word(bytes: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[i..i + 8]);
    u64::from_le_bytes(w)
}

/// Turns the Latin-1 text (one character per byte) in `buf[len..2 * len]` into UTF-8 at the start of
/// `buf` and returns its length. UTF-8 takes at most two bytes per Latin-1 character, so the writing
/// never overtakes the reading and one buffer serves both.
pub(crate) fn latin1_to_utf8_in_place(buf: &mut [u8], len: usize) -> usize {
    let (mut from, end) = (len, 2 * len);
    let mut to = 0;
    while from < end {
        let ascii = ascii_prefix_len(&buf[from..end]);
        buf.copy_within(from..from + ascii, to);
        to += ascii;
        from += ascii;
        if from < end {
            let b = buf[from];
            buf[to] = 0xc0 | b >> 6;
            buf[to + 1] = 0x80 | (b & 0x3f);
            to += 2;
            from += 1;
        }
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
