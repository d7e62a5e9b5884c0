//! The JSON Schema engine of llm-response-sanitizer: compile once, validate, coerce (SPEC §5).
//!
//! The engine is our own so that the whole package stays small in wasm: drafts 2020-12, 2019-09, 7, 6
//! and 4, references by URI, anchors and dynamic references, and annotation tracking for
//! `unevaluatedProperties`/`unevaluatedItems`. `pattern` uses a caller-supplied ECMAScript regular
//! expression engine (the host's `RegExp` in wasm). Numbers are exact decimals.
//!
//! Picking candidates out of a response lives in the main crate (`llm_response_sanitizer::schema`),
//! beside the repair engine it uses; this crate knows nothing of repair, so that it can be built for
//! size while the repair engine is built for speed.

mod coerce;
mod compile;
mod format;
mod number;
mod order;
mod report;
mod uri;
mod validate;
mod value;

pub use coerce::{CoerceOptions, Coercion, RepairJson, Rule, RuleSet};
pub use compile::{CompileOptions, Draft, RegexTest, SchemaError};
pub use order::sort_indices;
pub use report::{error_json, push_coercions, push_issues, validation_json};
pub use validate::{Issue, MAX_EVALUATION_DEPTH};
pub use value::{equal, Kind, Number, ParseError, Value};

/// How deeply a schema document itself may nest.
pub const MAX_SCHEMA_DEPTH: usize = 1_000;

/// A compiled JSON Schema, ready to validate many values.
///
/// # Example
/// ```
/// use llm_response_sanitizer_schema::{Schema, CompileOptions, Value};
///
/// let schema = Value::parse(r#"{"type":"object","required":["name"]}"#, 64).unwrap();
/// let schema = Schema::compile(&schema, &CompileOptions::default()).unwrap();
/// let issues = schema.validate(&Value::parse("{}", 64).unwrap());
/// assert_eq!(issues[0].path, "/name");
/// assert_eq!(issues[0].keyword, "required");
/// ```
#[derive(Debug)]
pub struct Schema {
    compiled: compile::Compiled,
}

impl Schema {
    /// Compiles `schema`.
    ///
    /// # Errors
    /// A [`SchemaError`] when the schema is malformed, names an unsupported draft, uses `pattern` without
    /// a regular expression engine, or has a reference that resolves nowhere.
    pub fn compile(schema: &Value, options: &CompileOptions) -> Result<Schema, SchemaError> {
        Ok(Schema {
            compiled: compile::compile(schema, options)?,
        })
    }

    /// Every violation of the schema by `value` (empty when it is valid).
    pub fn validate(&self, value: &Value) -> Vec<Issue> {
        validate::validate(&self.compiled, value)
    }

    /// Whether `value` is valid; stops at the first violation.
    pub fn is_valid(&self, value: &Value) -> bool {
        validate::is_valid(&self.compiled, value)
    }

    /// Coerces `value` toward the schema (SPEC §5): each change is made in place and returned, in
    /// order. Validate afterwards: coercion only changes what a rule allows.
    pub fn coerce(&self, value: &mut Value, options: &CoerceOptions) -> Vec<Coercion> {
        coerce::coerce(&self.compiled, value, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile_error(schema: &str) -> SchemaError {
        let schema = Value::parse(schema, 64).unwrap();
        Schema::compile(&schema, &CompileOptions::default()).unwrap_err()
    }

    #[test]
    fn multiple_of_must_be_positive_with_at_most_18_digits() {
        for (schema, code) in [
            (r#"{"multipleOf":0}"#, "invalid_schema"),
            (r#"{"multipleOf":-2}"#, "invalid_schema"),
            (r#"{"multipleOf":1234567890123456789}"#, "unsupported"),
            (
                r#"{"multipleOf":0.0000001234567890123456789}"#,
                "unsupported",
            ),
        ] {
            let e = compile_error(schema);
            assert_eq!(
                (e.code, e.schema_path.as_str()),
                (code, "#/multipleOf"),
                "{schema}"
            );
        }
        // JSON.stringify writes at most 17 significant digits, so no schema from JavaScript hits
        // the limit; 18 digits and trailing zeros are fine.
        let schema = Value::parse(r#"{"multipleOf":1.23456789012345678e-300}"#, 8).unwrap();
        assert!(Schema::compile(&schema, &CompileOptions::default()).is_ok());
        let schema = Value::parse(r#"{"multipleOf":1000000000000000000000000}"#, 8).unwrap();
        let s = Schema::compile(&schema, &CompileOptions::default()).unwrap();
        assert!(s.is_valid(&Value::parse("3e24", 1).unwrap()));
        assert!(!s.is_valid(&Value::parse("3e23", 1).unwrap()));
    }
}
