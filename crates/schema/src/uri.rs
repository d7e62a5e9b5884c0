//! URI references as JSON Schema uses them: resolving `$id` and `$ref` against a base (RFC 3986 §5.2)
//! and splitting off the fragment.

use crate::prelude::*;
/// The base of a schema that declares no `$id`.
pub const DEFAULT_BASE: &str = "json-schema:///";

struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(uri: &str) -> Parts<'_> {
    // `split_once` rather than slicing at found offsets: no slicing panic path in the wasm.
    let (rest, fragment) = match uri.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let (scheme, rest) = match rest.split_once(':') {
        Some((scheme, after))
            if scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            (Some(scheme), after)
        }
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find('/').unwrap_or(r.len());
            let (authority, path) = r.split_at_checked(end).unwrap_or((r, ""));
            (Some(authority), path)
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// Removes `.` and `..` segments (RFC 3986 §5.2.4).
fn remove_dots(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let n = segments.len();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == n;
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > usize::from(absolute) {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = crate::join(out, "/");
    if absolute && !joined.starts_with('/') {
        cat!("/", joined)
    } else {
        joined
    }
}

/// Resolves `reference` against the absolute `base` (RFC 3986 §5.2.2).
pub fn resolve(base: &str, reference: &str) -> String {
    let r = split(reference);
    let b = split(base);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        scheme = r.scheme;
        authority = r.authority;
        path = remove_dots(r.path);
        query = r.query;
    } else {
        scheme = b.scheme;
        if r.authority.is_some() {
            authority = r.authority;
            path = remove_dots(r.path);
            query = r.query;
        } else {
            authority = b.authority;
            if r.path.is_empty() {
                path = b.path.to_string();
                query = r.query.or(b.query);
            } else {
                path = if r.path.starts_with('/') {
                    remove_dots(r.path)
                } else if b.authority.is_some() && b.path.is_empty() {
                    remove_dots(&cat!("/", r.path))
                } else {
                    // The base path up to its last `/`, then the reference.
                    match b.path.rsplit_once('/') {
                        Some((dir, _)) => remove_dots(&cat!(dir, "/", r.path)),
                        None => remove_dots(r.path),
                    }
                };
                query = r.query;
            }
        }
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Splits `uri` into the part before `#` and the fragment (empty when there is none).
pub fn split_fragment(uri: &str) -> (&str, &str) {
    uri.split_once('#').unwrap_or((uri, ""))
}

/// Decodes `%XX` escapes in a fragment.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(b[i + 1]) << 4 | hex(b[i + 2]));
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|e| crate::text::lossy(e.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_rfc_3986() {
        let base = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            ("../g", "http://a/b/g"),
            ("../../../g", "http://a/g"),
            ("urn:x:y", "urn:x:y"),
        ] {
            assert_eq!(resolve(base, r), want, "{r}");
        }
        assert_eq!(
            resolve(DEFAULT_BASE, "tree.json#/a"),
            "json-schema:///tree.json#/a"
        );
        assert_eq!(
            resolve("urn:uuid:deadbeef", "#foo"),
            "urn:uuid:deadbeef#foo"
        );
        assert_eq!(percent_decode("a%25b%22"), "a%b\"");
    }
}
