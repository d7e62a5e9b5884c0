//! The codes of the wire format between the core and the TypeScript side, defined here once.
//!
//! The binding (`src/wasm.rs`) uses them to encode results; the build writes them, with the repair kinds,
//! the reasoning tags and the limits, into `pkg/vocabulary.js` for the TypeScript side ([`vocabulary`],
//! printed by `examples/vocabulary.rs` and read by `scripts/vocabulary.mjs`). A code is never written by
//! hand on the other side. The narrow forms themselves are written by `crate::encoding::push_narrow_json`.

use crate::prelude::*;
use crate::repair::json_string;
use crate::schema::{Coercion, Extracted, Issue, SchemaError, Value};
use crate::{Change, Changes, RepairClass, RepairKind, DEFAULT_MAX_DEPTH, REASONING_TAGS};

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
}

/// The forms by name; a form's code is its index.
const FORMS: [(&str, Form); 3] = [
    ("utf8", Form::Utf8),
    ("ascii", Form::Ascii),
    ("latin1", Form::Latin1),
];

impl Form {
    /// The form a host's code names; an unknown code reads as UTF-8, which every host can decode.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
    pub(crate) fn from_code(code: u8) -> Form {
        FORMS.get(usize::from(code)).map_or(Form::Utf8, |f| f.1)
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

/// The stream view's changes ([`Change`]) by name; a change's code is its index. The host reads one JSON
/// array of them: a code alone, or for `KEY`, `STRING` and `APPEND` the code and a JSON string of the
/// text, and for `SCALAR` the code and the JSON token. The text stays JSON-escaped, so the host's
/// `JSON.parse` decodes it exactly as in the final value.
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

/// Appends `changes` to `out` as elements of a JSON array, each a code (see [`CHANGES`]) and its text.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's, and the tests'
pub(crate) fn push_changes(changes: &Changes, out: &mut String) {
    out.reserve(changes.text_len() + changes.len() * 5);
    for change in changes.iter() {
        // Each element with its comma and quotes as one piece: a change is a few bytes, so the pushes
        // themselves are the cost.
        let (head, text, tail) = match change {
            Change::Reset => (",0", "", ""),
            Change::Object => (",1", "", ""),
            Change::Array => (",2", "", ""),
            Change::Close => (",3", "", ""),
            Change::Key(t) => (",4,\"", t, "\""),
            Change::String(t) => (",5,\"", t, "\""),
            Change::Append(t) => (",6,\"", t, "\""),
            Change::EndString => (",7", "", ""),
            Change::Scalar(t) => (",8,", t, ""),
            Change::Wrap => (",9", "", ""),
        };
        out.push_str(head);
        out.push_str(text);
        out.push_str(tail);
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
    let mut s = format!("{{\"ok\":{},\"value\":", x.ok());
    match &x.value {
        Some(v) => s.push_str(&v.to_json()),
        None => s.push_str("null"),
    }
    s.push_str(",\"issues\":");
    s.push_str(&Value::Array(x.issues.iter().map(Issue::to_value).collect()).to_json());
    s.push_str(",\"coercions\":");
    s.push_str(&Value::Array(x.coercions.iter().map(Coercion::to_value).collect()).to_json());
    match x.candidate {
        Some(i) => s.push_str(&format!(",\"candidate\":{i}")),
        None => s.push_str(",\"candidate\":null"),
    }
    s.push_str(&format!(",\"candidates\":{}", x.candidates));
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
            format!(
                "{{\"kind\":{},\"class\":{},\"description\":{}}}",
                json_string(k.code()),
                json_string(k.class().code()),
                json_string(k.describe())
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
        .map(|(open, close)| format!("[{},{}]", json_string(open), json_string(close)))
        .collect();
    let table = |entries: Vec<(&str, usize)>| {
        let inner: Vec<String> = entries
            .iter()
            .map(|(k, n)| format!("\"{k}\":{n}"))
            .collect();
        format!("{{{}}}", inner.join(","))
    };
    let flags = table(
        CLEAN_FLAGS
            .iter()
            .map(|&(k, bit)| (k, bit as usize))
            .collect(),
    );
    let ops = table(CHANGES.iter().enumerate().map(|(i, &k)| (k, i)).collect());
    let forms = table(FORMS.iter().enumerate().map(|(i, f)| (f.0, i)).collect());
    format!(
        "{{\"repairKinds\":[{}],\"repairClasses\":[{}],\"issueKeywords\":[{}],\"reasoningTags\":[{}],\"defaultMaxDepth\":{DEFAULT_MAX_DEPTH},\
         \"reportMax\":{REPORT_MAX},\"cleanFlags\":{flags},\"ops\":{ops},\"forms\":{forms}}}",
        kinds.join(","),
        classes.join(","),
        keywords.join(","),
        tags.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn changes_are_encoded_as_codes_and_json_text() {
        let mut p = crate::PartialJson::new(&crate::RepairOptions::default());
        let mut wire = String::new();
        push_changes(&p.push("{\"a\": [1, \"x\\\"y").unwrap().changes, &mut wire);
        push_changes(&p.push("\"], \"b\": 'c'}").unwrap().changes, &mut wire);
        assert_eq!(wire, r#",1,4,"a",2,8,1,5,"x\"y",7,3,4,"b",5,"c",7"#);
        for (code, name) in CHANGES.iter().enumerate() {
            assert!(vocabulary().contains(&format!("\"{name}\":{code}")));
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

    proptest::proptest! {
        /// Whatever text arrives in whatever chunks, every push's operations cross as JSON the host's
        /// `JSON.parse` reads, each code with the argument its decoder expects: a string after a key,
        /// string or append, a JSON scalar after a scalar, nothing after the others (issue 27: raw text
        /// in an operation once made the host's parse throw mid-stream).
        #[test]
        fn every_push_crosses_as_json_the_host_decodes(
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
            for end in bounds {
                let Ok(u) = p.push(text.get(at..end).unwrap_or_default()) else {
                    break;
                };
                at = end;
                let mut wire = String::from("[0");
                push_changes(&u.changes, &mut wire);
                wire.push(']');
                let ops: serde_json::Value = serde_json::from_str(&wire)
                    .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}: {wire}")))?;
                let ops = ops.as_array().unwrap();
                let mut i = 1;
                while i < ops.len() {
                    let code = ops[i].as_u64().unwrap();
                    i += 1;
                    match code {
                        4..=6 => { proptest::prop_assert!(ops[i].is_string(), "{}", wire); i += 1; }
                        8 => {
                            proptest::prop_assert!(ops[i].is_number() || ops[i].is_boolean() || ops[i].is_null(), "{}", wire);
                            i += 1;
                        }
                        0..=3 | 7 | 9 => {}
                        _ => proptest::prop_assert!(false, "unknown code {} in {}", code, wire),
                    }
                }
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
        assert!(v.contains("\"forms\":{\"utf8\":0,\"ascii\":1,\"latin1\":2}"));
    }
}
