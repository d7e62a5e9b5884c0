//! Times extraction phases on a 2 KB turn response: `cargo run --release --example schema_speed`.
use llm_response_sanitizer::schema::{extract, CompileOptions, ExtractOptions, Schema, Value};
use llm_response_sanitizer::{repair, RepairOptions};
use std::time::Instant;

fn main() {
    let schema = std::fs::read_to_string("tests/fixtures/extract/turn-action.schema.json").unwrap();
    let schema = Schema::compile(
        &Value::parse(&schema, 100).unwrap(),
        &CompileOptions::default(),
    )
    .unwrap();
    let note = r#"{"text": "Observation about the siege: the torches moved east after the second bell, and the captain doubled the watch.", "subject": "Borin", "subjectType": "character", "context": "night"}"#;
    let notes = [note; 9].join(",\n ");
    let text = format!("{{\"chosenIndex\": \"2\", \"speech\": \"Hold the line at the north gate!\", \"thoughts\": \"The goblins are massing near the bridge.\", \"notes\": [\n {notes}]}}");
    // ITERATIONS=… for a shorter run (under callgrind, say).
    let n: u32 = std::env::var("ITERATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let time = |name: &str, f: &dyn Fn()| {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        println!(
            "{name:>10}: {:.2} µs",
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        );
    };
    let json = repair(&text, &RepairOptions::default()).unwrap().json;
    let value = Value::parse(&json, 100).unwrap();
    time("repair", &|| drop(repair(&text, &RepairOptions::default())));
    time("parse", &|| drop(Value::parse(&json, 100)));
    time("validate", &|| drop(schema.validate(&value)));
    time("to_json", &|| drop(value.to_json()));
    time("extract", &|| {
        drop(extract(&text, &schema, &ExtractOptions::default()))
    });
    println!("{} bytes", text.len());
}
