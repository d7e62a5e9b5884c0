//! The codes of the wire format between the core and the TypeScript side, defined here once.
//!
//! The binding (`src/wasm.rs`) uses them to encode results; the build writes them, with the repair kinds,
//! the reasoning tags and the limits, into `pkg/vocabulary.js` for the TypeScript side ([`vocabulary`],
//! printed by `examples/vocabulary.rs` and read by `scripts/vocabulary.mjs`). A code is never written by
//! hand on the other side. The narrow forms themselves are written by `crate::encoding::push_narrow_json`.

use crate::encoding::{count_beyond_latin1, push_narrow_json, push_utf16};
use crate::prelude::*;
use crate::repair::json_string;
use crate::schema::{Coercion, Extracted, Issue, SchemaError, Value};
use crate::stream::Code;
use crate::{RepairClass, RepairKind, DEFAULT_MAX_DEPTH, REASONING_TAGS};

/// The most repairs a report lists; the rest are counted (`omittedRepairs`). A text of commas can need a
/// repair per byte, and each listed repair costs the host about 300 bytes.
pub(crate) const REPORT_MAX: usize = 10_000;

/// The form of a repair result's JSON text. Escaping or narrowing is for a host that only parses the
/// text: it decodes one byte per character much faster than UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// As the parser wrote it.
    Utf8,
    /// Every non-ASCII character escaped as `\uXXXX`.
    Ascii,
    /// Characters up to U+00FF as Latin-1 bytes, the rest escaped.
    Latin1,
    /// Every character as UTF-16LE code units, the whole result alike (see [`push_ascii`]): for text
    /// beyond Latin-1, which the host then stores in that form anyway.
    Utf16,
    /// A one-shot result in [`Form::Latin1`], or in [`Form::Utf16`] when its JSON text is dense in
    /// characters beyond Latin-1 (see [`Form::for_json`]). The host tells them apart by the second byte: a
    /// result starts with an ASCII letter (`V`, `R`, `E`), which is followed by 0 only in UTF-16.
    Narrow,
    /// [`Form::Narrow`] with [`Form::Ascii`] for its Latin-1 side: for a host that decodes UTF-16 and
    /// UTF-8 but not Latin-1 (a browser's `TextDecoder` reads `latin1` as windows-1252).
    NarrowAscii,
    /// The JSON text itself, exactly, in one byte or two per character: [`Form::Latin1`] when no
    /// character of it lies beyond U+00FF (no escape is then written), else [`Form::Utf16`]; told apart
    /// as [`Form::Narrow`]'s are. For a host that returns the text (`repairJson`) and decodes either form
    /// with one copy, where UTF-8 needs a decoder.
    Text,
}

/// The forms by name; a form's code is its index.
const FORMS: [(&str, Form); 7] = [
    ("utf8", Form::Utf8),
    ("ascii", Form::Ascii),
    ("latin1", Form::Latin1),
    ("utf16", Form::Utf16),
    ("narrow", Form::Narrow),
    ("narrowAscii", Form::NarrowAscii),
    ("text", Form::Text),
];

/// A bit the host may set in the form code it gives `inputForm` (the binding's `input_form`): text
/// results (`output_text`) then stay UTF-8 after UTF-16 input instead of coming in UTF-16 as well. For
/// Node 24 and 25, which decode UTF-8 fast but encode it slowly, so write text beyond Latin-1 as UTF-16:
/// `clean()` of 2 KB responses in Node 24 took 0.76–0.78 the time (dense CJK), 0.82–0.83 (Cyrillic),
/// 0.90–0.93 (typographic English).
pub(crate) const TEXT_AS_UTF8: u8 = 0x80;

/// [`Form::Narrow`] writes a result in UTF-16 once at least one byte in this many of its JSON text (as
/// UTF-8) begins a character beyond Latin-1. Each such character then costs six bytes of `\u` escape to
/// write and for `JSON.parse` to decode, against two bytes for every character in UTF-16. Measured on
/// 2 KB repairs (interleaved A/B, `parseAndRepair`): strings dense in CJK or Cyrillic 0.71–0.80 the time in
/// UTF-16, CJK words among English ones (one character in 20) 0.97–0.985, typographic punctuation (one in
/// 35) and emoji no faster, one em dash in ASCII 0.3–0.6 µs slower.
const WIDE_ONE_IN: usize = 25;

impl Form {
    /// The form a host's code names; an unknown code reads as UTF-8, which every host can decode.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn from_code(code: u8) -> Form {
        FORMS.get(usize::from(code)).map_or(Form::Utf8, |f| f.1)
    }

    /// The form a result with the JSON text `json` is written in: [`Form::Narrow`] decided by the text,
    /// every other form as it is.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn for_json(self, json: &[u8]) -> Form {
        let narrow = match self {
            Form::Narrow => Form::Latin1,
            Form::NarrowAscii => Form::Ascii,
            Form::Text if count_beyond_latin1(json) == 0 => return Form::Latin1,
            Form::Text => return Form::Utf16,
            form => return form,
        };
        if count_beyond_latin1(json) * WIDE_ONE_IN >= json.len() && !json.is_empty() {
            Form::Utf16
        } else {
            narrow
        }
    }

    /// The form of a result's header, report or error written with JSON text in `self`: escaped to
    /// ASCII, which every form reads alike, or UTF-16 when the whole result is.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's
    pub(crate) fn of_headers(self) -> Form {
        if self == Form::Utf16 {
            self
        } else {
            Form::Ascii
        }
    }
}

/// Bits of the core cleaner's `flags` argument.
pub(crate) const CLEAN_ONLY_CLOSING: u32 = 1;
pub(crate) const CLEAN_TIMESTAMP: u32 = 2;
pub(crate) const CLEAN_ASSISTANT: u32 = 4;
pub(crate) const CLEAN_TRIM: u32 = 8;
pub(crate) const CLEAN_THINK_ONLY: u32 = 16;
pub(crate) const CLEAN_GRACE_FROM_START: u32 = 32;
pub(crate) const CLEAN_KEEP_UNCLOSED: u32 = 64;

/// The `CLEAN_*` bits by the names of the TypeScript side's options.
const CLEAN_FLAGS: [(&str, u32); 7] = [
    ("onlyClosing", CLEAN_ONLY_CLOSING),
    ("timestamp", CLEAN_TIMESTAMP),
    ("assistant", CLEAN_ASSISTANT),
    ("trim", CLEAN_TRIM),
    ("thinkOnly", CLEAN_THINK_ONLY),
    ("graceFromStart", CLEAN_GRACE_FROM_START),
    ("keepUnclosed", CLEAN_KEEP_UNCLOSED),
];

/// The stream view's changes by name; a change's code is its index, which is its [`Code`]'s.
const CHANGES: [&str; 10] = [
    "RESET",
    "OBJECT",
    "ARRAY",
    "CLOSE",
    "KEY",
    "STRING",
    "APPEND",
    "END_STRING",
    "SCALAR",
    "WRAP",
];

/// Appends the UTF-8 JSON text `json` in `form` (the narrow forms, never decided here, as their narrow
/// side).
pub(crate) fn push_in_form(out: &mut Vec<u8>, json: &[u8], form: Form) {
    match form {
        Form::Utf8 => out.extend_from_slice(json),
        Form::Utf16 => push_utf16(out, json),
        Form::Ascii | Form::NarrowAscii => push_narrow_json(out, json, false),
        Form::Latin1 | Form::Narrow | Form::Text => push_narrow_json(out, json, true),
    }
}

/// Appends the ASCII `text` (a result's codes and headers) in `form`: as it is, or widened to UTF-16.
pub(crate) fn push_ascii(out: &mut Vec<u8>, text: &[u8], form: Form) {
    if form == Form::Utf16 {
        push_utf16(out, text);
    } else {
        out.extend_from_slice(text);
    }
}

/// Appends one push's changes as the host's decoder (`ts/partial-value.ts`) reads them: `1` or `0`
/// (whether the root value is complete), then each change as its code, one ASCII digit (see
/// [`CHANGES`]), and for `KEY`, `STRING`, `APPEND` and `SCALAR` its text in `form` and a line feed. The
/// text is a JSON string's content with its escapes, or a JSON number or literal: a raw line feed is in
/// neither, so it ends the text, and the host decodes text without a backslash as it stands, with no
/// `JSON.parse` (the cost of every chunk of a stream).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
pub(crate) fn push_changes<'a>(
    out: &mut Vec<u8>,
    complete: bool,
    changes: impl Iterator<Item = (Code, &'a [u8])>,
    form: Form,
) {
    if form == Form::Utf16 {
        // Widened in one pass: a call per code, text and line feed costs more than the characters.
        let mut utf8 = Vec::new();
        push_changes(&mut utf8, complete, changes, Form::Utf8);
        push_utf16(out, &utf8);
        return;
    }
    push_ascii(out, if complete { b"1" } else { b"0" }, form);
    for (code, text) in changes {
        push_ascii(out, &[b'0' + code as u8], form);
        if code.has_text() {
            push_in_form(out, text, form);
            push_ascii(out, b"\n", form);
        }
    }
}

/// A schema that did not compile, as `{"code","message","schemaPath"}`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
pub(crate) fn schema_error_json(e: &SchemaError) -> String {
    e.to_value().to_json()
}

// Issues and coercions become values (`to_value`) and the schema engine's `to_json` writes them: that
// crate is built for size, and each object written out by hand here, at opt-level 3, cost more wasm.

/// A validation, as `{"valid","issues":[…]}`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
pub(crate) fn validation_json(issues: &[Issue]) -> String {
    Value::Object(vec![
        ("valid".into(), Value::Bool(issues.is_empty())),
        (
            "issues".into(),
            Value::Array(issues.iter().map(Issue::to_value).collect()),
        ),
    ])
    .to_json()
}

/// An extraction, as `{"ok","value","issues","coercions","candidate","candidates",…}` with `members`
/// (JSON text, `"a":1,"b":2`) last: the binding adds the repairs and span, whose positions need the text.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
pub(crate) fn extracted_json(x: &Extracted, members: &str) -> String {
    let mut s = cat!("{\"ok\":", x.ok(), ",\"value\":");
    match &x.value {
        Some(v) => s.push_str(&v.to_json()),
        None => s.push_str("null"),
    }
    s.push_str(",\"issues\":");
    s.push_str(&Value::Array(x.issues.iter().map(Issue::to_value).collect()).to_json());
    s.push_str(",\"coercions\":");
    s.push_str(&Value::Array(x.coercions.iter().map(Coercion::to_value).collect()).to_json());
    match x.candidate {
        Some(i) => s.push_str(&cat!(",\"candidate\":", i)),
        None => s.push_str(",\"candidate\":null"),
    }
    s.push_str(&cat!(",\"candidates\":", x.candidates));
    if !members.is_empty() {
        s.push(',');
        s.push_str(members);
    }
    s.push('}');
    s
}

/// Everything the TypeScript side shares with the core, as one JSON object: the repair kinds with their
/// classes and descriptions, the classes, the reasoning tags, the limits, and the wire format's codes (the
/// cleaner's flag bits, the stream view's operation codes, the forms of a repair result's JSON text).
/// Not part of the crate's API: the build reads it.
pub fn vocabulary() -> String {
    let kinds: Vec<String> = RepairKind::ALL
        .iter()
        .map(|k| {
            cat!(
                "{\"kind\":",
                json_string(k.code()),
                ",\"class\":",
                json_string(k.class().code()),
                ",\"description\":",
                json_string(k.describe()),
                "}"
            )
        })
        .collect();
    let classes: Vec<String> = RepairClass::ALL
        .iter()
        .map(|c| json_string(c.code()))
        .collect();
    let keywords: Vec<String> = crate::schema::ISSUE_KEYWORDS
        .iter()
        .map(|k| json_string(k))
        .collect();
    let tags: Vec<String> = REASONING_TAGS
        .iter()
        .map(|(open, close)| cat!("[", json_string(open), ",", json_string(close), "]"))
        .collect();
    let table = |entries: Vec<(&str, usize)>| {
        let inner: Vec<String> = entries
            .iter()
            .map(|(k, n)| cat!("\"", k, "\":", n))
            .collect();
        cat!("{", inner.join(","), "}")
    };
    let flags = table(
        CLEAN_FLAGS
            .iter()
            .map(|&(k, bit)| (k, bit as usize))
            .collect(),
    );
    let ops = table(CHANGES.iter().enumerate().map(|(i, &k)| (k, i)).collect());
    let forms = table(
        FORMS
            .iter()
            .enumerate()
            .map(|(i, f)| (f.0, i))
            .chain([("textAsUtf8", usize::from(TEXT_AS_UTF8))])
            .collect(),
    );
    cat!(
        "{\"repairKinds\":[",
        kinds.join(","),
        "],\"repairClasses\":[",
        classes.join(","),
        "],\"issueKeywords\":[",
        keywords.join(","),
        "],\"reasoningTags\":[",
        tags.join(","),
        "],\"defaultMaxDepth\":",
        DEFAULT_MAX_DEPTH,
        ",\"reportMax\":",
        REPORT_MAX,
        ",\"cleanFlags\":",
        flags,
        ",\"ops\":",
        ops,
        ",\"forms\":",
        forms,
        "}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::Quick;
    use proptest::strategy::Strategy;

    #[test]
    fn codes_are_distinct() {
        let bits: u32 = CLEAN_FLAGS.iter().fold(0, |acc, &(_, bit)| {
            assert_eq!(acc & bit, 0, "bit {bit} is used twice");
            acc | bit
        });
        assert_eq!(bits, 127);
        for (i, (_, form)) in FORMS.iter().enumerate() {
            assert_eq!(Form::from_code(i as u8), *form);
        }
        assert_eq!(Form::from_code(200), Form::Utf8);
    }

    #[test]
    fn the_narrow_form_is_utf16_only_for_text_dense_beyond_latin1() {
        let decide = |s: &str| Form::Narrow.for_json(s.as_bytes());
        assert_eq!(decide(""), Form::Latin1);
        assert_eq!(decide(r#"{"a":"caf\u00e9 é ü"}"#), Form::Latin1);
        assert_eq!(decide(r#"["你好世界","привет"]"#), Form::Utf16);
        // One character beyond Latin-1 (three bytes) in 25 bytes is the threshold, and fewer stay Latin-1.
        let at = |n: usize| format!("[\"—{}\"]", "a".repeat(n - 7));
        assert_eq!(at(25).len(), 25);
        assert_eq!(decide(&at(25)), Form::Utf16);
        assert_eq!(decide(&at(26)), Form::Latin1);
        // Latin-1 letters (lead bytes 0xC2 and 0xC3) never count; every other form is kept as it is.
        assert_eq!(decide(&"é".repeat(40)), Form::Latin1);
        assert_eq!(Form::Ascii.for_json("你好".as_bytes()), Form::Ascii);
        assert_eq!(Form::from_code(4), Form::Narrow);
        // The browser's variant: ASCII with escapes on the narrow side.
        assert_eq!(Form::NarrowAscii.for_json(at(26).as_bytes()), Form::Ascii);
        assert_eq!(
            Form::NarrowAscii.for_json("[\"你好\"]".as_bytes()),
            Form::Utf16
        );
        assert_eq!(Form::from_code(5), Form::NarrowAscii);
    }

    #[test]
    fn the_text_form_is_latin1_only_without_a_character_beyond_it() {
        // Exact text either way: one character beyond U+00FF anywhere makes it UTF-16, never an escape.
        let decide = |s: &str| Form::Text.for_json(s.as_bytes());
        assert_eq!(decide(r#"{"a":"café ÿ ©","b":[1,2]}"#), Form::Latin1);
        assert_eq!(decide(&format!("[\"{}—\"]", "a".repeat(500))), Form::Utf16);
        assert_eq!(decide("[\"\u{ffff}\"]"), Form::Utf16);
        assert_eq!(decide(""), Form::Latin1);
        assert_eq!(Form::from_code(6), Form::Text);
        let mut out = Vec::new();
        push_in_form(&mut out, "[\"café ÿ\"]".as_bytes(), decide("[\"café ÿ\"]"));
        assert_eq!(out, b"[\"caf\xe9 \xff\"]");
    }

    /// A change as the host decodes it: its code, and its text's value.
    type Decoded = (u8, Option<serde_json::Value>);

    /// The host's decoder (`ts/partial-value.ts`), for the tests: whether the root is complete, and each
    /// change's code with its decoded text (a string's content, or a scalar as JSON). The bytes of a
    /// narrow form are read one per character, as the host reads them.
    fn decode(wire: &[u8], form: Form) -> Result<(bool, Vec<Decoded>), String> {
        let text: String = match form {
            Form::Utf8 => String::from_utf8(wire.to_vec()).map_err(|e| e.to_string())?,
            Form::Utf16 => {
                let units: Vec<u16> = wire
                    .chunks(2)
                    .map(|p| u16::from_le_bytes([p[0], p[1]]))
                    .collect();
                String::from_utf16(&units).map_err(|e| e.to_string())?
            }
            Form::Ascii | Form::Latin1 | Form::Narrow | Form::NarrowAscii | Form::Text => {
                wire.iter().map(|&b| char::from(b)).collect()
            }
        };
        let mut chars = text.chars();
        let complete = match chars.next() {
            Some('0') => false,
            Some('1') => true,
            other => return Err(format!("no complete flag: {other:?}")),
        };
        let mut ops = Vec::new();
        while let Some(c) = chars.next() {
            let code = c.to_digit(10).ok_or(format!("not a code: {c:?}"))? as u8;
            let arg = if matches!(code, 4..=6 | 8) {
                let t: String = chars.by_ref().take_while(|&c| c != '\n').collect();
                let v = if code == 8 {
                    serde_json::from_str::<serde_json::Value>(&t)
                        .map_err(|e| format!("{e}: {t:?}"))?
                } else {
                    // Without a backslash the text is used as it stands; with one, JSON decodes it.
                    let v: serde_json::Value = serde_json::from_str(&format!("\"{t}\""))
                        .map_err(|e| format!("{e}: {t:?}"))?;
                    if !t.contains('\\') {
                        assert_eq!(v.as_str(), Some(t.as_str()));
                    }
                    v
                };
                if code == 8 && !(v.is_number() || v.is_boolean() || v.is_null()) {
                    return Err(format!("not a scalar: {t:?}"));
                }
                Some(v)
            } else {
                None
            };
            ops.push((code, arg));
        }
        Ok((complete, ops))
    }

    #[test]
    fn changes_cross_as_codes_and_text_ending_at_a_line_feed() {
        let mut p = crate::PartialJson::new(&crate::RepairOptions::default());
        let mut wire = Vec::new();
        for chunk in ["{\"a\": [1, \"x\\\"y", "\"], \"b\": 'c'}"] {
            p.push_recorded(chunk, |changes, complete, _, _| {
                push_changes(&mut wire, complete, changes.raw(), Form::Utf8)
            })
            .unwrap();
        }
        assert_eq!(wire, b"014a\n281\n5x\\\"y\n1734b\n5c\n7");
        for (code, name) in CHANGES.iter().enumerate() {
            assert!(vocabulary().contains(&format!("\"{name}\":{code}")));
        }
        let codes = [
            (Code::Reset, "RESET"),
            (Code::Object, "OBJECT"),
            (Code::Array, "ARRAY"),
            (Code::Close, "CLOSE"),
            (Code::Key, "KEY"),
            (Code::String, "STRING"),
            (Code::Append, "APPEND"),
            (Code::EndString, "END_STRING"),
            (Code::Scalar, "SCALAR"),
            (Code::Wrap, "WRAP"),
        ];
        for (code, name) in codes {
            assert_eq!(CHANGES[code as usize], name);
        }
    }

    #[test]
    fn schema_results_are_json_with_the_hosts_field_names() {
        use crate::schema::{extract, CompileOptions, ExtractOptions, Schema};
        use serde_json::json;
        let parse = |s: &str| -> serde_json::Value { serde_json::from_str(s).unwrap() };
        let e = Schema::compile_json("{", "{}", CompileOptions::default()).unwrap_err();
        assert_eq!(
            parse(&schema_error_json(&e)),
            json!({"code": "invalid_schema", "message": "the schema is not JSON", "schemaPath": "#"})
        );
        let schema = Schema::compile_json(
            r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n","m"]}"#,
            "{}",
            CompileOptions::default(),
        )
        .unwrap();
        let v = parse(&validation_json(&schema.validate_text(r#"{"n":"3\n"}"#, 8)));
        assert_eq!(v["valid"], false);
        let issues: Vec<_> = v["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["path"].as_str().unwrap(), i["keyword"].as_str().unwrap()))
            .collect();
        assert_eq!(issues, [("/m", "required"), ("/n", "type")]);
        assert_eq!(v["issues"][0]["params"], json!({"missingProperty": "m"}));
        assert_eq!(
            parse(&validation_json(&[])),
            json!({"valid": true, "issues": []})
        );
        let x = extract("Here: {n: '7', m: 1,}", &schema, &ExtractOptions::default());
        let x = parse(&extracted_json(&x, r#""span":[6,21]"#));
        assert_eq!(x["ok"], true);
        assert_eq!(x["value"], json!({"n": 7, "m": 1}));
        assert_eq!(
            x["coercions"],
            json!([{"path": "/n", "from": "7", "to": 7, "rule": "string_to_integer"}])
        );
        assert_eq!(x["issues"], json!([]));
        assert_eq!((&x["candidate"], &x["candidates"]), (&json!(0), &json!(1)));
        assert_eq!(x["span"], json!([6, 21]));
    }

    /// A push's [`Quick`], read as the door reads it from the chunks (`before`, then `chunk`, as UTF-16), says
    /// what its changes say: `count` of them, `append` the text of the one if it is an append. Returns
    /// `chunk` as UTF-16, the next push's `before`.
    fn quick_says_what_changes_say(
        quick: Option<Quick>,
        count: usize,
        append: Option<Vec<u8>>,
        before: &[u16],
        chunk: &str,
    ) -> Result<Vec<u16>, proptest::test_runner::TestCaseError> {
        let units: Vec<u16> = chunk.encode_utf16().collect();
        match quick {
            Some(Quick::Nothing) => proptest::prop_assert_eq!(count, 0),
            Some(Quick::Append { held, start, len }) => {
                proptest::prop_assert!(held == 0 || start == 0);
                let mut text = before[before.len() - held..].to_vec();
                text.extend_from_slice(&units[start..start + len]);
                proptest::prop_assert_eq!(
                    Some(String::from_utf16_lossy(&text).into_bytes()),
                    append
                );
            }
            None => proptest::prop_assert!(count > 0),
        }
        Ok(units)
    }

    /// A push's changes as [`crate::PartialJson::placed`] places them: `None` where it does not; else each
    /// change's code and text, sliced from the chunks as the door slices them (`before`, then `chunk`, as
    /// UTF-16).
    fn read_placed(
        placed: &[u8],
        count: usize,
        before: &[u16],
        chunk: &str,
    ) -> Option<Vec<(u8, Vec<u8>)>> {
        if count == 0 {
            return None;
        }
        let units: Vec<u16> = chunk.encode_utf16().collect();
        let entries = placed
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let read = entries
            .map(|e| {
                let (len, pos) = (((e >> 14) & 0x1fff) as usize, (e & 0x3fff) as usize);
                let text: Vec<u16> = if e & 1 << 27 == 0 {
                    units[pos..pos + len].to_vec()
                } else {
                    let from = &before[before.len() - pos..];
                    from.iter().chain(&units).take(len).copied().collect()
                };
                (
                    (e >> 28) as u8,
                    String::from_utf16_lossy(&text).into_bytes(),
                )
            })
            .collect::<Vec<_>>();
        assert_eq!(read.len(), count);
        Some(read)
    }

    /// The changes' codes and texts (`''` for a change without one).
    fn change_texts<'a>(raw: impl Iterator<Item = (Code, &'a [u8])>) -> Vec<(u8, Vec<u8>)> {
        raw.map(|(code, t)| (code as u8, t.to_vec())).collect()
    }

    proptest::proptest! {
        /// Streams that are mostly string content, in chunks as small as one character: most pushes are
        /// quick ones (the other property's texts seldom are), and each says what its changes say.
        #[test]
        fn a_quick_push_says_what_its_changes_say(
            open in proptest::sample::select(vec!["{\"k\": \"", "[\"", "\"", "{\"a\": [1, \"", "{'k': '", "[“"]),
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "word", " ", "  ", "é", "😀", "你好", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", ",", "}", "]",
                        "\n", "“", "”", "'", "\u{fffd}", "\u{7f}", "\t",
                    ]).prop_map(String::from),
                    "[\\PC]{1,3}",
                ],
                0..40,
            ),
            close in proptest::sample::select(vec!["", "\"}", "\"]", "\""]),
            cuts in proptest::collection::vec(0usize..400, 0..60),
        ) {
            let text = format!("{open}{}{close}", pieces.concat());
            let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (text.len() + 1)).filter(|&c| text.is_char_boundary(c)).collect();
            bounds.push(text.len());
            bounds.sort_unstable();
            let mut p = crate::PartialJson::new(&crate::RepairOptions::default());
            let (mut at, mut before) = (0, Vec::new());
            for end in bounds {
                let chunk = text.get(at..end).unwrap_or_default();
                let Ok((count, quick, append, placed, texts)) = p.push_recorded(chunk, |changes, _, quick, parser| {
                    let mut placed = Vec::new();
                    let n = parser.placed(&mut placed);
                    (changes.raw().count(), quick, changes.only_append().map(<[u8]>::to_vec), (placed, n), change_texts(changes.raw()))
                }) else {
                    break;
                };
                at = end;
                if let Some(read) = read_placed(&placed.0, placed.1, &before, chunk) {
                    proptest::prop_assert_eq!(read, texts);
                }
                before = quick_says_what_changes_say(quick, count, append, &before, chunk)?;
            }
        }

        /// Whatever text arrives in whatever chunks, every push's changes cross in every form as the
        /// host's decoder reads them, each code with the text it expects, and the narrow forms say what
        /// the UTF-8 one says (issue 27: raw text in an operation once made the host's parse throw
        /// mid-stream).
        #[test]
        fn every_push_crosses_as_the_host_decodes_it(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "{", "}", "[", "]", ",", ":", "\"", "'", "\\", "\\u", "\\\"", " ", "\n", "\t",
                        "“", "”", "true", "tr", "None", "-", "1.5e", "0", "//", "/*", "*/", "#", "```", "<think>",
                        "</think>", "\u{0}", "\u{1f}", "\u{7f}", "\u{2028}", "é", "😀", "k", "a b",
                    ]).prop_map(String::from),
                    "[\\PC\\p{Cc}]{1,4}",
                ],
                0..24,
            ),
            cuts in proptest::collection::vec(0usize..64, 0..8),
        ) {
            let text: String = pieces.concat();
            let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (text.len() + 1)).filter(|&c| text.is_char_boundary(c)).collect();
            bounds.push(text.len());
            bounds.sort_unstable();
            let mut p = crate::PartialJson::new(&crate::RepairOptions::default());
            let mut at = 0;
            let mut before: Vec<u16> = Vec::new();
            for end in bounds {
                let chunk = text.get(at..end).unwrap_or_default();
                // As the binding writes them: in each form, and how many changes there were.
                let Ok((wires, count, quick, append, placed, texts)) = p.push_recorded(chunk, |changes, complete, quick, parser| {
                    let wires = [Form::Utf8, Form::Ascii, Form::Latin1, Form::Utf16].map(|form| {
                        let mut wire = Vec::new();
                        push_changes(&mut wire, complete, changes.raw(), form);
                        (form, wire)
                    });
                    let append = changes.only_append().map(<[u8]>::to_vec);
                    let mut placed = Vec::new();
                    let n = parser.placed(&mut placed);
                    (wires, changes.raw().count(), quick, append, (placed, n), change_texts(changes.raw()))
                }) else {
                    break;
                };
                at = end;
                if let Some(read) = read_placed(&placed.0, placed.1, &before, chunk) {
                    proptest::prop_assert_eq!(read, texts);
                }
                before = quick_says_what_changes_say(quick, count, append, &before, chunk)?;
                let mut decoded = Vec::new();
                for (form, wire) in wires {
                    let d = decode(&wire, form).map_err(|e| {
                        proptest::test_runner::TestCaseError::fail(format!("{e}: {}", String::from_utf8_lossy(&wire)))
                    })?;
                    proptest::prop_assert_eq!(d.1.len(), count);
                    decoded.push(d);
                }
                proptest::prop_assert_eq!(&decoded[0], &decoded[1]);
                proptest::prop_assert_eq!(&decoded[0], &decoded[2]);
                proptest::prop_assert_eq!(&decoded[0], &decoded[3]);
            }
        }
    }

    #[test]
    fn vocabulary_names_every_kind_and_tag() {
        let v = vocabulary();
        assert!(v.contains("\"kind\":\"reasoning_removed\",\"class\":\"extraction\""));
        assert!(v.contains("[\"[THINK]\",\"[/THINK]\"]"));
        assert!(v.contains("\"issueKeywords\":[\"type\","));
        // Extraction's own keyword, written where it builds its issue, is in the list.
        assert!(crate::schema::ISSUE_KEYWORDS.contains(&"parse"));
        assert!(v.contains("\"ops\":{\"RESET\":0,"));
        assert!(
            v.contains("\"forms\":{\"utf8\":0,\"ascii\":1,\"latin1\":2,\"utf16\":3,\"narrow\":4,\"narrowAscii\":5,\"text\":6,\"textAsUtf8\":128}")
        );
    }
}
