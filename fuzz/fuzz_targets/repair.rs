//! The repairer on arbitrary text: never panics, and whatever it returns is strict JSON. Valid JSON
//! comes back as the same value, and a repair without a report gives the same result.
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
        // Without a report the same result, keeping the parser's first repair only.
        let brief = repair(
            &text,
            &RepairOptions {
                report: false,
                ..options.clone()
            },
        );
        let full = repair(&text, &options);
        match (&full, &brief) {
            (Ok(full), Ok(brief)) => {
                assert_eq!(
                    (&full.json, full.status),
                    (&brief.json, brief.status),
                    "{text:?}"
                );
                assert!(full.repairs.starts_with(&brief.repairs), "{text:?}");
                assert_eq!(
                    full.repairs.is_empty(),
                    brief.repairs.is_empty(),
                    "{text:?}"
                );
            }
            (Err(full), Err(brief)) => assert_eq!(full.to_string(), brief.to_string(), "{text:?}"),
            (full, brief) => panic!("{text:?}: {:?} against {:?}", full.is_ok(), brief.is_ok()),
        }
        if let Ok(out) = full {
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
