//! The schema engine on arbitrary schemas and values: compiling never panics (a bad schema is a typed
//! error), validating and the quick validity check agree, coercion never panics and what it returns
//! still validates the same way twice, and extraction from arbitrary text never panics.
//!
//! Input: schema JSON text, a 0xFF byte, then the value or response text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_response_sanitizer::schema::{
    extract, CoerceOptions, CompileOptions, ExtractOptions, Schema, Value,
};

/// A stand-in regular expression engine (substring search), so that `pattern` keywords compile.
fn contains(pattern: &str, text: &str) -> Option<bool> {
    Some(text.contains(pattern))
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let schema_text = String::from_utf8_lossy(&data[..split]);
    let text = String::from_utf8_lossy(data.get(split + 1..).unwrap_or(&[]));
    let Ok(schema) = Value::parse(&schema_text, 64) else {
        return;
    };
    let options = CompileOptions {
        regex: Some(contains),
        assert_format: schema_text.len() % 2 == 0,
        ..CompileOptions::default()
    };
    let Ok(compiled) = Schema::compile(&schema, &options) else {
        return;
    };
    if let Ok(mut value) = Value::parse(&text, 64) {
        let issues = compiled.validate(&value);
        assert_eq!(issues.is_empty(), compiled.is_valid(&value), "for {text}");
        compiled.coerce(&mut value, &CoerceOptions::default());
        let again = compiled.validate(&value).is_empty();
        assert_eq!(again, compiled.is_valid(&value));
    }
    let out = extract(&text, &compiled, &ExtractOptions::default());
    assert_eq!(out.ok(), out.value.is_some() && out.issues.is_empty());
    if let Some(v) = &out.value {
        // What extraction returns is a value the engine can write and read back (it may nest as deep
        // as the repair limit allows).
        let limit = llm_response_sanitizer::DEFAULT_MAX_DEPTH + 1;
        assert!(Value::parse(&v.to_json(), limit).is_ok());
    }
});
