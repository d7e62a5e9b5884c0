//! The streaming JSON parser on arbitrary text and chunking, with or without a schema to show the value
//! by: never panics, every change's text is JSON (string content, or a scalar token), and `finish` gives exactly what the one-shot repairer gives for the whole
//! text (the same JSON, or an error of the same kind).
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_response_sanitizer::schema::{CompileOptions, RuleSet, Schema, SharedSchema};
use llm_response_sanitizer::{repair, Change, Changes, PartialJson, RepairOptions};
use llm_response_sanitizer_fuzz::is_strict_json;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let options = RepairOptions::default();
    let whole = repair(&text, &options);
    let mut parser = PartialJson::new(&options);
    if seed & 1 == 1 {
        // Enums, coerced scalars, branches, prefix items and a recursive reference.
        let schema = Schema::compile_json(
            r##"{"$defs": {"node": {"properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"},
                 "ok": {"type": ["boolean", "null"]}, "kids": {"items": {"$ref": "#/$defs/node"}},
                 "pair": {"prefixItems": [{"const": "x"}, {"type": "number"}]}},
                 "additionalProperties": {"anyOf": [{"type": "number"}, {"enum": ["yes"]}]}}},
                "anyOf": [{"$ref": "#/$defs/node"}, {"type": "array", "items": {"$ref": "#/$defs/node"}}]}"##,
            "{}",
            CompileOptions::default(),
        )
        .expect("the fuzz schema compiles");
        parser.set_schema(SharedSchema::new(schema), RuleSet::default());
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let (mut i, mut k) = (0usize, 0u32);
    while i < chars.len() {
        // Chunk lengths of 1 to 8 characters, cycling through the seed byte's bits.
        let n = 1 + (seed.rotate_left(k) as usize % 8);
        let end = chars.get(i + n).map_or(text.len(), |c| c.0);
        if let Ok(update) = parser.push(&text[chars[i].0..end]) {
            check_changes(&update.changes);
        }
        i += n;
        k += 1;
    }
    // The end as a host that keeps the value finishes: with the changes that complete it, where it is the answer.
    let (finished, changes) = parser.finish_with_changes();
    if let Some(changes) = &changes {
        check_changes(changes);
    }
    match (finished, whole) {
        (Ok(streamed), Ok(one_shot)) => assert_eq!(streamed.json, one_shot.json, "for {text:?}"),
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "for {text:?}"),
        (a, b) => panic!("streamed {a:?}, one shot {b:?}, for {text:?}"),
    }
});

/// Every change's text is JSON: string content, or a scalar token.
fn check_changes(changes: &Changes) {
    for change in changes.iter() {
        let json = match change {
            Change::Key(t) | Change::String(t) | Change::Append(t) => format!("\"{t}\""),
            Change::Scalar(t) => t.to_string(),
            _ => continue,
        };
        assert!(is_strict_json(json.as_bytes()), "{change:?} is not JSON");
    }
}
