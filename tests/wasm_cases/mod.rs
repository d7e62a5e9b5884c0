//! Cases shared by the Node and browser wasm runners.

use super::common::{check_fixture, REPAIR_FIXTURES};
use llm_response_sanitizer::{repair, ErrorKind, RepairOptions};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn every_repair_fixture_under_wasm() {
    let failures: Vec<String> = REPAIR_FIXTURES
        .iter()
        .filter_map(|f| check_fixture(f).err())
        .collect();
    assert!(REPAIR_FIXTURES.len() >= 80);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn deep_nesting_under_wasm_is_a_typed_error() {
    let deep = "[".repeat(1_000_000);
    let err = repair(&deep, &RepairOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded { limit: 10_000 });
}

#[wasm_bindgen_test]
fn every_clean_case_under_wasm() {
    let cases = super::common::clean_cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| super::common::check_clean_case(c).err())
        .collect();
    assert!(cases.len() >= 70);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn every_repair_fixture_streamed_under_wasm() {
    // One character per chunk: the streamed result must be the one-shot result.
    let mut failures = Vec::new();
    for f in REPAIR_FIXTURES {
        let mut p = llm_response_sanitizer::PartialJson::new(&RepairOptions::default());
        let mut buf = [0u8; 4];
        for c in f.input.chars() {
            p.push(c.encode_utf8(&mut buf)).unwrap();
        }
        let streamed = p.finish().map(|r| r.json).map_err(|e| e.kind());
        let one_shot = repair(f.input, &RepairOptions::default())
            .map(|r| r.json)
            .map_err(|e| e.kind());
        if streamed != one_shot {
            failures.push(f.name);
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The locator's first scan (what may begin a tag or a fence) reads sixteen bytes a step in wasm: a closing
/// tag or a fence at every offset around a step's edge is still found, `[` and `/` split across it too.
#[wasm_bindgen_test]
fn tags_and_fences_at_every_offset_under_wasm() {
    use llm_response_sanitizer::RepairKind;
    let opts = RepairOptions::default();
    for k in 0..48 {
        let pad = "x".repeat(k);
        for (text, kind) in [
            (
                format!("{pad}</think>{{\"b\": 1}}"),
                RepairKind::ReasoningRemoved,
            ),
            (
                format!("{pad}[/THINK]{{\"b\": 1}}"),
                RepairKind::ReasoningRemoved,
            ),
            (
                format!("{pad}\n```json\n{{\"b\": 1}}\n```"),
                RepairKind::CodeFence,
            ),
            (
                format!("{pad}\n~~~json\n{{\"b\": 1}}\n~~~"),
                RepairKind::CodeFence,
            ),
        ] {
            let out = repair(&text, &opts).unwrap();
            assert_eq!(out.json, "{\"b\":1}", "{text:?}");
            assert!(
                out.repairs.iter().any(|r| r.kind == kind),
                "{text:?}: {:?}",
                out.repairs
            );
        }
        // A `[` not followed by `/`, and a `/` not after `[`, begin nothing.
        let plain = format!("{{\"a\": \"{pad}[/x]\", \"b\": [\"/\", [1]]}}");
        let out = repair(&plain, &opts).unwrap();
        assert!(out.repairs.is_empty(), "{plain:?}: {:?}", out.repairs);
    }
}

/// The transcoders take words of other scripts eight characters a step, and ASCII sixteen, with wasm's
/// vector instructions (natively one at a time and in words; `tests/properties.rs` checks those loops):
/// runs of characters of every UTF-8 length, the edges of each range among them, at every distance from
/// the end of the text, with lone surrogates, and UTF-8 broken inside runs (continuation bytes missing,
/// overlong forms, surrogates), against the standard library; the narrow forms of results too.
#[wasm_bindgen_test]
fn transcoders_take_runs_of_other_scripts_as_the_standard_library_does() {
    use super::common::{check_transcoders, Run};
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for round in 0..4000 {
        let runs: Vec<Run> = (0..1 + next(8))
            .map(|_| Run {
                class: next(6),
                len: 1 + next(30),
                pick: next(1 << 16),
            })
            .collect();
        let breaks: Vec<(usize, usize)> = (0..next(3)).map(|_| (next(1 << 16), next(7))).collect();
        check_transcoders(&runs, round % 41, &breaks);
    }
}
