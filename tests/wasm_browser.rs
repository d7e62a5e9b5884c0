//! The fixture corpus and the binding layer under wasm32, in headless Chromium.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
mod wasm_cases;
