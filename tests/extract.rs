//! Schema-guided extraction over the shared corpus `tests/fixtures/extract/cases.json` (the npm API
//! runs the same file): candidate choice, each coercion, and issue paths, with the turn-action schema
//! of seed 004 and the POI report of seed 003.

use llm_response_sanitizer::schema::{
    equal, extract, CompileOptions, ExtractOptions, Schema, Value,
};
use llm_response_sanitizer::{RepairKind, RepairSet};
use std::fs;
use std::path::Path;

fn regex_test(pattern: &str, text: &str) -> Option<bool> {
    regex::Regex::new(pattern).ok().map(|re| re.is_match(text))
}

fn read(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/extract")
        .join(name);
    Value::parse(&fs::read_to_string(&path).unwrap(), 1000).unwrap()
}

fn pairs(v: Option<&Value>) -> Vec<(String, String)> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .map(|p| match p {
                Value::Array(pair) => (
                    pair[0].as_str().unwrap().to_string(),
                    pair[1].as_str().unwrap().to_string(),
                ),
                _ => panic!("expected [path, code]"),
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn extraction_corpus() {
    let cases = read("cases.json");
    let Value::Array(ref cases) = cases else {
        panic!("cases.json is an array")
    };
    assert!(cases.len() >= 20);
    let options = CompileOptions {
        regex: Some(regex_test),
        ..CompileOptions::default()
    };
    for case in cases {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let schema = Schema::compile(
            &read(case.get("schema").and_then(Value::as_str).unwrap()),
            &options,
        )
        .unwrap();
        let out = extract(
            case.get("text").and_then(Value::as_str).unwrap(),
            &schema,
            &ExtractOptions::default(),
        );
        let ok = matches!(case.get("ok"), Some(Value::Bool(true)));
        let issues: Vec<(String, String)> = out
            .issues
            .iter()
            .map(|i| (i.path.clone(), i.keyword.to_string()))
            .collect();
        assert_eq!(out.ok(), ok, "{name}: ok (issues {issues:?})");
        assert_eq!(issues, pairs(case.get("issues")), "{name}: issues");
        let coercions: Vec<(String, String)> = out
            .coercions
            .iter()
            .map(|c| (c.path.clone(), c.rule.code().to_string()))
            .collect();
        assert_eq!(coercions, pairs(case.get("coercions")), "{name}: coercions");
        if let Some(want) = case.get("value") {
            let got = out
                .value
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no value"));
            assert!(equal(got, want), "{name}: value {}", got.to_json());
        }
        if let Some(Value::Number(n)) = case.get("candidate") {
            assert_eq!(
                out.candidate,
                Some(n.to_count().unwrap() as usize),
                "{name}: candidate"
            );
        }
        if let Some(Value::Number(n)) = case.get("candidates") {
            assert_eq!(
                out.candidates,
                n.to_count().unwrap() as usize,
                "{name}: candidates read"
            );
        }
    }
}

/// `skip` passes over the winners before it, as the npm API does when a validation library rejects one:
/// the next valid candidate wins, and past the last one there is none.
#[test]
fn skip_passes_over_earlier_candidates() {
    let schema = Value::parse(r#"{"required":["n"]}"#, 16).unwrap();
    let schema = Schema::compile(&schema, &CompileOptions::default()).unwrap();
    let text = r#"First {"n": 1}, then {"x": 0} and {"n": 2,} and {"n": 3}"#;
    let with = |skip| {
        let options = ExtractOptions {
            skip,
            ..ExtractOptions::default()
        };
        extract(text, &schema, &options)
    };
    let first = with(0);
    assert_eq!((first.ok(), first.candidate), (true, Some(0)));
    let next = with(1);
    assert_eq!((next.ok(), next.candidate), (true, Some(2)));
    assert_eq!(next.value.unwrap().to_json(), r#"{"n":2}"#);
    assert_eq!(with(3).candidate, Some(3));
    let past = with(4);
    assert!(!past.ok() && past.value.is_none());
    // A wholly valid text is one candidate: skipping it leaves none.
    let valid = extract(
        r#"{"n": 5}"#,
        &schema,
        &ExtractOptions {
            skip: 1,
            ..ExtractOptions::default()
        },
    );
    assert!(valid.value.is_none());
}

/// A text none of whose candidates could be read has one `parse` issue that says why: the first one's
/// repair error, a forbidden repair named by its code.
#[test]
fn unreadable_candidates_say_why() {
    let schema = Value::parse(r#"{"required":["n"]}"#, 16).unwrap();
    let schema = Schema::compile(&schema, &CompileOptions::default()).unwrap();
    let mut options = ExtractOptions::default();
    options.repair.forbid = RepairSet::NONE.with(RepairKind::TrailingComma);
    let text = r#"Here: {"n": 1,}"#;
    let out = extract(text, &schema, &options);
    assert!(out.value.is_none());
    let error = llm_response_sanitizer::repair(text, &options.repair).unwrap_err();
    assert!(
        error.message().contains("forbid: trailing_comma"),
        "{error}"
    );
    let issues: Vec<_> = out
        .issues
        .iter()
        .map(|i| (i.keyword, i.message.clone()))
        .collect();
    let message = format!("no candidate could be read: {}", error.message());
    assert_eq!(issues, [("parse", message)]);
}
