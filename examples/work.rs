//! Runs one engine once on one adversarial shape: `work ENGINE SHAPE BYTES`.
//!
//! The linear-growth test (`tests/adversarial/growth.test.mjs`) runs this under valgrind and compares
//! the instructions executed for 100 KB and 1 MB of each shape: a count of work, the same on every
//! machine, instead of a wall-clock time. `BYTES` 0 measures what the program costs with no input.
//! `work list` prints every engine and shape.

use llm_response_sanitizer::schema::{extract, CompileOptions, ExtractOptions, Schema, Value};
use llm_response_sanitizer::{repair, CleanOptions, Cleaner, PartialJson, RepairOptions};

/// A named input of about `n` bytes.
type Shape = (&'static str, fn(usize) -> String);

/// The shapes that make naive repairers, cleaners and validators quadratic.
const SHAPES: &[Shape] = &[
    ("runs of quotes", |n| {
        format!("{{\"a\": \"{}", "\"".repeat(n))
    }),
    ("open brackets", |n| "[".repeat(n)),
    ("trailing commas", |n| format!("[{}]", "1,".repeat(n / 2))),
    ("missing commas", |n| format!("[{}]", "1 ".repeat(n / 2))),
    ("unterminated strings", |n| {
        format!("[\"{}", "ab, \"cd".repeat(n / 7))
    }),
    ("unterminated comment", |n| {
        format!("{{\"a\": 1 /*{}", " ".repeat(n))
    }),
    ("long unquoted run", |n| {
        format!("{{\"a\": {}", "x".repeat(n))
    }),
    ("quote-comma soup", |n| {
        format!("{{\"a\": \"{}", "\", \"".repeat(n / 4))
    }),
    ("runs of <", |n| "<".repeat(n)),
    ("repeated partial think tags", |n| "<thin".repeat(n / 5)),
    ("unterminated think block", |n| {
        format!("<think>{}", "x".repeat(n))
    }),
    ("repeated partial closing tags in a block", |n| {
        format!("<think>{}", "</thin".repeat(n / 6))
    }),
    ("repeated bracketed tags", |n| "[THINK".repeat(n / 6)),
    ("bracketed closing tags in a block", |n| {
        format!("[THINK]{}", "[/THINK ]".repeat(n / 9))
    }),
    ("arrays ending in k", |n| {
        format!("[{}]", "[\"k\"],[k]".repeat(n / 10))
    }),
    ("repeated fence openings", |n| "```json\n".repeat(n / 8)),
    ("many keys in one object", |n| {
        let keys: Vec<String> = (0..n / 12).map(|i| format!("\"k{i:07}\":1")).collect();
        format!("{{{}}}", keys.join(","))
    }),
    ("many equal items", |n| format!("[{}1]", "1,".repeat(n / 2))),
    ("unclosed timestamp", |n| format!("[Sent {}", "a".repeat(n))),
    // Brackets that start no value, then inline code and brackets after a value in prose: a stream
    // locates at once after each bracket, within its budget.
    ("brackets in prose", |n| "see [a] or {b} ".repeat(n / 15)),
    // A doubled opening quote that no doubled quote closes (looked for in a bounded window), and a
    // document in doubled quotes (unescaped as it arrives).
    // Arrays closed and opened again after scalar items: each time, the look back for a row's start
    // stops within its reach.
    ("arrays reopened after scalars", |n| {
        format!("{{\"k\": [{}", "\"b\"], [".repeat(n / 7))
    }),
    ("doubled quote never closed", |n| {
        format!("{{\"\"{}", "a".repeat(n))
    }),
    ("document in doubled quotes", |n| {
        format!("{{\"\"k\"\": [{}", "\"\"ab\"\", ".repeat(n / 8))
    }),
    // Every `{` after the first of each pair stands where a key is expected: the rule that closes a
    // list's record there asks whether a list holds the objects above it.
    ("brackets where keys are expected, deep in objects", |n| {
        "{\"a\":{".repeat(n / 6)
    }),
    ("code and brackets after a value in prose", |n| {
        format!("See [1]. {}", "use `a` [b] ".repeat(n / 12))
    }),
    (
        "quotes before closers of no open kind, deep in objects",
        |n| {
            let depth = (n / 10).min(5000);
            let rest = n.saturating_sub(5 * depth) / 7;
            format!("{}{}", "{\"a\":".repeat(depth), "\"x\"] y ".repeat(rest))
        },
    ),
];

const ENGINES: &[&str] = &["repair", "partial", "clean", "extract"];

/// A schema that uses every kind of keyword extraction walks: types, required, properties, pattern-free
/// additionalProperties, array items, uniqueItems.
const SCHEMA: &str = r#"{
  "type": ["object", "array"],
  "properties": { "a": { "type": "string", "maxLength": 10 } },
  "additionalProperties": { "type": "integer" },
  "items": { "type": "integer", "minimum": 0 },
  "uniqueItems": true
}"#;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("list") {
        for engine in ENGINES {
            for (shape, _) in SHAPES {
                println!("{engine}\t{shape}");
            }
        }
        return;
    }
    let [engine, shape, bytes] = &args[..] else {
        eprintln!("usage: work ENGINE SHAPE BYTES | work list");
        std::process::exit(2);
    };
    let n: usize = bytes.parse().expect("BYTES is a number");
    let make = SHAPES
        .iter()
        .find(|(name, _)| name == shape)
        .unwrap_or_else(|| panic!("unknown shape {shape}"))
        .1;
    let text = if n == 0 { String::new() } else { make(n) };
    // Depth is not what this measures: let brackets nest as deep as the input goes.
    let options = RepairOptions {
        max_depth: usize::MAX,
        ..RepairOptions::default()
    };
    match engine.as_str() {
        "repair" => drop(repair(&text, &options)),
        "partial" => {
            let mut p = PartialJson::new(&options);
            for chunk in text.as_bytes().chunks(10) {
                drop(p.push(std::str::from_utf8(chunk).expect("the shapes are ASCII")));
            }
            drop(p.finish());
        }
        "clean" => {
            // Every prefix step armed, so the shapes reach the prefix stage too.
            let mut c = Cleaner::new(&CleanOptions {
                remove_timestamp_prefix: true,
                remove_assistant_prefix: true,
                response_start_text_to_remove: vec!["[Sent by the narrator:".into()],
                response_start_text_to_remove_endpoint_wide: vec!["Scene".into()],
                ..CleanOptions::default()
            });
            let mut out = String::new();
            for chunk in text.as_bytes().chunks(10) {
                c.push_into(std::str::from_utf8(chunk).expect("ASCII"), &mut out);
            }
            c.finish_into(&mut out);
        }
        "extract" => {
            let schema = Value::parse(SCHEMA, 16).expect("the schema is JSON");
            let schema = Schema::compile(&schema, &CompileOptions::default()).expect("it compiles");
            let options = ExtractOptions {
                repair: options,
                ..ExtractOptions::default()
            };
            drop(extract(&text, &schema, &options));
        }
        _ => panic!("unknown engine {engine}"),
    }
}
