//! The repairer on arbitrary text: never panics, and whatever it returns is strict JSON. Valid JSON
//! comes back as the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_response_sanitizer::{repair, RepairOptions};
use llm_response_sanitizer_fuzz::is_strict_json;
use serde::Deserialize;

/// Parses JSON with no recursion limit (the repairer allows 10,000 levels), for comparing values.
fn value(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = serde_json::Value::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // A small depth limit reaches the limit paths too; the default one reaches deep nesting.
    let shallow = RepairOptions {
        max_depth: 8,
        ..RepairOptions::default()
    };
    for options in [RepairOptions::default(), shallow] {
        if let Ok(out) = repair(&text, &options) {
            assert!(
                is_strict_json(out.json.as_bytes()),
                "not strict JSON: {text:?} -> {:?}",
                out.json
            );
            if let (Ok(want), Ok(got)) = (value(&text), value(&out.json)) {
                assert_eq!(got, want, "valid JSON changed: {text:?}");
            }
        }
    }
});
