//! JSON Schema: compile once, validate, and guide extraction from LLM responses (SPEC §5).
//!
//! The engine is our own so that the whole package stays small in wasm: drafts 2020-12, 2019-09, 7, 6
//! and 4, references by URI, anchors and dynamic references, and annotation tracking for
//! `unevaluatedProperties`/`unevaluatedItems`. `pattern` uses a caller-supplied ECMAScript regular
//! expression engine (the host's `RegExp` in wasm).

mod coerce;
mod compile;
mod extract;
mod format;
mod number;
mod report;
mod uri;
mod validate;
mod value;

pub use coerce::{Coercion, Rule, RuleSet};
pub use compile::{CompileOptions, Draft, RegexTest, SchemaError};
pub use extract::{extract, ExtractOptions, Extracted, MAX_CANDIDATES};
pub use report::{error_json, extracted_json, validation_json};
pub use validate::{Issue, MAX_EVALUATION_DEPTH};
pub use value::{equal, Kind, Number, ParseError, Value};

/// How deeply a schema document itself may nest.
pub const MAX_SCHEMA_DEPTH: usize = 1_000;

/// A compiled JSON Schema, ready to validate many values.
///
/// # Example
/// ```
/// use llm_response_sanitizer::schema::{Schema, CompileOptions, Value};
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
}
