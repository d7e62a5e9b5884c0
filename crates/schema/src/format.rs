//! `format` checks, used only when format assertion is turned on. Unknown formats are annotations.

use super::compile::RegexTest;
use super::sub;
use crate::prelude::*;

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn num(s: &str) -> u32 {
    s.parse().unwrap_or(u32::MAX)
}

/// `YYYY-MM-DD` with a real day of the month (RFC 3339 full-date).
fn date(s: &str) -> bool {
    let p: Vec<&str> = s.split('-').collect();
    if p.len() != 3
        || p[0].len() != 4
        || p[1].len() != 2
        || p[2].len() != 2
        || !p.iter().all(|x| digits(x))
    {
        return false;
    }
    let (y, m, d) = (num(p[0]), num(p[1]), num(p[2]));
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `HH:MM:SS[.frac](Z|±HH:MM)` (RFC 3339 full-time; a leap second only at 23:59:60 UTC).
fn time(s: &str) -> bool {
    let b = s.as_bytes();
    // RFC 3339 times are ASCII; checking first keeps every slice below on a character boundary.
    if !s.is_ascii() || b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (h, m, sec) = (sub(s, 0..2), sub(s, 3..5), sub(s, 6..8));
    if !digits(h) || !digits(m) || !digits(sec) {
        return false;
    }
    let mut rest = sub(s, 8..);
    if let Some(r) = rest.strip_prefix('.') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = sub(r, n..);
    }
    let (h, m, sec) = (num(h), num(m), num(sec));
    let offset_minutes: i64 = if rest.eq_ignore_ascii_case("z") {
        0
    } else {
        let ob = rest.as_bytes();
        if ob.len() != 6
            || !matches!(ob[0], b'+' | b'-')
            || ob[3] != b':'
            || !digits(sub(rest, 1..3))
            || !digits(sub(rest, 4..6))
        {
            return false;
        }
        let (oh, om) = (num(sub(rest, 1..3)) as i64, num(sub(rest, 4..6)) as i64);
        if oh > 23 || om > 59 {
            return false;
        }
        let sign = if ob[0] == b'+' { 1 } else { -1 };
        sign * (oh * 60 + om)
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    if sec == 60 {
        let utc = (h as i64 * 60 + m as i64 - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

fn ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            digits(p) && p.len() <= 3 && (p.len() == 1 || !p.starts_with('0')) && num(p) <= 255
        })
}

fn ipv6(s: &str) -> bool {
    if s.is_empty() || !s.is_ascii() {
        return false;
    }
    let (head, v4) = match s.rfind(':') {
        Some(i) if sub(s, i + 1..).contains('.') => (sub(s, ..=i), Some(sub(s, i + 1..))),
        _ => (s, None),
    };
    if v4.is_some_and(|v| !ipv4(v)) {
        return false;
    }
    let groups_needed = if v4.is_some() { 6 } else { 8 };
    // Before an embedded IPv4 address the head ends with its separating `:`, which is dropped unless it
    // is part of a `::`.
    let head = match v4 {
        Some(_) if !head.ends_with("::") => sub(head, ..head.len() - 1),
        _ => head,
    };
    // Split at the `::` (at most one); a byte search keeps the substring searcher out of the wasm.
    let halves: Vec<&str> = match head.as_bytes().windows(2).position(|w| w == b"::") {
        Some(i) => vec![sub(head, ..i), sub(head, i + 2..)],
        None => vec![head],
    };
    if halves
        .get(1)
        .is_some_and(|rest| rest.as_bytes().windows(2).any(|w| w == b"::"))
    {
        return false;
    }
    let count = |part: &str| -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let g: Vec<&str> = part.split(':').collect();
        g.iter()
            .all(|x| !x.is_empty() && x.len() <= 4 && x.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(g.len())
    };
    match halves.as_slice() {
        [one] => count(one) == Some(groups_needed),
        [a, b] => matches!((count(a), count(b)), (Some(x), Some(y)) if x + y < groups_needed),
        _ => false,
    }
}

fn hostname(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !(l.len() >= 4 && sub(l, 2..4) == "--" && !l.starts_with("xn"))
        })
}

fn email(s: &str) -> bool {
    let Some(at) = s.rfind('@') else { return false };
    let (local, domain) = (sub(s, ..at), sub(s, at + 1..));
    let local_ok = !local.is_empty()
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.as_bytes().windows(2).any(|w| w == b"..")
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~.".contains(&b));
    let domain_ok = if let Some(lit) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        lit.strip_prefix("IPv6:").map_or_else(|| ipv4(lit), ipv6)
    } else {
        hostname(domain)
    };
    local_ok && domain_ok
}

fn uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn uri(s: &str, reference: bool) -> bool {
    if s.bytes().any(|b| b <= b' ' || b"\"<>\\^`{|}".contains(&b)) {
        return false;
    }
    let scheme = s.find(':').map(|i| sub(s, ..i)).filter(|sc| {
        sc.starts_with(|c: char| c.is_ascii_alphabetic())
            && sc
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    });
    reference || scheme.is_some()
}

fn json_pointer(s: &str) -> bool {
    (s.is_empty() || s.starts_with('/')) && {
        let b = s.as_bytes();
        (0..b.len()).all(|i| b[i] != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
    }
}

fn duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    if rest.is_empty() {
        return false;
    }
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    let units_ok = |part: &str, units: &str| -> bool {
        let mut last = 0;
        let mut num_len = 0;
        let mut any = false;
        for c in part.chars() {
            if c.is_ascii_digit() {
                num_len += 1;
                continue;
            }
            let Some(pos) = units.find(c) else {
                return false;
            };
            if num_len == 0 || pos < last {
                return false;
            }
            last = pos + 1;
            num_len = 0;
            any = true;
        }
        num_len == 0 && any
    };
    if date.contains('W') {
        return time.is_none() && units_ok(date, "W");
    }
    (date.is_empty() || units_ok(date, "YMD"))
        && time.map_or(!date.is_empty(), |t| units_ok(t, "HMS"))
}

/// Whether `s` is a valid `format`: `None` for formats this engine does not know (annotations only).
pub fn format_ok(format: &str, s: &str, regex: Option<RegexTest>) -> Option<bool> {
    Some(match format {
        "date" => date(s),
        "time" => time(s),
        "date-time" => match s.find(['T', 't']) {
            Some(i) => date(sub(s, ..i)) && time(sub(s, i + 1..)),
            None => false,
        },
        "email" => email(s),
        "hostname" => hostname(s),
        "ipv4" => ipv4(s),
        "ipv6" => ipv6(s),
        "uuid" => uuid(s),
        "uri" | "iri" => uri(s, false),
        "uri-reference" | "iri-reference" => uri(s, true),
        "json-pointer" => json_pointer(s),
        "duration" => duration(s),
        "regex" => regex.and_then(|t| t(s, "")).is_some(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::format_ok;

    /// Found by the `schema` fuzz target: a multi-byte character where the seconds end sliced a `str`
    /// off a character boundary, a panic.
    #[test]
    fn time_with_a_multibyte_character_in_the_seconds_is_not_a_time() {
        for s in [
            "08:30:0\u{FFFD} PST",
            "08:30:00\u{e9}",
            "\u{e9}8:30:00Z",
            "08:30:00+01:\u{e9}",
        ] {
            assert_eq!(format_ok("time", s, None), Some(false), "{s}");
            assert_eq!(
                format_ok("date-time", &format!("2024-01-01T{s}"), None),
                Some(false)
            );
        }
    }

    #[test]
    fn checks_common_formats() {
        for (f, s, ok) in [
            ("date", "2024-02-29", true),
            ("date", "2023-02-29", false),
            ("date-time", "2024-01-01T12:00:00Z", true),
            ("date-time", "2024-01-01T12:00:00+01:30", true),
            ("date-time", "2024-01-01 12:00", false),
            ("time", "23:59:60Z", true),
            ("time", "22:59:60Z", false),
            ("email", "ada@example.com", true),
            ("email", "ada@", false),
            ("ipv4", "192.168.0.1", true),
            ("ipv4", "256.1.1.1", false),
            ("ipv6", "::1", true),
            ("ipv6", "1:2:3:4:5:6:7:8", true),
            ("ipv6", "1::2::3", false),
            ("ipv6", "::ffff:192.168.0.1", true),
            ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", true),
            ("uri", "https://example.com/a?b#c", true),
            ("uri", "//example.com", false),
            ("duration", "P1DT2H", true),
            ("duration", "PT", false),
            ("json-pointer", "/a/~1b", true),
            ("json-pointer", "/a~", false),
        ] {
            assert_eq!(format_ok(f, s, None), Some(ok), "{f} {s}");
        }
        assert_eq!(format_ok("color", "red", None), None);
    }
}
