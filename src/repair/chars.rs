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
/// The ideographic space, U+3000: what CJK text indents and separates with.
pub const IDEOGRAPHIC_SPACE: &[u8] = "\u{3000}".as_bytes();
/// `´` (acute accent), which closes a backtick string typed with its pair.
pub const ACUTE: &[u8] = "\u{B4}".as_bytes();

/// JSON whitespace: what `JSON.parse` accepts between tokens.
#[inline]
pub fn is_json_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first offset at or after `i`, and before `end`, that is not JSON whitespace (`end` if none is).
#[inline(always)]
pub fn skip_json_ws(s: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && is_json_ws(s[i]) {
        i += 1;
    }
    i
}

/// Length of an invisible character (U+FEFF, U+200B, U+200C, U+200D, U+2060) at `s[i..]`, or 0.
#[inline]
pub fn invisible_len(s: &[u8], i: usize) -> usize {
    match s.get(i..i + 3) {
        Some([0xEF, 0xBB, 0xBF]) | Some([0xE2, 0x80, 0x8B..=0x8D]) | Some([0xE2, 0x81, 0xA0]) => 3,
        _ => 0,
    }
}

/// Length of a Unicode space other than the no-break space at `s[i..]` (U+1680, U+180E, U+2000 to
/// U+200A, U+202F, U+205F, U+3000), or 0: outside strings they separate tokens as a space does.
#[inline(never)]
pub fn unicode_space_len(s: &[u8], i: usize) -> usize {
    match s.get(i..i + 3) {
        Some([0xE1, 0x9A, 0x80] | [0xE1, 0xA0, 0x8E] | [0xE2, 0x80, 0x80..=0x8A | 0xAF])
        | Some([0xE2, 0x81, 0x9F] | [0xE3, 0x80, 0x80]) => 3,
        _ => 0,
    }
}

/// The ASCII punctuation a full-width `：` (U+FF1A) or `，` (U+FF0C), or an ideographic comma `、`
/// (U+3001), at `s[i..]` stands for, or `None`. Models writing Chinese or Japanese put them between keys
/// and values, members and items; outside strings they are read as `:` and `,` (inside strings they are
/// content, and so is `、` inside bare words).
#[inline(never)]
pub fn fullwidth_punct(s: &[u8], i: usize) -> Option<u8> {
    match s.get(i..i + 3) {
        Some([0xEF, 0xBC, 0x9A]) => Some(b':'),
        Some([0xEF, 0xBC, 0x8C] | [0xE3, 0x80, 0x81]) => Some(b','),
        _ => None,
    }
}

/// The punctuation at `s[i]` and its length in bytes: the byte itself, or `:` or `,` for a full-width
/// `：`, `，` or `、` (three bytes; see [`fullwidth_punct`]).
#[inline(always)]
pub fn punct(s: &[u8], i: usize) -> (u8, usize) {
    match s[i] {
        b @ 0xE3..=0xEF => fullwidth_punct(s, i).map_or((b, 1), |p| (p, 3)),
        b => (b, 1),
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
    /// `` ` ``, as JavaScript delimits template strings (never a fence), closed by `` ` `` or `´`
    Backtick,
    /// A model's quote token, opener and closer alike: Gemma 4's `<|"|>` (in its tool calls). Everything
    /// between two is content, backslashes and quotes too.
    GemmaToken,
    /// FunctionGemma's `<escape>`, as [`QuoteStyle::GemmaToken`].
    EscapeToken,
    /// Python's `"""` opening a value (code in JSON: `"code": """def f():\n    return 'x'"""`), as
    /// [`QuoteStyle::GemmaToken`]: up to the next `"""`, everything is content.
    TripleQuote,
    /// A fenced code block written as a value (`"code": ```python⏎…⏎```,`), as
    /// [`QuoteStyle::GemmaToken`]: its lines up to a closing fence at the start of one, after spaces.
    Fence,
}

/// The quote tokens: [`QuoteStyle::GemmaToken`]'s, [`QuoteStyle::EscapeToken`]'s,
/// [`QuoteStyle::TripleQuote`]'s and the closing one of [`QuoteStyle::Fence`].
pub const QUOTE_TOKENS: [&[u8]; 4] = [b"<|\"|>", b"<escape>", b"\"\"\"", b"```"];
// The token styles are the last four, in the tokens' order (the parser indexes the tokens by style).
const _: () = assert!(QuoteStyle::Fence as usize - QuoteStyle::GemmaToken as usize == 3);

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

/// Length of a quote at `s[i..]` that can close a string opened with `style`, or 0 (whether it does
/// depends on what follows it). A typographic quote closes a straight double-quoted string only when it
/// is `”` and `curly_closes` (off when the `curly_quotes` repair is forbidden); `“` never does.
#[inline(always)]
pub fn closer_len(style: QuoteStyle, curly_closes: bool, s: &[u8], i: usize) -> usize {
    let b = s[i];
    match style {
        QuoteStyle::Double | QuoteStyle::CurlyDouble if b == b'"' => 1,
        QuoteStyle::Single | QuoteStyle::CurlySingle if b == b'\'' => 1,
        QuoteStyle::Double if curly_closes && starts_with_at(s, i, RDQUO) => 3,
        QuoteStyle::CurlyDouble if starts_with_at(s, i, RDQUO) || starts_with_at(s, i, LDQUO) => 3,
        QuoteStyle::Single | QuoteStyle::CurlySingle if starts_with_at(s, i, RSQUO) => 3,
        QuoteStyle::Backtick if b == b'`' => 1,
        // `` `foo´ ``: an acute accent closes as a typed backtick's pair
        QuoteStyle::Backtick if starts_with_at(s, i, ACUTE) => 2,
        _ => 0,
    }
}

/// Bytes that may continue a bare word (identifier, number-like token, unquoted key).
#[inline]
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-' | b'+' | b'.') || b >= 0x80
}

/// The prefix letters of a string Python's `repr` writes, either case: `u` (a Python 2 unicode
/// string, `u'text'`) and `b` (bytes, `b'data'`). Only before a straight quote are they one.
#[inline]
pub fn is_string_prefix(b: u8) -> bool {
    matches!(b | 0x20, b'u' | b'b')
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

use crate::encoding::{word, HIGHS};

const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of each zero byte of `w`. Only the lowest flag is certain (a borrow may flag a
/// byte above a zero one), which is all a search needs: it is the first zero byte.
#[inline]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// Whether any byte of `w` equals `b`.
#[inline]
fn has_byte(w: u64, b: u8) -> bool {
    zero_bytes(w ^ (ONES * b as u64)) != 0
}

/// The high bit of each byte of `w` below 0x20 (lowest flag certain, as for [`zero_bytes`]).
#[inline]
fn control_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS
}

/// The bytes of `w` that JSON escapes in a string or that begin an escape: control characters, `"`
/// and `\\` (the first exactly, as [`zero_bytes`]).
#[inline(always)]
fn escape_bytes(w: u64) -> u64 {
    control_bytes(w) | zero_bytes(w ^ (ONES * b'"' as u64)) | zero_bytes(w ^ (ONES * b'\\' as u64))
}

/// The first offset in `s[from..end]` of a control character, `"` or `\\`, eight bytes at a time, as
/// [`skip_plain_string_bytes`] reads (it stops at the last eight bytes or fewer too).
#[inline]
pub fn skip_to_escape_bytes(s: &[u8], mut from: usize, end: usize) -> usize {
    while from + 8 <= end {
        let special = escape_bytes(word(s, from));
        if special != 0 {
            return from + (special.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    from
}

/// The first offset in `s[from..end]` that may need attention inside a string: a control character,
/// `"`, `\\`, the lead byte 0xE2 of typographic quotes, and `'` when `single`. Eight bytes at a time:
/// within the whole words it reads, the offset is exactly the first such byte; it stops at the last
/// eight bytes or fewer, which the caller reads one by one.
#[inline]
pub fn skip_plain_string_bytes(s: &[u8], mut from: usize, end: usize, single: bool) -> usize {
    while from + 8 <= end {
        let w = word(s, from);
        let mut special = escape_bytes(w) | zero_bytes(w ^ (ONES * 0xE2));
        if single {
            special |= zero_bytes(w ^ (ONES * b'\'' as u64));
        }
        if special != 0 {
            return from + (special.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    from
}

/// The offset of the first of the bytes `a`, `b` or `c` in `s[from..]` (pass one byte three times to
/// find one).
#[inline]
pub fn find_byte3(s: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    // Natively the memchr crate has vector searches; wasm32 gets the word search below: smaller (the
    // crate stays out of the module) and no slower on a stream's short windows.
    #[cfg(not(target_arch = "wasm32"))]
    return memchr::memchr3(a, b, c, s.get(from..)?).map(|o| from + o);
    #[cfg(target_arch = "wasm32")]
    find_byte3_words(s, from, a, b, c)
}

/// The offset of the first byte `b` in `s[from..]`: memchr's vector search natively; in wasm32, where
/// the searches are mostly short (the end of a comment or of a line), the word search below, whose
/// first word is already the answer there.
#[inline]
pub fn find_byte(s: &[u8], from: usize, b: u8) -> Option<usize> {
    #[cfg(not(target_arch = "wasm32"))]
    return memchr::memchr(b, s.get(from..)?).map(|o| from + o);
    #[cfg(target_arch = "wasm32")]
    find_byte_words(s, from, b)
}

/// [`find_byte3`] for searches that may run long: the cleaner's search for the first byte of a tag, through
/// reasoning and prose. In wasm sixteen bytes a step, out of line (the word search at the other call
/// sites stays inlined, where searches are mostly a word or two long).
#[inline]
pub fn find_byte3_far(s: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    #[cfg(not(target_arch = "wasm32"))]
    return find_byte3(s, from, a, b, c);
    #[cfg(target_arch = "wasm32")]
    find_bytes_vectors(s, from, [a, b, c])
}

/// [`find_byte`] for searches that may run long (a reasoning block read for its closing tag's first byte),
/// as [`find_byte3_far`]; natively memchr's one-byte search.
#[inline]
pub fn find_byte_far(s: &[u8], from: usize, b: u8) -> Option<usize> {
    #[cfg(not(target_arch = "wasm32"))]
    return find_byte(s, from, b);
    #[cfg(target_arch = "wasm32")]
    find_bytes_vectors(s, from, [b, b, b])
}

/// [`find_byte3_far`] of the bytes `set`: sixteen bytes a step, then byte by byte for the last fifteen or
/// fewer.
#[cfg(target_arch = "wasm32")]
#[inline(never)]
#[target_feature(enable = "simd128")]
fn find_bytes_vectors(s: &[u8], from: usize, set: [u8; 3]) -> Option<usize> {
    use core::arch::wasm32::*;
    let [a, b, c] = [
        u8x16_splat(set[0]),
        u8x16_splat(set[1]),
        u8x16_splat(set[2]),
    ];
    let mut i = from;
    while i + 16 <= s.len() {
        let chunk = &s[i..i + 16];
        let v = u64x2(word(chunk, 0), word(chunk, 8));
        let hits = v128_or(v128_or(i8x16_eq(v, a), i8x16_eq(v, b)), i8x16_eq(v, c));
        let bits = i8x16_bitmask(hits);
        if bits != 0 {
            return Some(i + bits.trailing_zeros() as usize);
        }
        i += 16;
    }
    (i..s.len()).find(|&k| set.contains(&s[k]))
}

/// Whether `s` holds any of the bytes in `set` (at most five). Eight bytes at a time, the last word
/// overlapping the one before: a stream's chunks are mostly a word or two long, and a byte loop over
/// them cost more than the rest of the check (`perf`, 100 KB in 10-character chunks).
pub fn has_any_byte(s: &[u8], set: &[u8]) -> bool {
    let hit = |w: u64| set.iter().any(|&b| has_byte(w, b));
    if s.len() < 8 {
        // Zeros after the bytes: the sets hold no zero.
        let mut padded = [0; 8];
        padded[..s.len()].copy_from_slice(s);
        return hit(u64::from_le_bytes(padded));
    }
    let mut at = 0;
    while at + 8 < s.len() {
        if hit(word(s, at)) {
            return true;
        }
        at += 8;
    }
    hit(word(s, s.len() - 8))
}

/// [`find_byte`] eight bytes at a time, the offset exact from the lowest flag of the bit trick.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn find_byte_words(s: &[u8], mut from: usize, b: u8) -> Option<usize> {
    while from + 8 <= s.len() {
        let hits = zero_bytes(word(s, from) ^ (ONES * b as u64));
        if hits != 0 {
            return Some(from + (hits.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    s.get(from..)?
        .iter()
        .position(|&x| x == b)
        .map(|o| from + o)
}

/// [`find_byte3`] eight bytes at a time (the memchr crate's portable search reads four on wasm32).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn find_byte3_words(s: &[u8], from: usize, a: u8, b: u8, c: u8) -> Option<usize> {
    let mut i = from;
    while i + 8 <= s.len() {
        let w = word(s, i);
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

/// Whether a tag, a fence or a closing tag that holds no `<` may begin at `k`: `<`, `` ` ``, `~`, `[` then
/// `/` (`[/THINK]`) or `B` in any case (Apriel's `[BEGIN FINAL RESPONSE]`), or the first two bytes of `◁`.
#[inline]
fn may_begin_tag_or_fence(s: &[u8], k: usize) -> bool {
    let next = s.get(k + 1).copied();
    matches!(s[k], b'<' | b'`' | b'~')
        || s[k] == b'[' && matches!(next, Some(b'/' | b'B' | b'b'))
        || s[k] == 0xE2 && next == Some(0x97)
}

/// The first offset at or after `from` where a tag, a fence or a closing tag without `<` may begin
/// ([`may_begin_tag_or_fence`]). Most responses hold none, so the locator reads every byte here once;
/// in wasm sixteen bytes a step, with the module's only vector instructions (whole 2 KB repairs measured
/// 0.95–0.97 the time they took with the two byte searches this replaced; a word-at-a-time pass measured no
/// faster than those). Natively, memchr's vector searches.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
pub fn find_tag_or_fence(s: &[u8], from: usize) -> Option<usize> {
    #[cfg(target_arch = "wasm32")]
    {
        use core::arch::wasm32::*;
        let mut i = from;
        while i + 17 <= s.len() {
            // Slices and words, no pointers: LLVM makes them `v128.load`s.
            let c = &s[i..i + 17];
            let v = u64x2(word(c, 0), word(c, 8));
            let next = u64x2(word(c, 1), word(c, 9));
            let is = |x: v128, b: u8| i8x16_eq(x, u8x16_splat(b));
            let bracket = v128_or(v128_or(is(next, b'/'), is(next, b'B')), is(next, b'b'));
            let starts = v128_or(
                v128_or(
                    v128_or(is(v, b'<'), is(v, b'`')),
                    v128_and(is(v, 0xE2), is(next, 0x97)),
                ),
                v128_or(is(v, b'~'), v128_and(is(v, b'['), bracket)),
            );
            let bits = i8x16_bitmask(starts);
            if bits != 0 {
                return Some(i + bits.trailing_zeros() as usize);
            }
            i += 16;
        }
        (i..s.len()).find(|&k| may_begin_tag_or_fence(s, k))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let first = find_byte3(s, from, b'<', b'`', b'~');
        let before = first.unwrap_or(s.len());
        let mut p = from;
        // Only up to the first hit of the other search: a scan called again from each hit stays linear.
        while let Some(at) = find_byte3(&s[..before], p, b'[', 0xE2, 0xE2) {
            if may_begin_tag_or_fence(s, at) {
                return Some(at);
            }
            p = at + 1;
        }
        first
    }
}

/// Where the first run of three backticks in `s` starts (a fence, in or around a string), if any.
#[inline(never)]
pub fn fence_in(s: &[u8]) -> Option<usize> {
    s.windows(3).position(|w| w == b"```")
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
                assert_eq!(stop, at, "byte {special:#x} at {at}");
            }
        }
        assert_eq!(
            skip_plain_string_bytes(b"it's fine, really", 0, 17, false),
            16
        );
        assert_eq!(
            skip_plain_string_bytes(b"it's fine, really", 0, 17, true),
            2
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// The word searches agree with a byte-by-byte search, wherever the special bytes fall and
        /// however many there are (only the first in a word is reported exactly by the bit trick).
        #[test]
        fn word_searches_find_the_first_special_byte(
            s in proptest::collection::vec(proptest::sample::select(&[b'a', b' ', b'"', b'\\', b'\'', b'\n', 0x1f, 0x20, 0x21, 0xE2, 0xE3, 0xA2, 0x02][..]), 0..40),
            from in 0usize..8,
            single in proptest::bool::ANY,
        ) {
            let end = s.len();
            let from = from.min(end);
            let special = |b: u8| b < 0x20 || matches!(b, b'"' | b'\\' | 0xE2) || (single && b == b'\'');
            let first = (from..end).find(|&i| special(s[i]));
            let stop = skip_plain_string_bytes(&s, from, end, single);
            // Exact within the whole words from `from`; the last seven bytes or fewer are the caller's.
            let words_end = from + (end - from) / 8 * 8;
            proptest::prop_assert_eq!(stop, first.filter(|&i| i < words_end).unwrap_or(words_end));
            let escape = (from..end).find(|&i| s[i] < 0x20 || matches!(s[i], b'"' | b'\\'));
            proptest::prop_assert_eq!(
                skip_to_escape_bytes(&s, from, end),
                escape.filter(|&i| i < words_end).unwrap_or(words_end)
            );
            for b in [b'"', 0xE2] {
                proptest::prop_assert_eq!(find_byte_words(&s, from, b), (from..end).find(|&i| s[i] == b));
            }
        }

        /// The one-pass search for what may begin a tag or a fence agrees with a byte-by-byte one,
        /// `[` and `/` falling on either side of a word's edge included.
        #[test]
        fn tag_or_fence_search_finds_the_first_start(
            s in proptest::collection::vec(proptest::sample::select(&[b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'[', b'/', b'[', b'/', b'<', b'`', b'~', b'Z', b'B', b'b', 0xE2, 0x97, 0x00, 0xff][..]), 0..64),
            from in 0usize..10,
        ) {
            let from = from.min(s.len());
            let want = (from..s.len()).find(|&k| may_begin_tag_or_fence(&s, k));
            proptest::prop_assert_eq!(find_tag_or_fence(&s, from), want);
        }

        /// The word check for any of a set of bytes agrees with a byte-by-byte one, at every length
        /// (the last word overlaps the one before it).
        #[test]
        fn any_byte_check_agrees_with_a_byte_loop(
            s in proptest::collection::vec(proptest::sample::select(&[b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'<', b']', b'`', b'~', b'\\', 0x00, 0xff][..]), 0..40),
        ) {
            let set = b"<`~]";
            proptest::prop_assert_eq!(has_any_byte(&s, set), s.iter().any(|b| set.contains(b)));
        }
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
            assert_eq!(find_byte_words(s, from, b'`'), one);
            assert_eq!(find_byte(s, from, b'`'), one);
        }
        assert_eq!(find_byte3(s, s.len() + 1, b'<', b'<', b'<'), None);
        assert_eq!(find_byte3_words(s, s.len() + 1, b'<', b'<', b'<'), None);
        assert_eq!(find_byte_words(s, s.len() + 1, b'<'), None);
    }

    #[test]
    fn recognises_multibyte_marks() {
        let s = "\u{FEFF}“x”…".as_bytes();
        assert_eq!(invisible_len(s, 0), 3);
        assert_eq!(quote_at(s, 3), Some((QuoteStyle::CurlyDouble, 3)));
        assert_eq!(closer_len(QuoteStyle::CurlyDouble, false, s, 7), 3);
        assert_eq!(closer_len(QuoteStyle::Double, true, s, 7), 3);
        assert_eq!(closer_len(QuoteStyle::Double, false, s, 7), 0);
        assert_eq!(closer_len(QuoteStyle::Double, true, s, 3), 0);
        assert!(starts_with_at(s, 10, ELLIPSIS));
        for space in [
            "\u{1680}", "\u{180E}", "\u{2000}", "\u{200A}", "\u{202F}", "\u{205F}", "\u{3000}",
        ] {
            assert_eq!(unicode_space_len(space.as_bytes(), 0), 3, "{space:?}");
        }
        for other in ["\u{200B}", "\u{2010}", "\u{2026}", "\u{3001}", "a"] {
            assert_eq!(unicode_space_len(other.as_bytes(), 0), 0, "{other:?}");
        }
    }
}
