//! Text the host hands over in the form it can write fastest, turned into UTF-8 here.
//!
//! A JavaScript string is stored as Latin-1 when every character fits in a byte, and as UTF-16 otherwise.
//! Node copies either form into linear memory as it is (`Buffer.write(text, at, 'latin1')` or
//! `'utf16le'`) about ten times faster than `TextEncoder.encodeInto` transcodes the text to UTF-8, so the
//! binding layer takes those bytes and the transcoding happens here instead: ASCII sixteen characters a
//! step (a wasm vector; eight bytes a step from Latin-1, which is read in place) and, in wasm, eight
//! characters a step across words of other scripts. Results go back the same ways: one byte per
//! character, or UTF-16 ([`push_utf16`]).

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

/// Characters each ASCII step of the transcoders takes at once: sixteen (one vector in wasm, words
/// natively, with the same stopping rule either way).
const STEP: usize = 16;

/// Stores the sixteen bytes at `src[i..]` at `dst[..16]` and returns how many of them are ASCII before
/// the first that is not (16 when all are): those are copied, the rest is garbage to be written over.
#[inline(always)]
fn copy_ascii16(src: &[u8], i: usize, dst: &mut [u8]) -> usize {
    let c = &src[i..i + STEP];
    dst[..STEP].copy_from_slice(c);
    #[cfg(target_arch = "wasm32")]
    let beyond = {
        use core::arch::wasm32::*;
        let v = u64x2(word(c, 0), word(c, 8));
        // The bitmask only when a byte is beyond ASCII: taken always, ASCII and Latin-1 repairs took
        // 1.02–1.05 the time.
        if v128_any_true(v128_and(v, u8x16_splat(0x80))) {
            u32::from(i8x16_bitmask(v))
        } else {
            0
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    let beyond = {
        let high = |w: u64| (0..8).fold(0, |m, k| m | u32::from(w >> (8 * k + 7) & 1 == 1) << k);
        high(word(c, 0)) | high(word(c, 8)) << 8
    };
    (beyond | 1 << STEP).trailing_zeros() as usize
}

/// The low bytes of the sixteen UTF-16LE units at `src[i..i + 32]`, and how many of the units are ASCII
/// before the first that is not (16 when all are): their bytes are their UTF-8, the rest is garbage.
#[inline(always)]
fn narrow_ascii16(src: &[u8], i: usize) -> ([u8; STEP], usize) {
    let c = &src[i..i + 2 * STEP];
    let mut low = [0u8; STEP];
    #[cfg(target_arch = "wasm32")]
    let beyond = {
        use core::arch::wasm32::*;
        let (a, b) = (
            u64x2(word(c, 0), word(c, 8)),
            u64x2(word(c, 16), word(c, 24)),
        );
        let byte = u16x8_splat(0xff);
        let v = u8x16_narrow_i16x8(v128_and(a, byte), v128_and(b, byte));
        low[..8].copy_from_slice(&u64x2_extract_lane::<0>(v).to_le_bytes());
        low[8..].copy_from_slice(&u64x2_extract_lane::<1>(v).to_le_bytes());
        if v128_any_true(v128_and(v128_or(a, b), u16x8_splat(0xff80))) {
            let top = u16x8_splat(0x7f);
            u32::from(i8x16_bitmask(i8x16_narrow_i16x8(
                u16x8_gt(a, top),
                u16x8_gt(b, top),
            )))
        } else {
            0
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    let beyond = {
        let mut beyond = 0;
        for k in 0..4 {
            let w = word(c, 8 * k);
            low[4 * k..4 * k + 4].copy_from_slice(&(pack(w) as u32).to_le_bytes());
            for lane in 0..4 {
                beyond |= u32::from(w >> (16 * lane) & 0xff80 != 0) << (4 * k + lane);
            }
        }
        beyond
    };
    (low, (beyond | 1 << STEP).trailing_zeros() as usize)
}

/// Stores the sixteen bytes at `src[i..]` widened to UTF-16LE units at `dst[..32]` and returns how many
/// of them are ASCII before the first that is not (as [`copy_ascii16`]).
#[inline(always)]
fn widen_ascii16(src: &[u8], i: usize, dst: &mut [u8]) -> usize {
    let c = &src[i..i + STEP];
    #[cfg(target_arch = "wasm32")]
    let beyond = {
        use core::arch::wasm32::*;
        let v = u64x2(word(c, 0), word(c, 8));
        for (k, half) in [u16x8_extend_low_u8x16(v), u16x8_extend_high_u8x16(v)]
            .into_iter()
            .enumerate()
        {
            dst[16 * k..16 * k + 8].copy_from_slice(&u64x2_extract_lane::<0>(half).to_le_bytes());
            dst[16 * k + 8..16 * k + 16]
                .copy_from_slice(&u64x2_extract_lane::<1>(half).to_le_bytes());
        }
        u32::from(i8x16_bitmask(v))
    };
    #[cfg(not(target_arch = "wasm32"))]
    let beyond = {
        let mut beyond = 0;
        for k in 0..4 {
            let x = u32::from_le_bytes([c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3]]);
            dst[8 * k..8 * k + 8].copy_from_slice(&widen(x));
            for lane in 0..4 {
                beyond |= (x >> (8 * lane + 7) & 1) << (4 * k + lane);
            }
        }
        beyond
    };
    (beyond | 1 << STEP).trailing_zeros() as usize
}

/// Whether the Latin-1 text `s` holds no byte in 0x80..=0xBF (the range of UTF-8 continuation bytes):
/// in wasm 32 bytes a step, with vectors, natively eight, then byte by byte. Every Latin-1 repair reads
/// its whole input here first.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
pub(crate) fn has_no_continuation_bytes(s: &[u8]) -> bool {
    let mut i = 0;
    #[cfg(target_arch = "wasm32")]
    {
        use core::arch::wasm32::*;
        // 0x80..=0xBF are the bytes below -0x40 read as signed.
        let below = i8x16_splat(-0x40);
        while i + 32 <= s.len() {
            // Slices and words, no pointers: LLVM makes them `v128.load`s.
            let c = &s[i..i + 32];
            let (a, b) = (
                u64x2(word(c, 0), word(c, 8)),
                u64x2(word(c, 16), word(c, 24)),
            );
            if v128_any_true(v128_or(i8x16_lt(a, below), i8x16_lt(b, below))) {
                return false;
            }
            i += 32;
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
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
/// more than the short runs between accented letters. (Sixteen a step with wasm vectors, as the other
/// transcoders take them, measured 1.04–1.09 the time of `repairJson` on ASCII and Latin-1 responses.)
pub(crate) fn latin1_to_utf8_in_place(buf: &mut [u8], len: usize) -> usize {
    let (mut from, end) = (len, 2 * len);
    let mut to = 0;
    while from < end {
        if from + 8 <= end {
            // Eight bytes stored as they are (read before written: `to <= from`): those up to the first
            // byte beyond ASCII are kept, the rest are written over next.
            let w = word(buf, from);
            buf[to..to + 8].copy_from_slice(&w.to_le_bytes());
            let high = w & HIGHS;
            let ascii = if high == 0 {
                8
            } else {
                high.trailing_zeros() as usize / 8
            };
            to += ascii;
            from += ascii;
            if ascii == 8 {
                continue;
            }
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

/// The UTF-16LE code unit at byte `i` of `buf`.
#[inline(always)]
fn unit(buf: &[u8], i: usize) -> u32 {
    u32::from(u16::from_le_bytes([buf[i], buf[i + 1]]))
}

/// Writes the character `c` (a scalar value) as UTF-8 at `buf[to..]` and returns its length, each byte
/// stored alone: a copy of a run-time length would be a call into the host (see `latin1_to_utf8_in_place`).
#[inline(always)]
fn put_utf8(buf: &mut [u8], to: usize, c: u32) -> usize {
    // The `as u8` casts keep the low bits on purpose: each byte's marker bits are or-ed in.
    match c {
        0..=0x7f => {
            buf[to] = c as u8;
            1
        }
        0x80..=0x7ff => {
            buf[to] = 0xc0 | (c >> 6) as u8;
            buf[to + 1] = 0x80 | (c & 0x3f) as u8;
            2
        }
        0x800..=0xffff => {
            buf[to] = 0xe0 | (c >> 12) as u8;
            buf[to + 1] = 0x80 | (c >> 6 & 0x3f) as u8;
            buf[to + 2] = 0x80 | (c & 0x3f) as u8;
            3
        }
        _ => {
            buf[to] = 0xf0 | (c >> 18) as u8;
            buf[to + 1] = 0x80 | (c >> 12 & 0x3f) as u8;
            buf[to + 2] = 0x80 | (c >> 6 & 0x3f) as u8;
            buf[to + 3] = 0x80 | (c & 0x3f) as u8;
            4
        }
    }
}

/// Turns the UTF-16LE text (`len` code units) in `buf[len..3 * len]` into UTF-8 at the start of `buf`
/// and returns its length, and whether it held a lone surrogate, which becomes U+FFFD, as `TextEncoder`
/// writes it (the host's string then has a unit the text cannot: see `utf16_span`). Node copies a
/// string V8 stores in two bytes per character into memory as it is, ten times faster than
/// `TextEncoder.encodeInto` transcodes it, and ASCII moves here eight units at a time.
///
/// After `k` units are read, at most `3k` bytes are written, and the next unit starts at byte `len + 2k`,
/// which `3k` reaches only at `k == len`: the writing never overtakes the reading.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
pub(crate) fn utf16_to_utf8_in_place(buf: &mut [u8], len: usize) -> (usize, bool) {
    let (mut from, end) = (len, 3 * len);
    let mut to = 0;
    let mut lone = false;
    while from < end {
        // With sixteen units left or more, `to + 16 <= 3k + 16 <= len + 2k`: the sixteen bytes stored
        // here never reach the units not yet read.
        if from + 2 * STEP <= end {
            // The low byte of each of the sixteen units: those up to the first unit beyond ASCII are
            // kept; the rest are written over next.
            let (low, ascii) = narrow_ascii16(buf, from);
            buf[to..to + STEP].copy_from_slice(&low);
            to += ascii;
            from += 2 * ascii;
            if ascii == STEP {
                continue;
            }
            // A lone mark of general punctuation (U+2000..U+207F: dashes, typographic quotes, the
            // ellipsis) before an ASCII character is written here, and the ASCII step goes on after it.
            let u = unit(buf, from);
            if u & 0xff80 == 0x2000 && from + 4 <= end && unit(buf, from + 2) < 0x80 {
                to += put_utf8(buf, to, u);
                from += 2;
                continue;
            }
        }
        // One unit, then every unit beyond ASCII right after it: in text of other scripts the eight-unit
        // step would stop at once before each of them.
        let mut word_start = true;
        loop {
            // Where a word may begin (here, and after an ASCII unit), runs of characters UTF-8 writes
            // in two or three bytes (other scripts) go up to eight a step.
            if word_start {
                loop {
                    let (n, width) = utf16_run(buf, from, end, to);
                    from += 2 * n;
                    to += n * width;
                    if n < 8 {
                        break;
                    }
                }
                if from >= end {
                    break;
                }
            }
            let u = unit(buf, from);
            from += 2;
            let c = match u {
                0xd800..=0xdbff
                    if from + 2 <= end && (0xdc00..=0xdfff).contains(&unit(buf, from)) =>
                {
                    let low = unit(buf, from);
                    from += 2;
                    0x1_0000 + ((u - 0xd800) << 10) + (low - 0xdc00)
                }
                0xd800..=0xdfff => {
                    lone = true;
                    0xfffd
                }
                _ => u,
            };
            word_start = c < 0x80;
            to += put_utf8(buf, to, c);
            // A lone ASCII unit between others (a space between words) is taken here too.
            if from >= end
                || unit(buf, from) < 0x80 && (from + 2 >= end || unit(buf, from + 2) < 0x80)
            {
                break;
            }
        }
    }
    (to, lone)
}

/// [`utf16_to_utf8_in_place`]'s runs: the characters of one UTF-8 length, two or three bytes, from the
/// unit at byte `from` on, up to eight of them, written as UTF-8 at `buf[to..]`; returns how many and
/// their length. As in [`utf8_run`], a run needs two more such characters right after the first, and
/// ends before the first unit of another length (or a surrogate). Taken only with 24 units or more left: then
/// `to + 24 <= 3k + 24 <= len + 2k = from` (`k` units read so far), so the bytes written, the garbage
/// after the run's end included, never reach a unit not yet read.
#[inline(always)]
fn utf16_run(buf: &mut [u8], from: usize, end: usize, to: usize) -> (usize, usize) {
    let width = |u: u32| match u {
        0x80..=0x7ff => 2,
        0x800..=0xd7ff | 0xe000..=0xffff => 3,
        _ => 0,
    };
    if from + 48 > end {
        return (0, 0);
    }
    let w = width(unit(buf, from));
    if w == 0 || width(unit(buf, from + 2)) != w || width(unit(buf, from + 4)) != w {
        return (0, 0);
    }
    let block = &buf[from..from + 16];
    #[cfg(target_arch = "wasm32")]
    let valid = if w == 2 {
        let (bytes, valid) = simd::utf16_run2(block);
        buf[to..to + 16].copy_from_slice(&bytes);
        valid
    } else {
        let (bytes, valid) = simd::utf16_run3(block);
        buf[to..to + 24].copy_from_slice(&bytes);
        valid
    };
    #[cfg(not(target_arch = "wasm32"))]
    let valid = {
        let units: [u32; 8] = core::array::from_fn(|k| unit(block, 2 * k));
        let mut valid = 0u32;
        for (k, &u) in units.iter().enumerate() {
            if width(u) == w {
                put_utf8(buf, to + w * k, u);
                valid |= 1 << k;
            }
        }
        valid
    };
    // The characters before the first of another length.
    ((!valid).trailing_zeros().min(8) as usize, w)
}

/// UTF-16 code units as UTF-8 by the binding's transcoder, a lone surrogate as U+FFFD: for tests of its
/// vector steps under wasm (`tests/wasm_cases`). Not part of the crate's API.
pub fn utf16_to_utf8(units: &[u16]) -> Vec<u8> {
    let mut buf = vec![0; units.len()];
    buf.extend(units.iter().flat_map(|u| u.to_le_bytes()));
    let (n, _) = utf16_to_utf8_in_place(&mut buf, units.len());
    buf.truncate(n);
    buf
}

/// UTF-8 bytes as UTF-16 code units as results cross to the host, a byte that starts no valid sequence
/// as U+FFFD: for tests of the vector steps under wasm. Not part of the crate's API.
pub fn utf8_to_utf16(bytes: &[u8]) -> Vec<u16> {
    let mut out = Vec::new();
    push_utf16(&mut out, bytes);
    out.chunks(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect()
}

/// UTF-8 JSON text in a narrow form as results cross to the host (`\u` escapes beyond ASCII, or beyond
/// Latin-1 with `latin1`): for tests of its vector step under wasm. Not part of the crate's API.
pub fn narrow_json(json: &[u8], latin1: bool) -> Vec<u8> {
    let mut out = Vec::new();
    push_narrow_json(&mut out, json, latin1);
    out
}

/// The low byte of each of the four UTF-16 units in `w`, packed into its low four bytes.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
fn pack(w: u64) -> u64 {
    w & 0xff | w >> 8 & 0xff00 | w >> 16 & 0xff_0000 | w >> 24 & 0xff00_0000
}

/// The four bytes of `x`, each widened to a 16-bit lane: four ASCII bytes as four UTF-16LE units.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
fn widen(x: u32) -> [u8; 8] {
    let x = u64::from(x);
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    ((x | x << 8) & 0x00ff_00ff_00ff_00ff).to_le_bytes()
}

/// Appends the UTF-8 text `text` to `out` as UTF-16LE, the form V8 stores a string with characters beyond
/// Latin-1 in: Node's `Buffer` makes it a string with one copy, and `JSON.parse` then reads its strings
/// as they are, where the narrow forms give it `\u` escapes to decode. A byte that does not start a valid
/// UTF-8 sequence (never written by the parser) comes out as U+FFFD.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
pub(crate) fn push_utf16(out: &mut Vec<u8>, text: &[u8]) {
    let start = out.len();
    // UTF-16 takes at most two bytes per byte of UTF-8; 16 more leave room for a last whole word. One
    // fill of the room, then stores of a known size: no bounds or capacity check per character.
    out.resize(start + 2 * text.len() + 16, 0);
    let dst = &mut out[start..];
    let (mut i, mut o) = (0, 0);
    while i < text.len() {
        if i + STEP <= text.len() {
            // Sixteen bytes widened to sixteen units: those up to the first byte beyond ASCII are kept,
            // the rest are written over next (`o <= 2i` throughout, so the 32 bytes fit).
            let ascii = widen_ascii16(text, i, &mut dst[o..]);
            i += ascii;
            o += 2 * ascii;
            if ascii == STEP {
                continue;
            }
        }
        // One character, then every character beyond ASCII right after it (as in
        // `utf16_to_utf8_in_place`).
        let mut word_start = true;
        loop {
            // Where a word may begin (here, and after an ASCII byte), runs of two- or three-byte
            // characters (other scripts) go up to eight a step.
            if word_start {
                loop {
                    let (n, width) = utf8_run(text, i, &mut dst[o..]);
                    i += n * width;
                    o += 2 * n;
                    if n < 8 {
                        break;
                    }
                }
                if i >= text.len() {
                    break;
                }
            }
            let (c, used) = match text[i] {
                b @ 0..=0x7f => (u32::from(b), 1),
                _ => utf8_char(text, i),
            };
            word_start = c < 0x80;
            i += used;
            if c >= 0x1_0000 {
                let v = c - 0x1_0000;
                // `as u16` keeps the ten bits of each half.
                dst[o..o + 2].copy_from_slice(&(0xd800 | (v >> 10) as u16).to_le_bytes());
                dst[o + 2..o + 4].copy_from_slice(&(0xdc00 | (v & 0x3ff) as u16).to_le_bytes());
                o += 4;
            } else {
                dst[o..o + 2].copy_from_slice(&(c as u16).to_le_bytes());
                o += 2;
            }
            // A lone ASCII byte between others (a space between words) is taken here too.
            if i >= text.len() || text[i] < 0x80 && text.get(i + 1).map_or(true, |&b| b < 0x80) {
                break;
            }
        }
    }
    out.truncate(start + o);
}

/// Decodes the run of characters of one UTF-8 length, two or three bytes, that starts at `text[i]`,
/// up to eight of them, into UTF-16LE units at the start of `dst` (which has room for sixteen bytes);
/// returns how many and their length. A run is taken only when two more characters of the same length
/// follow the first (a lone accented letter or dash, or a two-letter word, costs less one character at a
/// time), and it ends before the first sequence that is not a valid one of that length (continuation
/// bytes, overlong forms, surrogates): that one is left to [`utf8_char`]. In wasm, eight characters a
/// step in vectors; the units past the run's end are garbage the next writes go over (`push_utf16`'s
/// room allows it).
#[inline(always)]
fn utf8_run(text: &[u8], i: usize, dst: &mut [u8]) -> (usize, usize) {
    // After a run of eight, `i` may be the text's end.
    let width = match text.get(i) {
        Some(0xc2..=0xdf) => 2,
        Some(0xe0..=0xef) => 3,
        _ => return (0, 0),
    };
    let is_lead = |b: u8| {
        if width == 2 {
            b & 0xe0 == 0xc0
        } else {
            b & 0xf0 == 0xe0
        }
    };
    if i + 8 * width > text.len() || !is_lead(text[i + width]) || !is_lead(text[i + 2 * width]) {
        return (0, 0);
    }
    let block = &text[i..i + 8 * width];
    #[cfg(target_arch = "wasm32")]
    let (units, valid) = if width == 2 {
        simd::utf8_run2(block)
    } else {
        simd::utf8_run3(block)
    };
    #[cfg(not(target_arch = "wasm32"))]
    let (units, valid) = {
        let (mut units, mut valid) = ([0u8; 16], 0u32);
        for k in 0..8 {
            let (c, used) = utf8_char(block, k * width);
            if used == width {
                units[2 * k..2 * k + 2].copy_from_slice(&(c as u16).to_le_bytes());
                valid |= 1 << k;
            }
        }
        (units, valid)
    };
    dst[..16].copy_from_slice(&units);
    // The characters before the first that is not a valid sequence of this length.
    ((!valid).trailing_zeros().min(8) as usize, width)
}

/// The vector steps of [`utf8_run`] and [`utf16_run`]: eight characters of one UTF-8 length at a time.
#[cfg(target_arch = "wasm32")]
mod simd {
    use super::word;
    use core::arch::wasm32::*;

    /// The sixteen bytes of `v`.
    #[inline(always)]
    fn bytes(v: v128) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&u64x2_extract_lane::<0>(v).to_le_bytes());
        out[8..].copy_from_slice(&u64x2_extract_lane::<1>(v).to_le_bytes());
        out
    }

    /// A vector of the byte `lo` in lanes 0..8 and `hi` in lanes 8..16.
    #[inline(always)]
    fn halves(lo: u8, hi: u8) -> v128 {
        let w = |b: u8| u64::from_le_bytes([b; 8]);
        u64x2(w(lo), w(hi))
    }

    /// Bit `k` set when the eight-bit lanes `k` and `k + 8` of `v` are both all ones.
    #[inline(always)]
    fn pairs(v: v128) -> u32 {
        let m = u32::from(i8x16_bitmask(v));
        m & m >> 8 & 0xff
    }

    /// Eight two-byte sequences (`block`, 16 bytes) as eight UTF-16LE units, and bit `k` set when the
    /// `k`th is a valid sequence: a lead byte 0xC2..=0xDF, then a continuation byte.
    #[target_feature(enable = "simd128")]
    pub(super) fn utf8_run2(block: &[u8]) -> ([u8; 16], u32) {
        let v = u64x2(word(block, 0), word(block, 8));
        // The lead bytes in lanes 0..8, the continuation bytes in lanes 8..16.
        let split = i8x16_shuffle::<0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15>(v, v);
        let marked = i8x16_eq(v128_and(split, halves(0xe0, 0xc0)), halves(0xc0, 0x80));
        let (lead, cont) = (
            u16x8_extend_low_u8x16(split),
            u16x8_extend_high_u8x16(split),
        );
        let units = v128_or(
            i16x8_shl(v128_and(lead, u16x8_splat(0x1f)), 6),
            v128_and(cont, u16x8_splat(0x3f)),
        );
        // The overlong forms (leads 0xC0 and 0xC1) decode below U+0080.
        let long = u16x8_ge(units, u16x8_splat(0x80));
        (bytes(units), pairs(marked) & u32::from(i16x8_bitmask(long)))
    }

    /// Eight three-byte sequences (`block`, 24 bytes) as eight UTF-16LE units, and bit `k` set when the
    /// `k`th is a valid sequence: a lead byte 0xE0..=0xEF and two continuation bytes, neither an overlong
    /// form nor a surrogate.
    #[target_feature(enable = "simd128")]
    pub(super) fn utf8_run3(block: &[u8]) -> ([u8; 16], u32) {
        let (a, b) = (
            u64x2(word(block, 0), word(block, 8)),
            u64x2(word(block, 8), word(block, 16)),
        );
        // Byte `k` of the block is lane `k` of `a` below 16 and lane `k - 8` of `b` (index `k + 8`)
        // after: the lead bytes, then the first continuation bytes; the second ones.
        let lead_c1 =
            i8x16_shuffle::<0, 3, 6, 9, 12, 15, 26, 29, 1, 4, 7, 10, 13, 24, 27, 30>(a, b);
        let c2 = i8x16_shuffle::<2, 5, 8, 11, 14, 25, 28, 31, 2, 5, 8, 11, 14, 25, 28, 31>(a, b);
        let marked = v128_and(
            i8x16_eq(v128_and(lead_c1, halves(0xf0, 0xc0)), halves(0xe0, 0x80)),
            // The second continuation bytes' checks in both halves, as `pairs` reads them.
            i8x16_eq(v128_and(c2, halves(0xc0, 0xc0)), halves(0x80, 0x80)),
        );
        let lead = u16x8_extend_low_u8x16(lead_c1);
        let (c1, c2) = (u16x8_extend_high_u8x16(lead_c1), u16x8_extend_low_u8x16(c2));
        let low6 = u16x8_splat(0x3f);
        let units = v128_or(
            v128_or(
                i16x8_shl(v128_and(lead, u16x8_splat(0x0f)), 12),
                i16x8_shl(v128_and(c1, low6), 6),
            ),
            v128_and(c2, low6),
        );
        (bytes(units), pairs(marked) & three_byte_units(units))
    }

    /// Bit `k` set when unit `k` of `units` is U+0800..=U+FFFF and no surrogate: a character UTF-8
    /// writes in three bytes.
    #[inline(always)]
    fn three_byte_units(units: v128) -> u32 {
        let surrogate = i16x8_eq(v128_and(units, u16x8_splat(0xf800)), u16x8_splat(0xd800));
        let wide = v128_andnot(u16x8_ge(units, u16x8_splat(0x800)), surrogate);
        u32::from(i16x8_bitmask(wide))
    }

    /// Eight UTF-16LE units (`block`, 16 bytes) as eight two-byte UTF-8 sequences, and bit `k` set when
    /// unit `k` is U+0080..=U+07FF.
    #[target_feature(enable = "simd128")]
    pub(super) fn utf16_run2(block: &[u8]) -> ([u8; 16], u32) {
        let units = u64x2(word(block, 0), word(block, 8));
        let lead = v128_or(u16x8_shr(units, 6), u16x8_splat(0xc0));
        let cont = v128_or(v128_and(units, u16x8_splat(0x3f)), u16x8_splat(0x80));
        // Saturated where a unit is too wide for two bytes: those lanes are not valid.
        let split = u8x16_narrow_i16x8(lead, cont);
        let out =
            i8x16_shuffle::<0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15>(split, split);
        let fits = v128_and(
            u16x8_ge(units, u16x8_splat(0x80)),
            u16x8_lt(units, u16x8_splat(0x800)),
        );
        (bytes(out), u32::from(i16x8_bitmask(fits)))
    }

    /// Eight UTF-16LE units (`block`, 16 bytes) as eight three-byte UTF-8 sequences (24 bytes), and bit
    /// `k` set when unit `k` is U+0800..=U+FFFF and no surrogate.
    #[target_feature(enable = "simd128")]
    pub(super) fn utf16_run3(block: &[u8]) -> ([u8; 24], u32) {
        let units = u64x2(word(block, 0), word(block, 8));
        let low6 = u16x8_splat(0x3f);
        let lead = v128_or(u16x8_shr(units, 12), u16x8_splat(0xe0));
        let c1 = v128_or(v128_and(u16x8_shr(units, 6), low6), u16x8_splat(0x80));
        let c2 = v128_or(v128_and(units, low6), u16x8_splat(0x80));
        // Lanes 0..8 the lead bytes, 8..16 the first continuation bytes; the second ones.
        let (x, y) = (u8x16_narrow_i16x8(lead, c1), u8x16_narrow_i16x8(c2, c2));
        let first = i8x16_shuffle::<0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19, 4, 12, 20, 5>(x, y);
        let rest = i8x16_shuffle::<13, 21, 6, 14, 22, 7, 15, 23, 0, 0, 0, 0, 0, 0, 0, 0>(x, y);
        let mut out = [0u8; 24];
        out[..16].copy_from_slice(&bytes(first));
        out[16..].copy_from_slice(&bytes(rest)[..8]);
        (out, three_byte_units(units))
    }
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

/// How many characters of the UTF-8 text `s` lie beyond Latin-1 (U+0100 and up): the lead bytes 0xC4 and
/// above. In wasm sixteen bytes a step: it reads every byte of a result.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
pub(crate) fn count_beyond_latin1(s: &[u8]) -> usize {
    let beyond = |rest: &[u8]| rest.iter().filter(|&&b| b >= 0xc4).count();
    #[cfg(target_arch = "wasm32")]
    {
        use core::arch::wasm32::*;
        let (mut i, mut n) = (0, 0);
        while i + 16 <= s.len() {
            let c = &s[i..i + 16];
            let v = u64x2(word(c, 0), word(c, 8));
            n += i8x16_bitmask(u8x16_ge(v, u8x16_splat(0xc4))).count_ones() as usize;
            i += 16;
        }
        n + beyond(&s[i..])
    }
    #[cfg(not(target_arch = "wasm32"))]
    beyond(s)
}

/// Appends the UTF-8 JSON text `json` to `out` in a narrow form, one byte per character for the host to
/// decode: every non-ASCII character written as a `\uXXXX` escape (surrogate pairs beyond the BMP), or
/// with `latin1` characters up to U+00FF as one Latin-1 byte each (Node decodes that form fastest, and
/// `JSON.parse` reads unescaped strings faster). The value is unchanged. A byte that does not start a valid
/// UTF-8 sequence (never written by the parser) comes out as `\ufffd`.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
pub(crate) fn push_narrow_json(out: &mut Vec<u8>, json: &[u8], latin1: bool) {
    let mut rest = json;
    let mut first = true;
    while !rest.is_empty() {
        // One fill of room, then stores of a known size with no capacity check per character (as
        // `push_utf16`). First a quarter more than the text, which JSON with a few escapes fits in; then
        // three bytes per byte of UTF-8 (`\uXXXX` for a three-byte character, two escapes for a four-byte
        // one), which only bytes that are not UTF-8 can outgrow; and round again.
        let room = if first {
            rest.len() + rest.len() / 4
        } else {
            3 * rest.len()
        };
        first = false;
        let start = out.len();
        out.resize(start + room + NARROW_ROOM, 0);
        let (read, written) = narrow_into(&mut out[start..], rest, latin1);
        out.truncate(start + written);
        rest = &rest[read..];
    }
}

/// The room [`narrow_into`] keeps free: a step's ASCII prefix (15 bytes) and two escapes (12) after it.
const NARROW_ROOM: usize = STEP - 1 + 12;

/// [`push_narrow_json`] into `dst` until `json` ends or `dst` may not hold the next character: the bytes
/// read and written.
#[inline(always)]
fn narrow_into(dst: &mut [u8], json: &[u8], latin1: bool) -> (usize, usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let (mut i, mut o) = (0, 0);
    // Room for a step's ASCII prefix (15) and two escapes (12) after it.
    while i < json.len() && o + NARROW_ROOM <= dst.len() {
        if i + STEP <= json.len() {
            // Sixteen bytes stored as they are: those up to the first byte beyond ASCII are kept, the
            // rest are written over next.
            let ascii = copy_ascii16(json, i, &mut dst[o..]);
            i += ascii;
            o += ascii;
            if ascii == STEP {
                continue;
            }
        }
        let lead = json[i];
        if lead.is_ascii() {
            dst[o] = lead;
            i += 1;
            o += 1;
            continue;
        }
        // U+0080..U+00FF: a lead byte 0xC2 or 0xC3 and one continuation byte.
        if let (true, 0xc2 | 0xc3, Some(&next)) = (latin1, lead, json.get(i + 1)) {
            if next & 0xc0 == 0x80 {
                dst[o] = (lead & 3) << 6 | (next & 0x3f);
                i += 2;
                o += 1;
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
            let hex = |shift: u32| HEX[(u >> shift & 15) as usize];
            dst[o..o + 6].copy_from_slice(&[b'\\', b'u', hex(12), hex(8), hex(4), hex(0)]);
            o += 6;
        }
    }
    (i, o)
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

    /// `units` written as UTF-16LE after `units.len()` bytes and transcoded in place; the transcoder
    /// says it met a lone surrogate exactly when the standard decoder rejects the units.
    fn utf16_round_trip(units: &[u16]) -> Vec<u8> {
        let mut buf = vec![b'#'; units.len()];
        buf.extend(units.iter().flat_map(|u| u.to_le_bytes()));
        let (n, lone) = utf16_to_utf8_in_place(&mut buf, units.len());
        assert_eq!(lone, String::from_utf16(units).is_err(), "{units:x?}");
        buf.truncate(n);
        buf
    }

    #[test]
    fn utf16_becomes_utf8() {
        let s = "“ready” — 你好 🚀 déjà, plain ASCII runs of eight and more";
        let units: Vec<u16> = s.encode_utf16().collect();
        assert_eq!(utf16_round_trip(&units), s.as_bytes());
        // Lone surrogates, high then low, at the end and before ASCII, as `TextEncoder` writes them.
        assert_eq!(
            utf16_round_trip(&[0x61, 0xdc00, 0xd800, 0x62, 0xd83d]),
            "a\u{fffd}\u{fffd}b\u{fffd}".as_bytes()
        );
        assert_eq!(utf16_round_trip(&[]), b"");
    }

    #[test]
    fn runs_of_other_scripts_end_anywhere() {
        // Words of two- and three-byte characters of every length, the last one ending the text (a run
        // of eight can end exactly there) or followed by ASCII, after a space or at the start.
        for c in ['п', '你', 'ß'] {
            for n in 0..=26 {
                let word: String = core::iter::repeat(c).take(n).collect();
                for s in [
                    format!(" {word}"),
                    format!("{word}."),
                    format!("x {word} {word}"),
                ] {
                    round_trips(&s);
                }
            }
        }
    }

    /// `s` through both transcoders, the in-place one with its buffer ending where the text does.
    fn round_trips(s: &str) {
        let units: Vec<u16> = s.encode_utf16().collect();
        assert_eq!(utf16_round_trip(&units), s.as_bytes(), "{s:?}");
        assert_eq!(utf8_to_utf16(s.as_bytes()), units, "{s:?}");
    }

    #[test]
    fn lone_punctuation_ends_the_text_or_a_step() {
        // A dash or a typographic quote after every number of ASCII characters: the step that stops at
        // it may be the text's last, with the mark its last unit (the buffer ends right after it).
        for mark in ['—', '“', '\u{2000}', '\u{207f}'] {
            for n in 0..40 {
                let ascii = "a".repeat(n);
                for s in [
                    format!("{ascii}{mark}"),
                    format!("{ascii}{mark}."),
                    format!("{ascii}{mark}{mark}"),
                ] {
                    round_trips(&s);
                }
            }
        }
    }

    proptest! {
        /// Any sequence of code units, lone surrogates included, transcodes as the standard library's
        /// lossy decoding does, whatever mix of ASCII runs (the word-at-a-time path) it has.
        #[test]
        fn utf16_matches_the_standard_decoding(
            units in proptest::collection::vec(
                prop_oneof![12 => 0x20u16..0x7f, 1 => 0x80u16..0x800, 1 => 0x800u16..0xd800, 1 => 0xd800u16..0xe000, 1 => 0xe000u16..=0xffff],
                0..80,
            )
        ) {
            let got = utf16_round_trip(&units);
            prop_assert_eq!(got, String::from_utf16_lossy(&units).into_bytes());
        }

        /// Text widened to UTF-16 reads back as the same text; bytes that are not UTF-8 read as U+FFFD,
        /// one for each byte the narrow forms would escape.
        #[test]
        fn utf16_output_keeps_the_text(s in "([a-z \\\\\"]{0,19}[\\x00-\\x1f\\u{80}-\\u{ff}\\u{100}-\\u{10ffff}]?){0,6}") {
            let mut out = Vec::new();
            push_utf16(&mut out, s.as_bytes());
            let units: Vec<u16> = out.chunks(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
            prop_assert_eq!(String::from_utf16(&units).unwrap(), s);
        }
    }

    #[test]
    fn narrow_forms_fit_text_denser_in_escapes_than_the_first_room() {
        // ASCII runs of every length before each escape, and escapes dense enough to need a second round.
        for run in 0..12 {
            let text: String = (0..40)
                .map(|k| format!("{}{}", "a".repeat((run + k) % 12), ["😀", "“"][k % 2]))
                .collect();
            let json = serde_json::to_string(&text).unwrap();
            for latin1 in [false, true] {
                let back: String = serde_json::from_str(&narrow(&json, latin1)).unwrap();
                assert_eq!(back, text);
            }
        }
    }

    #[test]
    fn narrow_forms_escape_long_runs_of_bytes_that_are_not_utf8() {
        // Six bytes out for each byte in: more than the room made for UTF-8, so the text goes round again.
        let junk: Vec<u8> = (0..100)
            .map(|k| if k % 10 == 0 { b'a' } else { 0xff })
            .collect();
        for latin1 in [false, true] {
            let mut out = b"[".to_vec();
            push_narrow_json(&mut out, &junk, latin1);
            let want: String = junk
                .iter()
                .map(|&b| if b == b'a' { "a" } else { "\\ufffd" })
                .collect();
            assert_eq!(out, [b"[".as_slice(), want.as_bytes()].concat());
        }
    }

    #[test]
    fn utf16_output_replaces_bytes_that_are_not_utf8() {
        let mut out = Vec::new();
        push_utf16(&mut out, b"a\xffb\xe2\x80");
        let units: Vec<u16> = out
            .chunks(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        assert_eq!(units, [0x61, 0xfffd, 0x62, 0xfffd, 0xfffd]);
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
