//! Shared helpers for the Rust runners of the fixture corpus (native and wasm).
#![allow(dead_code)]

/// One case of the corpus: `NAME.in`, and `NAME.out.json` or `NAME.error`, and optionally `NAME.repairs`.
pub struct Fixture {
    pub name: &'static str,
    pub input: &'static str,
    /// The expected value as JSON text.
    pub expected: Option<&'static str>,
    /// The expected error code.
    pub error: Option<&'static str>,
    /// Repair kinds that must be recorded, one per line.
    pub repairs: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));

use llm_response_sanitizer::{repair, RepairOptions};

/// Runs one fixture through the repair engine; `Err` describes the mismatch.
pub fn check_fixture(f: &Fixture) -> Result<(), String> {
    let Fixture {
        name,
        input,
        expected,
        error,
        repairs,
    } = *f;
    let got = repair(input, &RepairOptions::default());
    match (got, expected, error) {
        (Ok(out), Some(want), _) => {
            let got_v: serde_json::Value = serde_json::from_str(&out.json)
                .map_err(|e| format!("{name}: output is not JSON ({e}): {}", out.json))?;
            let want_v: serde_json::Value =
                serde_json::from_str(want).map_err(|e| format!("{name}: bad fixture: {e}"))?;
            if got_v != want_v {
                return Err(format!("{name}: got {} want {}", out.json, want.trim()));
            }
            for kind in repairs.unwrap_or("").lines().filter(|l| !l.is_empty()) {
                if !out.repairs.iter().any(|r| r.kind.code() == kind) {
                    let seen: Vec<_> = out.repairs.iter().map(|r| r.kind.code()).collect();
                    return Err(format!(
                        "{name}: repair {kind} not recorded; recorded {seen:?}"
                    ));
                }
            }
            Ok(())
        }
        (Err(e), None, Some(code)) if e.kind().code() == code.trim() => Ok(()),
        (Ok(out), None, Some(code)) => Err(format!(
            "{name}: expected error {} but got {}",
            code.trim(),
            out.json
        )),
        (Err(e), _, _) => Err(format!("{name}: unexpected error {e}")),
        (Ok(_), None, None) => Err(format!("{name}: fixture has neither .out.json nor .error")),
    }
}
