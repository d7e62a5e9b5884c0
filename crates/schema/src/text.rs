//! Messages put together without `core::fmt`: [`cat!`](crate::cat) and [`cat_into!`](crate::cat_into)
//! append their pieces (text, characters, integers in decimal) to a `String`.
//!
//! `format!` brings the whole formatting machinery into the wasm module (padding, `Display` of every
//! integer width, the `Arguments` tables each call builds): the two crates' messages, written with it,
//! were about 4 KB of the module gzipped. Both crates write their messages with these macros instead;
//! shared here, as the stream cleaner shares [`crate::sub`]. Not part of the crate's API.

/// The `String` the macros build or append to, named through this module: a crate that uses them
/// need not have `String` in scope.
pub use alloc::string::String;

/// A piece of a message: text as it is, an integer in decimal.
pub trait Piece {
    /// Appends the piece to `out`.
    fn push_to(&self, out: &mut String);
}

impl Piece for str {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for String {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for char {
    fn push_to(&self, out: &mut String) {
        out.push(*self);
    }
}

impl Piece for bool {
    fn push_to(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    fn push_to(&self, out: &mut String) {
        (**self).push_to(out);
    }
}

/// Appends `n` in decimal.
pub fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `as u8`: a digit, below 10.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

macro_rules! unsigned_pieces {
    ($($t:ty),*) => {$(
        impl Piece for $t {
            fn push_to(&self, out: &mut String) {
                // Lossless: no unsigned type here is wider than 64 bits.
                push_decimal(out, *self as u64);
            }
        }
    )*};
}
unsigned_pieces!(u8, u16, u32, u64, usize);

macro_rules! signed_pieces {
    ($($t:ty),*) => {$(
        impl Piece for $t {
            fn push_to(&self, out: &mut String) {
                if *self < 0 {
                    out.push('-');
                }
                // Lossless: no signed type here is wider than 64 bits.
                push_decimal(out, self.unsigned_abs() as u64);
            }
        }
    )*};
}
signed_pieces!(i32, i64, isize);

/// A `String` of its pieces, each a [`Piece`]: `cat!("must have ", n, " items")`.
#[doc(hidden)]
#[macro_export]
macro_rules! cat {
    ($($piece:expr),* $(,)?) => {{
        let mut out = $crate::text::String::new();
        $( $crate::text::Piece::push_to(&$piece, &mut out); )*
        out
    }};
}

/// Appends its pieces (after the first argument, a `&mut String`) to that `String`.
#[doc(hidden)]
#[macro_export]
macro_rules! cat_into {
    ($out:expr, $($piece:expr),* $(,)?) => {{
        let out: &mut $crate::text::String = &mut *$out;
        $( $crate::text::Piece::push_to(&$piece, out); )*
    }};
}

/// `bytes` as text, each invalid sequence read as U+FFFD, as `String::from_utf8_lossy` reads it, but with
/// `core::str::from_utf8` alone: the standard library's lossy decoder is a second UTF-8 decoder in the wasm
/// module, which every crate's checked decoding brings in already. For bytes that should be UTF-8 and might
/// not be.
pub fn lossy(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match core::str::from_utf8(bytes) {
            Ok(text) => {
                out.push_str(text);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(core::str::from_utf8(valid).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                bytes = &rest[e.error_len().unwrap_or(rest.len())..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_read_as_format_writes_them() {
        let (n, m, k) = (0usize, u64::MAX, i64::MIN);
        let text = crate::cat!(
            "a ",
            n,
            ' ',
            m,
            " ",
            k,
            " ",
            -7i32,
            " ",
            String::from("é"),
            " ",
            &"x"
        );
        assert_eq!(text, format!("a {n} {m} {k} -7 é x"));
        let mut out = String::from("[");
        crate::cat_into!(&mut out, 42u32, "]");
        assert_eq!(out, "[42]");
    }

    #[test]
    fn lossy_reads_as_the_standard_library_reads() {
        let cases: [&[u8]; 10] = [
            b"",
            b"plain",
            "caf\u{e9} \u{2014} \u{1f680}".as_bytes(),
            b"\xff",
            b"a\xc3",
            b"\xe2\x80a\xe2\x80\x94",
            b"\xf0\x9f\x9a\xf0\x9f\x9a\x80",
            b"\xed\xa0\x80x",
            b"\xc0\xaf\x80\xbf",
            b"\xf4\x90\x80\x80z\xe2",
        ];
        for bytes in cases {
            assert_eq!(lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
        // Every two-byte input, every byte value in both places.
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let bytes = [a, b, b'x'];
                assert_eq!(lossy(&bytes), String::from_utf8_lossy(&bytes), "{bytes:?}");
            }
        }
    }
}
