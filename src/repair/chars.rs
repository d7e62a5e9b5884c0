//! Character classes shared by the locator, the one-shot parser and the streaming parser.
//!
//! Everything works on UTF-8 bytes. Multi-byte characters that matter outside strings (typographic quotes,
//! the ellipsis, invisible characters, the non-breaking space) are recognised by their byte sequences.

/// `“` U+201C.
pub const LDQUO: &[u8] = "\u{201C}".as_bytes();
/// `”` U+201D.
pub const RDQUO: &[u8] = "\u{201D}".as_bytes();
/// `‘` U+2018.
pub const LSQUO: &[u8] = "\u{2018}".as_bytes();
/// `’` U+2019.
pub const RSQUO: &[u8] = "\u{2019}".as_bytes();
/// `…` U+2026.
pub const ELLIPSIS: &[u8] = "\u{2026}".as_bytes();
/// U+00A0 no-break space.
pub const NBSP: &[u8] = "\u{A0}".as_bytes();

/// JSON whitespace: what `JSON.parse` accepts between tokens.
#[inline]
pub fn is_json_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Length of an invisible character (U+FEFF, U+200B, U+200C, U+200D, U+2060) at `s[i..]`, or 0.
#[inline]
pub fn invisible_len(s: &[u8], i: usize) -> usize {
    match s.get(i..i + 3) {
        Some([0xEF, 0xBB, 0xBF]) | Some([0xE2, 0x80, 0x8B..=0x8D]) | Some([0xE2, 0x81, 0xA0]) => 3,
        _ => 0,
    }
}

/// Whether `s[i..]` starts with `pat`.
#[inline]
pub fn starts_with_at(s: &[u8], i: usize, pat: &[u8]) -> bool {
    s.len() >= i + pat.len() && &s[i..i + pat.len()] == pat
}

/// Which quote characters a string may be delimited by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuoteStyle {
    /// `"`
    Double,
    /// `'`
    Single,
    /// `“` or `”` as the opener
    CurlyDouble,
    /// `‘` or `’` as the opener
    CurlySingle,
}

/// The quote that opens a string at `s[i..]`, with its length in bytes.
#[inline]
pub fn quote_at(s: &[u8], i: usize) -> Option<(QuoteStyle, usize)> {
    match s.get(i)? {
        b'"' => Some((QuoteStyle::Double, 1)),
        b'\'' => Some((QuoteStyle::Single, 1)),
        0xE2 if starts_with_at(s, i, LDQUO) || starts_with_at(s, i, RDQUO) => {
            Some((QuoteStyle::CurlyDouble, 3))
        }
        0xE2 if starts_with_at(s, i, LSQUO) || starts_with_at(s, i, RSQUO) => {
            Some((QuoteStyle::CurlySingle, 3))
        }
        _ => None,
    }
}

/// Length of a quote at `s[i..]` that can close a string opened with `style`, or 0.
#[inline]
pub fn closer_len(style: QuoteStyle, s: &[u8], i: usize) -> usize {
    let b = s[i];
    match style {
        QuoteStyle::Double | QuoteStyle::CurlyDouble if b == b'"' => 1,
        QuoteStyle::Single | QuoteStyle::CurlySingle if b == b'\'' => 1,
        QuoteStyle::Double | QuoteStyle::CurlyDouble
            if starts_with_at(s, i, RDQUO) || starts_with_at(s, i, LDQUO) =>
        {
            3
        }
        QuoteStyle::Single | QuoteStyle::CurlySingle if starts_with_at(s, i, RSQUO) => 3,
        _ => 0,
    }
}

/// Bytes that may continue a bare word (identifier, number-like token, unquoted key).
#[inline]
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-' | b'+' | b'.') || b >= 0x80
}

/// Bytes that may start an identifier (unquoted key or bare word value).
#[inline]
pub fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'_' | b'$') || b >= 0x80
}

/// Characters that start a number-like token.
#[inline]
pub fn is_number_start(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.')
}

/// Length of an ellipsis placeholder (`...` or `…`) at `s[i..]`, or 0.
#[inline]
pub fn ellipsis_len(s: &[u8], i: usize) -> usize {
    if starts_with_at(s, i, b"...") || starts_with_at(s, i, ELLIPSIS) {
        3
    } else {
        0
    }
}

/// Whether `s[i..]` starts with `pat`, comparing ASCII letters case-insensitively.
#[inline]
pub fn starts_with_ignore_case(s: &[u8], i: usize, pat: &[u8]) -> bool {
    s.len() >= i + pat.len() && s[i..i + pat.len()].eq_ignore_ascii_case(pat)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `w` is zero.
#[inline]
fn has_zero_byte(w: u64) -> bool {
    w.wrapping_sub(ONES) & !w & HIGHS != 0
}

/// Whether any byte of `w` equals `b`.
#[inline]
fn has_byte(w: u64, b: u8) -> bool {
    has_zero_byte(w ^ (ONES * b as u64))
}

/// The first offset in `s[from..end]` that may need attention inside a string: a control character,
/// `"`, `\\`, the lead byte 0xE2 of typographic quotes, and `'` when `single`. Eight bytes at a time;
/// the caller still classifies the byte at the returned offset (it may be a false stop, never a miss).
#[inline]
pub fn skip_plain_string_bytes(s: &[u8], mut from: usize, end: usize, single: bool) -> usize {
    while from + 8 <= end {
        let mut word = [0u8; 8];
        word.copy_from_slice(&s[from..from + 8]);
        let w = u64::from_le_bytes(word);
        // A byte below 0x20: (w - 0x20..) & !w & 0x80.. is non-zero exactly when one exists.
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
        if control
            || has_byte(w, b'"')
            || has_byte(w, b'\\')
            || has_byte(w, 0xE2)
            || (single && has_byte(w, b'\''))
        {
            break;
        }
        from += 8;
    }
    from
}

/// The offset of the first of the bytes `a`, `b` or `c` in `s[from..]` (pass one byte three times to
/// find one).
#[inline]
pub fn find_byte3(s: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    // Natively the memchr crate has vector searches; wasm32 (without SIMD) gets the word search below.
    #[cfg(not(target_arch = "wasm32"))]
    return memchr::memchr3(a, b, c, s.get(from..)?).map(|o| from + o);
    #[cfg(target_arch = "wasm32")]
    find_byte3_words(s, from, a, b, c)
}

/// [`find_byte3`] eight bytes at a time (the memchr crate's portable search reads four on wasm32).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn find_byte3_words(s: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    let mut i = from;
    while i + 8 <= s.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&s[i..i + 8]);
        let w = u64::from_le_bytes(word);
        if has_byte(w, a) || has_byte(w, b) || has_byte(w, c) {
            break;
        }
        i += 8;
    }
    s.get(i..)?
        .iter()
        .position(|&x| x == a || x == b || x == c)
        .map(|o| i + o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_scan_stops_at_or_before_every_special_byte() {
        for special in [b'"', b'\\', b'\n', 0x01, 0xE2] {
            for at in 0..20 {
                let mut s = vec![b'a'; 24];
                s[at] = special;
                let stop = skip_plain_string_bytes(&s, 0, s.len(), false);
                assert!(stop <= at, "missed byte {special:#x} at {at}");
                assert!(at - stop < 8);
            }
        }
        assert_eq!(
            skip_plain_string_bytes(b"it's fine, really", 0, 17, false),
            16
        );
        assert_eq!(
            skip_plain_string_bytes(b"it's fine, really", 0, 17, true),
            0
        );
    }

    #[test]
    fn byte_search_finds_the_first_of_three() {
        let s = b"0123456789abcdef<ghij`k~";
        for from in 0..s.len() {
            let want = s[from..]
                .iter()
                .position(|&x| matches!(x, b'<' | b'`' | b'~'))
                .map(|o| from + o);
            assert_eq!(find_byte3(s, from, b'<', b'`', b'~'), want);
            assert_eq!(find_byte3_words(s, from, b'<', b'`', b'~'), want);
            let one = s[from..].iter().position(|&x| x == b'`').map(|o| from + o);
            assert_eq!(find_byte3_words(s, from, b'`', b'`', b'`'), one);
        }
        assert_eq!(find_byte3(s, s.len() + 1, b'<', b'<', b'<'), None);
        assert_eq!(find_byte3_words(s, s.len() + 1, b'<', b'<', b'<'), None);
    }

    #[test]
    fn recognises_multibyte_marks() {
        let s = "\u{FEFF}“x”…".as_bytes();
        assert_eq!(invisible_len(s, 0), 3);
        assert_eq!(quote_at(s, 3), Some((QuoteStyle::CurlyDouble, 3)));
        assert_eq!(closer_len(QuoteStyle::CurlyDouble, s, 7), 3);
        assert_eq!(ellipsis_len(s, 10), 3);
    }
}
