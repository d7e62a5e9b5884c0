//! Offsets and line/column locations.
//!
//! Units, stated once for the whole crate:
//! - an **offset** is a byte index into the UTF-8 `&str` the caller passed (what `&text[offset..]` expects);
//! - a [`Location`] is what JavaScript callers see: `index` counts UTF-16 code units from the start of the
//!   text (what `input.slice(index)` expects), `line` is 1-based and counts `\n` (a `\r\n` pair is one line
//!   break, a lone `\r` is not), and `column` is 1-based and counts UTF-16 code units since the line start.

use crate::prelude::*;
/// Where something is in the caller's original text, in JavaScript units (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// UTF-16 code-unit index from the start of the text.
    pub index: usize,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in UTF-16 code units from the start of the line.
    pub column: usize,
}

/// Number of UTF-16 code units a UTF-8 sequence starting with `lead` encodes (0 for continuation bytes).
fn utf16_units(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0x80..=0xBF => 0,
        0xC0..=0xEF => 1,
        _ => 2,
    }
}

/// The one sort of the crate (shared with the schema engine, which owns it).
pub(crate) use llm_response_sanitizer_schema::sort_indices;

/// Converts ascending byte offsets into [`Location`]s in one pass over `text`.
///
/// `offsets` need not be sorted; the result is in the same order as `offsets`. Offsets past the end of
/// the text are clamped to its end. Cost: one scan of the text, plus a sort of the offsets unless they
/// are sorted.
#[cfg_attr(shipped, optimize(size))]
pub fn locate_all(text: &str, offsets: &[usize]) -> Vec<Location> {
    let bytes = text.as_bytes();
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    // Offsets mostly come sorted (a report's repairs are in the order they were made).
    if !offsets.windows(2).all(|w| w[0] <= w[1]) {
        sort_indices(&mut order, &|a, b| offsets[a].cmp(&offsets[b]));
    }
    let mut out = vec![Location::default(); offsets.len()];
    let (mut pos, mut index, mut line, mut line_start_index) = (0usize, 0usize, 1usize, 0usize);
    for i in order {
        let target = offsets[i].min(bytes.len());
        // In wasm sixteen bytes a step: a report's positions cost a fifth of what they did one byte at
        // a time (2 KB documents with 85 repairs).
        #[cfg(target_arch = "wasm32")]
        {
            (pos, index, line, line_start_index) =
                steps16(bytes, target, (pos, index, line, line_start_index));
        }
        while pos < target {
            let b = bytes[pos];
            index += utf16_units(b);
            pos += 1;
            if b == b'\n' {
                line += 1;
                line_start_index = index;
            }
        }
        out[i] = Location {
            index,
            line,
            column: index - line_start_index + 1,
        };
    }
    out
}

/// [`locate_all`]'s count (position, UTF-16 index, line, index where the line starts) carried forward
/// sixteen bytes a step while sixteen remain before `target`: continuation bytes count no unit,
/// four-byte leads two (as [`utf16_units`]), line feeds start lines.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn steps16(
    bytes: &[u8],
    target: usize,
    (mut pos, mut index, mut line, mut line_start): (usize, usize, usize, usize),
) -> (usize, usize, usize, usize) {
    use crate::encoding::word;
    use core::arch::wasm32::*;
    while pos + 16 <= target {
        let c = &bytes[pos..pos + 16];
        let v = u64x2(word(c, 0), word(c, 8));
        let none = u32::from(i8x16_bitmask(i8x16_eq(
            v128_and(v, u8x16_splat(0xc0)),
            u8x16_splat(0x80),
        )));
        let two = u32::from(i8x16_bitmask(u8x16_ge(v, u8x16_splat(0xf0))));
        let feeds = u32::from(i8x16_bitmask(i8x16_eq(v, u8x16_splat(b'\n'))));
        // The units of the bytes in `mask`.
        let units = |mask: u32| {
            (mask.count_ones() + (two & mask).count_ones() - (none & mask).count_ones()) as usize
        };
        if feeds != 0 {
            line += feeds.count_ones() as usize;
            // Up to and with the last line feed.
            line_start = index + units(u32::MAX >> feeds.leading_zeros());
        }
        index += units(0xffff);
        pos += 16;
    }
    (pos, index, line, line_start)
}

/// The [`Location`] of one byte offset in `text`.
pub fn locate(text: &str, offset: usize) -> Location {
    locate_all(text, &[offset])[0]
}

/// Length of `text` in UTF-16 code units (what JavaScript's `String.prototype.length` reports).
pub fn utf16_len(text: &str) -> usize {
    // Fast path: ASCII text has one unit per byte.
    if text.is_ascii() {
        return text.len();
    }
    text.as_bytes().iter().map(|&b| utf16_units(b)).sum()
}

#[cfg(test)]
#[allow(clippy::string_slice)] // a test may panic: it then fails
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every offset at a character boundary, in any order, against counting the characters before
        /// it: runs of ASCII long and short, line feeds and carriage returns, characters of two, three
        /// and four bytes. (The wasm build's sixteen-byte step: `check_locations` in tests/common.)
        #[test]
        fn locations_count_utf16_units_lines_and_columns(
            text in "([a-z ,:\\[\\]{}\"]{0,30}[\n\r\u{e9}\u{4f60}\u{1f600}]?){0,12}",
            picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            let offsets: Vec<usize> = picks.iter().map(|p| bounds[p.index(bounds.len())]).collect();
            let got = locate_all(&text, &offsets);
            for (&at, l) in offsets.iter().zip(&got) {
                let before = &text[..at];
                let index = before.encode_utf16().count();
                let line_start = before.rfind('\n').map_or(0, |k| text[..=k].encode_utf16().count());
                let want = Location { index, line: 1 + before.matches('\n').count(), column: index - line_start + 1 };
                prop_assert_eq!(*l, want, "offset {} of {:?}", at, text);
            }
        }
    }

    #[test]
    fn ascii_offsets_are_indices() {
        let t = "ab\ncd";
        assert_eq!(
            locate(t, 0),
            Location {
                index: 0,
                line: 1,
                column: 1
            }
        );
        assert_eq!(
            locate(t, 4),
            Location {
                index: 4,
                line: 2,
                column: 2
            }
        );
    }

    #[test]
    fn non_ascii_counts_utf16_units() {
        // "é" is 2 bytes / 1 unit, "😀" is 4 bytes / 2 units.
        let t = "é😀x";
        assert_eq!(locate(t, 6).index, 3);
        assert_eq!(utf16_len(t), 4);
        let all = locate_all(t, &[6, 0, 2]);
        assert_eq!(
            all.iter().map(|l| l.index).collect::<Vec<_>>(),
            vec![3, 0, 1]
        );
    }

    #[test]
    fn crlf_is_one_line_break() {
        let t = "a\r\nb";
        assert_eq!(
            locate(t, 3),
            Location {
                index: 3,
                line: 2,
                column: 1
            }
        );
    }
}
