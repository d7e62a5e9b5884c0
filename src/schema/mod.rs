//! JSON Schema: compile once, validate, and guide extraction from LLM responses (SPEC §5).
//!
//! The engine (compile, validate, coerce, exact decimal numbers) is the workspace crate
//! `llm-response-sanitizer-schema`, re-exported here; picking candidates out of a response is here,
//! beside the repair engine it uses.

mod extract;

#[cfg(feature = "serde_json")]
pub use crate::serde_value::{compile_value, extract_value, validate_value};
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))] // the binding's
pub(crate) use extract::extract_with;
pub use extract::{extract, ExtractOptions, Extracted, MAX_CANDIDATES};
pub use llm_response_sanitizer_schema::{
    equal, CoerceOptions, Coercion, CompileOptions, Draft, Issue, Kind, Number, ParseError, Place,
    RegexTest, Released, RepairJson, Rule, RuleSet, Schema, SchemaError, SharedSchema, StringView,
    Value, Walk, ISSUE_KEYWORDS, MAX_EVALUATION_DEPTH, MAX_SCHEMA_DEPTH,
};
