//! The fixture corpus and the binding layer under wasm32, in Node (wasm-bindgen-test's default runner).
#![cfg(target_arch = "wasm32")]

mod common;
mod wasm_cases;
