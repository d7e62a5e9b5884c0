//! JSON numbers as exact decimals.
//!
//! A [`Number`] keeps the text the model wrote, and every comparison the schema engine makes
//! (`minimum`, `multipleOf`, `integer`, `enum`, `uniqueItems`) is done on the decimal digits of that
//! text, exactly. This is what JSON Schema asks for (numbers are mathematical values), so `0.3` is a
//! multiple of `0.1` and `972783798187987123879878123.18878137` keeps its last digit. It also keeps the
//! float parser and its tables (about 15 KB gzipped) out of the wasm.

use crate::prelude::*;
use core::cmp::Ordering;

/// A JSON number, held as the text it was written as, which is also what it is written back as.
#[derive(Clone, Debug)]
pub struct Number {
    text: Box<str>,
}

/// The largest `multipleOf` the engine takes has this many significant digits, so that the
/// remainder arithmetic fits in 64 bits.
pub(super) const MAX_DIVISOR_DIGITS: usize = 18;

/// Bounds an exponent, so that `1e99999999999999999999` is compared as a very large number rather
/// than overflowing. Digit counts are bounded by the input length, far below this.
const EXPONENT_LIMIT: i64 = 1 << 40;

impl Number {
    /// The JSON text of the number.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// A whole number.
    pub fn from_u64(n: u64) -> Number {
        Number {
            text: cat!(n).into(),
        }
    }

    /// The number written as `text`, which the caller has checked against the JSON number grammar.
    pub(super) fn from_json_text(text: &str) -> Number {
        Number { text: text.into() }
    }

    /// Compares the values, exactly (`1` equals `1.0` and `10e-1`; `-0` equals `0`).
    pub fn cmp_value(&self, other: &Number) -> Ordering {
        let (a, b) = (Decimal::of(&self.text), Decimal::of(&other.text));
        match (a.signum(), b.signum()) {
            (x, y) if x != y => x.cmp(&y),
            (0, _) => Ordering::Equal,
            (1, _) => a.cmp_magnitude(&b),
            _ => b.cmp_magnitude(&a),
        }
    }

    /// Whether the value has no fractional part (`1.0` and `1e3` do).
    pub fn is_integer(&self) -> bool {
        Decimal::of(&self.text).is_integer()
    }

    /// Whether the value is greater than zero.
    pub fn is_positive(&self) -> bool {
        Decimal::of(&self.text).signum() == 1
    }

    /// The value as a count: `None` if it is negative or has a fractional part; `u64::MAX` if it is
    /// larger than that.
    pub fn to_count(&self) -> Option<u64> {
        let d = Decimal::of(&self.text);
        if d.signum() < 0 || !d.is_integer() {
            return None;
        }
        if d.point > 20 {
            return Some(u64::MAX);
        }
        let mut n: u64 = 0;
        for i in 0..d.point as usize {
            let digit = if i < d.len { d.digit(i) } else { 0 };
            n = match n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(digit)))
            {
                Some(n) => n,
                None => return Some(u64::MAX),
            };
        }
        Some(n)
    }

    /// The number of significant digits (`0.0012300` has 3).
    pub(super) fn significant_digits(&self) -> usize {
        Decimal::of(&self.text).len
    }

    /// Whether `self / divisor` is an integer, exactly. `divisor` must be positive with at most
    /// `MAX_DIVISOR_DIGITS` (18) significant digits (the compiler checks both).
    pub fn is_multiple_of(&self, divisor: &Number) -> bool {
        let (a, m) = (Decimal::of(&self.text), Decimal::of(&divisor.text));
        if a.len == 0 {
            return true;
        }
        // a = A × 10^ea and m = M × 10^em, with A and M integers that do not end in 0.
        let ea = a.point - a.len as i64;
        let em = m.point - m.len as i64;
        if ea < em {
            // A / (M × 10^k) with k ≥ 1 would need A to end in 0.
            return false;
        }
        let modulus = (0..m.len).fold(0u64, |n, i| n * 10 + u64::from(m.digit(i)));
        if modulus == 0 {
            return false;
        }
        let rest = (0..a.len).fold(0u64, |r, i| (r * 10 + u64::from(a.digit(i))) % modulus);
        let scale = pow_mod(10, (ea - em) as u64, modulus);
        mul_mod(rest, scale, modulus) == 0
    }

    /// Writes a key that is equal for equal values (for `uniqueItems`).
    pub(super) fn write_key(&self, out: &mut String) {
        let d = Decimal::of(&self.text);
        if d.signum() < 0 {
            out.push('-');
        }
        out.extend((0..d.len).map(|i| char::from(b'0' + d.digit(i))));
        out.push('e');
        crate::cat_into!(out, d.point);
    }
}

/// `x × y mod m`, for `x, y < m < 2^63`, by doubling and adding (high bit first), so that every
/// intermediate stays below `2m` and no 128-bit arithmetic is needed.
fn mul_mod(x: u64, y: u64, m: u64) -> u64 {
    let mut acc = 0;
    for bit in (0..64 - y.leading_zeros()).rev() {
        acc = acc * 2 % m;
        if y >> bit & 1 == 1 {
            acc = (acc + x) % m;
        }
    }
    acc
}

/// `base^exp mod m`.
fn pow_mod(base: u64, mut exp: u64, m: u64) -> u64 {
    let (mut result, mut b) = (1 % m, base % m);
    while exp > 0 {
        if exp & 1 == 1 {
            result = mul_mod(result, b, m);
        }
        b = mul_mod(b, b, m);
        exp >>= 1;
    }
    result
}

/// The decimal value of a JSON number's text, read without allocating: the value is
/// `±0.d₀d₁…dₙ₋₁ × 10^point`, where `d` are the significant digits (no leading or trailing zeros;
/// none for zero).
struct Decimal<'a> {
    negative: bool,
    /// The digits before and after the `.`, as written.
    int: &'a [u8],
    frac: &'a [u8],
    /// Where the significant digits start in `int` followed by `frac`, and how many there are.
    skip: usize,
    len: usize,
    point: i64,
}

impl Decimal<'_> {
    fn of(text: &str) -> Decimal<'_> {
        let s = text.as_bytes();
        let negative = s.first() == Some(&b'-');
        let body = &s[usize::from(negative)..];
        let int_end = body
            .iter()
            .position(|&b| !b.is_ascii_digit())
            .unwrap_or(body.len());
        let int = &body[..int_end];
        let mut rest = &body[int_end..];
        let mut frac: &[u8] = &[];
        if rest.first() == Some(&b'.') {
            let end = rest[1..]
                .iter()
                .position(|&b| !b.is_ascii_digit())
                .map_or(rest.len(), |p| p + 1);
            frac = &rest[1..end];
            rest = &rest[end..];
        }
        let mut exponent: i64 = 0;
        if let Some((&e, tail)) = rest.split_first() {
            debug_assert!(e == b'e' || e == b'E');
            let (negative_exponent, digits) = match tail.split_first() {
                Some((b'-', d)) => (true, d),
                Some((b'+', d)) => (false, d),
                _ => (false, tail),
            };
            for &d in digits {
                exponent = (exponent * 10 + i64::from(d - b'0')).min(EXPONENT_LIMIT);
            }
            if negative_exponent {
                exponent = -exponent;
            }
        }
        let all = || int.iter().chain(frac);
        let total = int.len() + frac.len();
        let Some(skip) = all().position(|&d| d != b'0') else {
            return Decimal {
                negative,
                int,
                frac,
                skip: 0,
                len: 0,
                point: 0,
            };
        };
        let trailing = frac
            .iter()
            .rev()
            .chain(int.iter().rev())
            .position(|&d| d != b'0')
            .unwrap_or(0);
        Decimal {
            negative,
            int,
            frac,
            skip,
            len: total - skip - trailing,
            point: int.len() as i64 - skip as i64 + exponent,
        }
    }

    /// Whether every significant digit is before the point.
    fn is_integer(&self) -> bool {
        self.len == 0 || self.point >= self.len as i64
    }

    /// -1, 0 or 1.
    fn signum(&self) -> i8 {
        match (self.len, self.negative) {
            (0, _) => 0,
            (_, true) => -1,
            _ => 1,
        }
    }

    /// The `i`th significant digit, as a number.
    fn digit(&self, i: usize) -> u8 {
        let at = self.skip + i;
        let d = if at < self.int.len() {
            self.int[at]
        } else {
            self.frac[at - self.int.len()]
        };
        d - b'0'
    }

    /// Compares absolute values; both must be non-zero.
    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        self.point.cmp(&other.point).then_with(|| {
            let shared = self.len.min(other.len);
            (0..shared)
                .map(|i| self.digit(i).cmp(&other.digit(i)))
                .find(|o| o.is_ne())
                .unwrap_or_else(|| self.len.cmp(&other.len))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Number {
        Number::from_json_text(text)
    }

    #[test]
    fn compares_exactly() {
        let ordered = [
            "-1e400", "-10", "-9.5", "-1", "-0.001", "0", "1e-400", "0.1", "0.11", "1", "1.5",
            "9.99", "10", "1e400",
        ];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                assert_eq!(n(a).cmp_value(&n(b)), i.cmp(&j), "{a} vs {b}");
            }
        }
        for (a, b) in [
            ("1", "1.0"),
            ("1", "10e-1"),
            ("-0", "0"),
            ("0.0e5", "0"),
            ("100", "1E2"),
            ("0.00123e5", "123"),
            ("12.5", "125e-1"),
        ] {
            assert_eq!(n(a).cmp_value(&n(b)), Ordering::Equal, "{a} = {b}");
        }
        // Past f64 precision.
        assert_eq!(
            n("972783798187987123879878123.188781371")
                .cmp_value(&n("972783798187987123879878123.18878137")),
            Ordering::Greater
        );
        assert_eq!(
            n("9007199254740993").cmp_value(&n("9007199254740992")),
            Ordering::Greater
        );
    }

    #[test]
    fn integers_and_counts() {
        for (text, integer, count) in [
            ("0", true, Some(0)),
            ("-0.0", true, Some(0)),
            ("3", true, Some(3)),
            ("3.0", true, Some(3)),
            ("1e3", true, Some(1000)),
            ("12.5e1", true, Some(125)),
            ("1.5", false, None),
            ("-2", true, None),
            ("1e-3", false, None),
            ("1e400", true, Some(u64::MAX)),
            ("18446744073709551616", true, Some(u64::MAX)),
            ("18446744073709551615", true, Some(u64::MAX)),
        ] {
            assert_eq!(n(text).is_integer(), integer, "{text}");
            assert_eq!(n(text).to_count(), count, "{text}");
        }
    }

    #[test]
    fn multiples_exactly() {
        for (a, m, yes) in [
            ("0.0075", "0.0001", true),
            ("0.00751", "0.0001", false),
            ("0.3", "0.1", true),
            ("10", "2", true),
            ("7", "2", false),
            ("4.5", "1.5", true),
            ("35", "1.5", false),
            ("0", "7", true),
            ("-12", "4", true),
            ("12391239123", "1e-8", true),
            ("1e308", "0.123456789", false),
            ("1e308", "0.5", true),
            ("1e1000000", "7", false),
            ("7e1000000", "7", true),
            (
                "123456789012345678901234567890",
                "123456789012345678",
                false,
            ),
            ("246913578024691356", "123456789012345678", true),
            ("246913578024691356e300", "1.23456789012345678", true),
            ("246913578024691357", "123456789012345678", false),
            ("1", "3", false),
            ("0.1", "1", false),
        ] {
            assert_eq!(n(a).is_multiple_of(&n(m)), yes, "{a} multipleOf {m}");
        }
    }

    #[test]
    fn keys_match_equal_values() {
        let key = |t: &str| {
            let mut s = String::new();
            n(t).write_key(&mut s);
            s
        };
        assert_eq!(key("1"), key("1.0"));
        assert_eq!(key("-0"), key("0"));
        assert_eq!(key("100"), key("1e2"));
        assert_ne!(key("1"), key("-1"));
        assert_ne!(key("1"), key("10"));
    }
}
