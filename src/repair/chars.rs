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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_multibyte_marks() {
        let s = "\u{FEFF}“x”…".as_bytes();
        assert_eq!(invisible_len(s, 0), 3);
        assert_eq!(quote_at(s, 3), Some((QuoteStyle::CurlyDouble, 3)));
        assert_eq!(closer_len(QuoteStyle::CurlyDouble, s, 7), 3);
        assert_eq!(ellipsis_len(s, 10), 3);
    }
}
