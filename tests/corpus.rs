//! The fixture corpus, run natively. The same cases run under wasm (tests/wasm_*.rs) and through the npm
//! API (tests/ts/).

mod common;

#[test]
fn every_repair_fixture() {
    let failures: Vec<String> = common::REPAIR_FIXTURES
        .iter()
        .filter_map(|f| common::check_fixture(f).err())
        .collect();
    assert!(common::REPAIR_FIXTURES.len() >= 80, "corpus went missing");
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        common::REPAIR_FIXTURES.len(),
        failures.join("\n")
    );
}
