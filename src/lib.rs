//! Turns raw LLM responses into data a program can trust.
//!
//! The crate finds the JSON in a model's response (after reasoning blocks, inside code fences, among
//! prose), repairs what models get wrong (trailing commas, quotes, comments, Python literals,
//! truncation, …) and returns strict JSON text together with a record of every repair and its position.
//! Strictly valid JSON passes through untouched.
//!
//! ```
//! use llm_response_sanitizer::{repair, RepairOptions, RepairKind};
//!
//! let raw = "<think>The user wants JSON.</think>\nHere you go:\n{\"name\": \"Ada\", \"active\": True,";
//! let out = repair(raw, &RepairOptions::default()).unwrap();
//! assert_eq!(out.json, r#"{"name":"Ada","active":true}"#);
//! let kinds: Vec<&str> = out.repairs.iter().map(|r| r.kind.code()).collect();
//! assert!(kinds.contains(&"python_literal"));
//! assert!(out.repairs.iter().any(|r| r.kind == RepairKind::ReasoningRemoved));
//! ```
//!
//! Offsets in this crate are byte offsets into the input `&str`; [`position`] converts them into the
//! UTF-16 indices and 1-based line/column that JavaScript callers see.

#![cfg_attr(not(test), no_std)]
// The shipped module (scripts/build.sh, a pinned nightly) optimizes for size what runs once per call and
// is not where time goes: the locator, the bindings' cold entries, extraction's loop over candidates.
// 99,991 -> 99,593 bytes gzipped; A/B in one process against the build without it: 0.98-1.01
// on 2 KB repairs with and without fences and think blocks, extraction 0.97.
#![cfg_attr(shipped, feature(optimize_attribute))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// What the standard prelude would bring: every module imports it (the crate is `no_std`, see [`wasm`]).
mod prelude {
    pub use alloc::borrow::ToOwned;
    pub use alloc::boxed::Box;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
    pub use llm_response_sanitizer_schema::cat;
}

// The host's string forms are transcoded only by the binding layer (and tested natively).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod encoding;
mod error;
pub mod position;
mod reasoning;
mod record;
mod repair;
pub mod schema;
#[cfg(feature = "serde_json")]
mod serde_value;
mod stream;
#[cfg(target_arch = "wasm32")]
mod wasm;
mod wire;

pub use error::{Error, ErrorKind};
pub use position::Location;
pub use reasoning::REASONING_TAGS;
pub use repair::{
    repair, Options as RepairOptions, Repair, RepairClass, RepairKind, RepairSet, Repaired, Status,
    DEFAULT_MAX_DEPTH,
};
#[cfg(feature = "serde_json")]
pub use serde_value::{repair_value, ValueError};
pub use stream::{
    clean, clean_detailed, is_js_whitespace, Change, Changes, CleanOptions, Cleaned, Cleaner,
    PartialJson, ThinkTag, Update, DEFAULT_END_THINK_TAG, DEFAULT_OPENING_TAG_GRACE_PERIOD,
    DEFAULT_START_THINK_TAG,
};
/// The build's view of the core's vocabulary (see `examples/vocabulary.rs`); not part of the API.
#[doc(hidden)]
pub use wire::vocabulary;
/// The binding layer's transcoders, for the wasm tests of their vector steps; not part of the API.
#[doc(hidden)]
pub mod transcoders {
    pub use crate::encoding::{narrow_json, utf16_to_utf8, utf8_to_utf16};
}
