//! Shared by the fuzz targets: the JSON grammar that `JSON.parse` accepts.

/// Whether `s` is one JSON text by the RFC 8259 grammar, exactly what `JSON.parse` accepts (lone
/// surrogate escapes and out-of-range numbers included, which serde_json rejects). Iterative.
pub fn is_strict_json(s: &[u8]) -> bool {
    let ws = |i: &mut usize| {
        while *i < s.len() && matches!(s[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    ws(&mut i);
    'value: loop {
        // A value starts at `i`.
        match s.get(i) {
            Some(b'{') | Some(b'[') => {
                let open = s[i];
                i += 1;
                ws(&mut i);
                let close = if open == b'{' { b'}' } else { b']' };
                if s.get(i) == Some(&close) {
                    i += 1;
                } else {
                    stack.push(open);
                    if open == b'{' && !(string(s, &mut i) && colon(s, &mut i)) {
                        return false;
                    }
                    ws(&mut i);
                    continue 'value;
                }
            }
            Some(b'"') => {
                if !string(s, &mut i) {
                    return false;
                }
            }
            Some(b't') if s[i..].starts_with(b"true") => i += 4,
            Some(b'f') if s[i..].starts_with(b"false") => i += 5,
            Some(b'n') if s[i..].starts_with(b"null") => i += 4,
            Some(b'-' | b'0'..=b'9') => {
                if !number(s, &mut i) {
                    return false;
                }
            }
            _ => return false,
        }
        // After a value: a comma and the next item, or closers.
        loop {
            ws(&mut i);
            let Some(&top) = stack.last() else {
                return i == s.len();
            };
            match s.get(i) {
                Some(b',') => {
                    i += 1;
                    ws(&mut i);
                    if top == b'{' && !(string(s, &mut i) && colon(s, &mut i)) {
                        return false;
                    }
                    ws(&mut i);
                    continue 'value;
                }
                Some(b'}') if top == b'{' => {}
                Some(b']') if top == b'[' => {}
                _ => return false,
            }
            stack.pop();
            i += 1;
        }
    }
}

fn colon(s: &[u8], i: &mut usize) -> bool {
    while *i < s.len() && matches!(s[*i], b' ' | b'\t' | b'\n' | b'\r') {
        *i += 1;
    }
    if s.get(*i) != Some(&b':') {
        return false;
    }
    *i += 1;
    while *i < s.len() && matches!(s[*i], b' ' | b'\t' | b'\n' | b'\r') {
        *i += 1;
    }
    true
}

fn string(s: &[u8], i: &mut usize) -> bool {
    if s.get(*i) != Some(&b'"') {
        return false;
    }
    *i += 1;
    while let Some(&b) = s.get(*i) {
        *i += 1;
        match b {
            b'"' => return true,
            0..=0x1F => return false,
            b'\\' => match s.get(*i) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => *i += 1,
                Some(b'u')
                    if s.len() >= *i + 5 && s[*i + 1..*i + 5].iter().all(u8::is_ascii_hexdigit) =>
                {
                    *i += 5
                }
                _ => return false,
            },
            _ => {}
        }
    }
    false
}

fn number(s: &[u8], i: &mut usize) -> bool {
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < s.len() && s[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if s.get(*i) == Some(&b'-') {
        *i += 1;
    }
    if s.get(*i) == Some(&b'0') {
        *i += 1;
    } else if !digits(i) {
        return false;
    }
    if s.get(*i) == Some(&b'.') {
        *i += 1;
        if !digits(i) {
            return false;
        }
    }
    if matches!(s.get(*i), Some(b'e' | b'E')) {
        *i += 1;
        if matches!(s.get(*i), Some(b'+' | b'-')) {
            *i += 1;
        }
        if !digits(i) {
            return false;
        }
    }
    true
}
