//! Repairs and extracts with `serde_json::Value`, as a Rust server would (feature `serde_json`):
//! `cargo run --example serde_values --features serde_json`. `npm test` runs it.

use llm_response_sanitizer::schema::{compile_value, extract_value, validate_value};
use llm_response_sanitizer::schema::{CompileOptions, ExtractOptions};
use llm_response_sanitizer::{repair, repair_value, RepairOptions};
use serde_json::json;

fn main() {
    // A reasoning model's answer: its thinking, then the JSON in a fence, with a model's slips.
    let response = "<think>The user wants the order as JSON.</think>\nHere it is:\n```json\n\
        {order: 'A-17', \"items\": [{\"sku\": \"KB-2\", \"qty\": \"2\",}], \"gift\": True,}\n```";

    let value = repair_value(response, &RepairOptions::default()).expect("a repairable response");
    assert_eq!(
        value,
        json!({"order": "A-17", "items": [{"sku": "KB-2", "qty": "2"}], "gift": true})
    );
    // The same, with the record of every repair and its byte offset.
    let out = repair(response, &RepairOptions::default()).expect("a repairable response");
    let kinds: Vec<&str> = out.repairs.iter().map(|r| r.kind.code()).collect();
    println!("repaired: {value}\nrepairs: {kinds:?}");

    // Schema-guided: the schema wants `qty` as an integer; extraction coerces and validates.
    let schema = compile_value(
        &json!({
            "type": "object",
            "required": ["order", "items"],
            "properties": {
                "order": {"type": "string"},
                "items": {"type": "array", "items": {
                    "type": "object",
                    "required": ["sku", "qty"],
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}
                }}
            }
        }),
        &CompileOptions::default(),
    )
    .expect("a valid schema");
    let (extracted, report) = extract_value(response, &schema, &ExtractOptions::default());
    let extracted = extracted.expect("a candidate").expect("a serde_json value");
    assert!(report.ok(), "issues: {:?}", report.issues);
    assert_eq!(extracted["items"][0]["qty"], json!(2));
    println!(
        "extracted: {extracted}\ncoercions: {}",
        report.coercions.len()
    );

    // A value that breaks the schema gets precise issues.
    let issues = validate_value(
        &schema,
        &json!({"order": 17, "items": [{"sku": "KB-2", "qty": 0}]}),
    );
    let paths: Vec<(&str, &str)> = issues
        .iter()
        .map(|i| (i.path.as_str(), i.keyword))
        .collect();
    assert_eq!(paths, [("/items/0/qty", "minimum"), ("/order", "type")]);
    println!("issues: {paths:?}");
}
