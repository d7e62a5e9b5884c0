//! The official JSON-Schema-Test-Suite, every required test of each draft, run natively.
//!
//! `scripts/fetch-schema-suite.sh` puts the suite in `target/schema-suite` (`npm test` runs it first).
//! Remote schemas are registered under `http://localhost:1234/`, as the suite expects, together with
//! the drafts' meta-schemas. `pattern` uses the `regex` crate here; under wasm it is the host's RegExp.

use llm_response_sanitizer::schema::{CompileOptions, Draft, Schema, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

fn suite_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/schema-suite");
    assert!(
        dir.join("ready").exists(),
        "the JSON-Schema-Test-Suite is missing: run scripts/fetch-schema-suite.sh"
    );
    dir
}

thread_local! {
    static REGEXES: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

fn regex_test(pattern: &str, text: &str) -> Option<bool> {
    REGEXES.with_borrow_mut(|cache| {
        let re = cache
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).ok());
        re.as_ref().map(|re| re.is_match(text))
    })
}

fn read(path: &Path) -> Value {
    Value::parse(&fs::read_to_string(path).unwrap(), 10_000)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The suite's remotes (by their `http://localhost:1234/` URI) and every meta-schema (by its `$id`).
fn remotes(dir: &Path) -> Vec<(String, Value)> {
    let mut files = Vec::new();
    walk(&dir.join("remotes"), &mut files);
    let mut out: Vec<(String, Value)> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| {
            !p.to_string_lossy().contains("draft-next") && !p.to_string_lossy().contains("draft3")
        })
        .map(|p| {
            let rel = p
                .strip_prefix(dir.join("remotes"))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (format!("http://localhost:1234/{rel}"), read(p))
        })
        .collect();
    let mut metas = Vec::new();
    walk(&dir.join("metaschemas"), &mut metas);
    for p in metas {
        let v = read(&p);
        let id = v
            .get("$id")
            .or_else(|| v.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(id) = id {
            out.push((id.trim_end_matches('#').to_string(), v));
        }
    }
    out
}

/// Runs the tests in `draft_dir` (every file, or the files named in `only`); returns (passed,
/// failures).
fn run(draft_dir: &str, draft: Draft, only: &[&str]) -> (usize, Vec<String>) {
    let dir = suite_dir();
    let remotes = remotes(&dir);
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join("tests").join(draft_dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| only.is_empty() || only.iter().any(|o| p.ends_with(o)))
        .collect();
    files.sort();
    let (mut passed, mut failures) = (0, Vec::new());
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let Value::Array(ref groups) = read(&file) else {
            panic!("{name}")
        };
        for group in groups {
            let desc = group
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            let options = CompileOptions {
                default_draft: draft,
                remotes: remotes.clone(),
                regex: Some(regex_test),
                ..CompileOptions::default()
            };
            let compiled = Schema::compile(group.get("schema").unwrap(), &options);
            let Some(Value::Array(tests)) = group.get("tests") else {
                panic!("{name}")
            };
            for t in tests {
                let tdesc = t.get("description").and_then(Value::as_str).unwrap_or("");
                let want = matches!(t.get("valid"), Some(Value::Bool(true)));
                let got = match &compiled {
                    Ok(s) => {
                        let issues = s.validate(t.get("data").unwrap());
                        let quick = s.is_valid(t.get("data").unwrap());
                        assert_eq!(
                            issues.is_empty(),
                            quick,
                            "{name}: {desc}: {tdesc}: validate and is_valid disagree"
                        );
                        Ok(quick)
                    }
                    Err(e) => Err(e.to_string()),
                };
                match got {
                    Ok(v) if v == want => passed += 1,
                    Ok(v) => failures.push(format!(
                        "{name}: {desc}: {tdesc}: expected valid={want}, got {v}"
                    )),
                    Err(e) => failures.push(format!("{name}: {desc}: {tdesc}: compile error: {e}")),
                }
            }
        }
    }
    (passed, failures)
}

fn check(draft_dir: &str, draft: Draft) {
    check_files(draft_dir, draft, &[]);
}

fn check_files(draft_dir: &str, draft: Draft, only: &[&str]) {
    let (passed, failures) = run(draft_dir, draft, only);
    println!(
        "{draft_dir}: {passed} of {} tests pass",
        passed + failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn draft2020_12() {
    check("draft2020-12", Draft::Draft2020);
}

#[test]
fn draft7() {
    check("draft7", Draft::Draft7);
}

#[test]
fn draft2019_09() {
    check("draft2019-09", Draft::Draft2019);
}

#[test]
fn draft6() {
    check("draft6", Draft::Draft6);
}

#[test]
fn draft4() {
    check("draft4", Draft::Draft4);
}

/// Numbers are exact decimals, so the optional big-number and float-overflow tests hold too.
#[test]
fn optional_numbers() {
    let files = ["bignum.json", "float-overflow.json"];
    check_files("draft2020-12/optional", Draft::Draft2020, &files);
    check_files("draft7/optional", Draft::Draft7, &files);
    check_files("draft4/optional", Draft::Draft4, &files);
}
