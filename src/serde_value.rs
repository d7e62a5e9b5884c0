//! `serde_json::Value` in and out, for Rust programs (feature `serde_json`; never in the wasm build,
//! where the host's `JSON.parse` builds values faster than any Rust value type could cross over).
//!
//! The engines keep working on text: a value comes in as its JSON text and goes out parsed by
//! `serde_json`, with `float_roundtrip` (a number with a fraction or an exponent is the double
//! `JSON.parse` gives; an integer that fits in 64 bits is kept exact, where `JSON.parse` rounds it beyond
//! 2^53). Keys come in the order of the program's `serde_json::Map`: sorted, or as `JSON.parse` keeps them
//! when the program enables `serde_json`'s `preserve_order`; a duplicate key keeps its last value either
//! way. Two values JSON allows cannot be a `serde_json::Value`: a number beyond `f64` (`1e400`, which `JSON.parse`
//! reads as `Infinity`) and nesting deeper than `serde_json`'s recursion limit of 128, which keeps its
//! recursive reader clear of a stack overflow. Both are a [`ValueError::Json`], never a panic.
//!
//! ```
//! use llm_response_sanitizer::{repair_value, RepairOptions};
//! use llm_response_sanitizer::schema::{compile_value, extract_value, CompileOptions, ExtractOptions};
//! use serde_json::json;
//!
//! let raw = "Sure! ```json\n{name: 'Ada', \"age\": \"36\",}\n```";
//! assert_eq!(repair_value(raw, &RepairOptions::default()).unwrap(), json!({"name": "Ada", "age": "36"}));
//!
//! let schema = compile_value(
//!     &json!({"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["name", "age"]}),
//!     &CompileOptions::default(),
//! )
//! .unwrap();
//! let (value, extracted) = extract_value(raw, &schema, &ExtractOptions::default());
//! assert_eq!(value.unwrap().unwrap(), json!({"name": "Ada", "age": 36}));
//! assert!(extracted.ok());
//! ```

use crate::prelude::*;
use crate::schema::{
    extract, CompileOptions, ExtractOptions, Extracted, Issue, Schema, SchemaError,
    Value as EngineValue, MAX_SCHEMA_DEPTH,
};
use crate::{repair, Error, RepairOptions, Repaired, DEFAULT_MAX_DEPTH};
use core::fmt;

/// Why a value could not be given as a `serde_json::Value`.
#[derive(Debug)]
pub enum ValueError {
    /// The text held no JSON to repair, or a limit or a forbidden repair stopped the repair.
    Repair(Error),
    /// The repaired JSON holds a number beyond `f64` or nests deeper than 128 levels.
    Json(serde_json::Error),
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Repair(e) => e.fmt(f),
            ValueError::Json(e) => write!(f, "the repaired JSON is not a serde_json value: {e}"),
        }
    }
}

impl core::error::Error for ValueError {}

/// Parses strict JSON text into a value as `JSON.parse` would, within `serde_json`'s limits.
fn parse(json: &str) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::from_str(json)
}

impl<J: AsRef<str>> Repaired<J> {
    /// The repaired JSON as a `serde_json::Value`.
    ///
    /// # Errors
    /// A number beyond `f64` (`1e400`) or nesting deeper than 128 levels, which a `serde_json::Value`
    /// cannot hold.
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        parse(self.json.as_ref())
    }
}

/// [`repair`], as a `serde_json::Value`: what `JSON.parse` builds from the repaired text.
///
/// # Errors
/// [`ValueError::Repair`] as [`repair`] fails; [`ValueError::Json`] as [`Repaired::to_value`].
pub fn repair_value(text: &str, options: &RepairOptions) -> Result<serde_json::Value, ValueError> {
    repair(text, options)
        .map_err(ValueError::Repair)?
        .to_value()
        .map_err(ValueError::Json)
}

/// Compiles a schema given as a `serde_json::Value` (remote schemas and a regular expression engine as
/// `options` give them).
///
/// # Errors
/// The compiler's [`SchemaError`].
pub fn compile_value(
    schema: &serde_json::Value,
    options: &CompileOptions,
) -> Result<Schema, SchemaError> {
    let value =
        EngineValue::parse(&schema.to_string(), MAX_SCHEMA_DEPTH).map_err(|_| SchemaError {
            code: "invalid_schema",
            message: "the schema nests deeper than the schema engine's limit".to_owned(),
            schema_path: "#".to_owned(),
        })?;
    Schema::compile(&value, options)
}

/// Every violation of `schema` by `value` (empty when it is valid).
pub fn validate_value(schema: &Schema, value: &serde_json::Value) -> Vec<Issue> {
    schema.validate_text(&value.to_string(), DEFAULT_MAX_DEPTH)
}

/// [`extract`], with the chosen candidate as a `serde_json::Value` (`None` when the text held none).
/// The [`Extracted`] report is returned as it is, its value in the engine's own type.
pub fn extract_value(
    text: &str,
    schema: &Schema,
    options: &ExtractOptions,
) -> (
    Option<Result<serde_json::Value, serde_json::Error>>,
    Extracted,
) {
    let out = extract(text, schema, options);
    (out.value.as_ref().map(|v| parse(&v.to_json())), out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_what_json_parse_builds() {
        let o = RepairOptions::default();
        // The last value of a duplicate key, as `JSON.parse` keeps it.
        let v = repair_value("{\"b\": 1, \"a\": 2, \"b\": 3,}", &o).unwrap();
        assert_eq!(v, json!({"a": 2, "b": 3}));
        // The nearest double, as `JSON.parse` reads it.
        let v = repair_value("[0.1, 2.2250738585072011e-308, 9007199254740993]", &o).unwrap();
        assert_eq!(v[0].as_f64(), Some(0.1));
        assert_eq!(v[1].as_f64(), Some(2.225_073_858_507_201e-308));
        assert_eq!(v[2].as_f64(), Some(9_007_199_254_740_992.0));
    }

    #[test]
    fn what_a_serde_json_value_cannot_hold_is_an_error_not_a_panic() {
        let o = RepairOptions::default();
        assert!(matches!(
            repair_value("[1e400]", &o),
            Err(ValueError::Json(_))
        ));
        let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
        assert!(matches!(repair_value(&deep, &o), Err(ValueError::Json(_))));
        let e = repair_value("no JSON here", &o).unwrap_err();
        assert!(matches!(e, ValueError::Repair(_)));
        assert!(e.to_string().contains("no JSON"), "{e}");
    }

    #[test]
    fn schemas_compile_validate_and_extract_from_values() {
        let schema = compile_value(
            &json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
            &CompileOptions::default(),
        )
        .unwrap();
        assert!(validate_value(&schema, &json!({"n": 1})).is_empty());
        assert_eq!(
            validate_value(&schema, &json!({"n": "x"}))[0].keyword,
            "type"
        );
        let (value, report) =
            extract_value("Answer: {n: '7'}", &schema, &ExtractOptions::default());
        assert_eq!(value.unwrap().unwrap(), json!({"n": 7}));
        assert_eq!(report.coercions.len(), 1);
        let (none, report) = extract_value("no JSON", &schema, &ExtractOptions::default());
        assert!(none.is_none() && !report.ok());
        let bad = compile_value(&json!({"type": 5}), &CompileOptions::default());
        assert!(bad.is_err());
    }
}
