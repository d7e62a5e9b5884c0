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
//!
//! `no_std` (with `alloc`): so that the wasm build can leave out the standard library's panic machinery.
#![cfg_attr(not(test), no_std)]

extern crate alloc;

/// What the standard prelude would bring: every module imports it.
mod prelude {
    pub use crate::cat;
    pub use alloc::borrow::ToOwned;
    pub use alloc::boxed::Box;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}
use prelude::*;

mod coerce;
mod compile;
mod format;
mod map;
mod number;
mod order;
mod place;
#[doc(hidden)]
pub mod text;
mod uri;
mod validate;
mod value;

pub use coerce::{CoerceOptions, Coercion, RepairJson, Rule, RuleSet};
pub use compile::{CompileOptions, Draft, RegexTest, SchemaError};
pub use order::sort_indices;
pub use place::{Place, Released, StringView, Walk};
pub use validate::{
    evaluation_budget, Issue, BASE_EVALUATIONS, EVALUATIONS_PER_VALUE, ISSUE_KEYWORDS,
    MAX_EVALUATION_DEPTH,
};
pub use value::{equal, Kind, Number, ParseError, Value};

/// `&s[range]`, or `""` if the range is off a character boundary, which the callers rule out: they cut
/// at offsets of ASCII bytes they found. Indexing with `[]` would bring its panic message into the wasm,
/// and with it `char`'s `Debug` formatting and Unicode tables (about 4 KB gzipped). The main crate's
/// stream cleaner cuts its strings with it too.
#[inline]
pub fn sub<R: core::slice::SliceIndex<str, Output = str>>(s: &str, range: R) -> &str {
    s.get(range).unwrap_or_default()
}

/// A compiled schema with several users (a host's handle, the stream parsers it guides); a clone is
/// another handle to the same schema.
///
/// Its drop code is generated in this crate, which is built for size: behind an `Rc<Schema>` the
/// drop of a schema (every kind of keyword) was generated where the handle was dropped, in the main
/// crate, at opt-level 3, and cost 2 KB of wasm gzipped.
#[derive(Clone)]
pub struct SharedSchema(alloc::rc::Rc<dyn Shares>);

/// What [`SharedSchema`] holds: the trait object's drop entry is made here, where the schema is wrapped.
trait Shares {
    fn schema(&self) -> &Schema;
}

impl Shares for Schema {
    fn schema(&self) -> &Schema {
        self
    }
}

impl SharedSchema {
    /// Shares `schema`.
    #[inline(never)]
    pub fn new(schema: Schema) -> SharedSchema {
        SharedSchema(alloc::rc::Rc::new(schema))
    }
}

impl core::ops::Deref for SharedSchema {
    type Target = Schema;
    fn deref(&self) -> &Schema {
        self.0.schema()
    }
}

impl core::fmt::Debug for SharedSchema {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.schema().fmt(f)
    }
}

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

    /// Compiles a schema given as JSON text, with `remotes` the JSON text of an object
    /// `{uri: schema}` that replaces `options.remotes`: the form hosts pass across a boundary.
    ///
    /// # Errors
    /// A [`SchemaError`]: `invalid_schema` at `#` when either text is not JSON (or `remotes` not an
    /// object), else the compiler's.
    #[inline(never)]
    pub fn compile_json(
        schema: &str,
        remotes: &str,
        mut options: CompileOptions,
    ) -> Result<Schema, SchemaError> {
        let fail = |message: &str| SchemaError {
            code: "invalid_schema",
            message: message.to_owned(),
            schema_path: "#".to_owned(),
        };
        let schema =
            Value::parse(schema, MAX_SCHEMA_DEPTH).map_err(|_| fail("the schema is not JSON"))?;
        options.remotes = match Value::parse(remotes, MAX_SCHEMA_DEPTH) {
            Ok(Value::Object(ref mut members)) => core::mem::take(members),
            _ => return Err(fail("remotes must be an object of schemas")),
        };
        Schema::compile(&schema, &options)
    }

    /// Every violation of the schema by `value` (empty when it is valid).
    pub fn validate(&self, value: &Value) -> Vec<Issue> {
        validate::validate(&self.compiled, value)
    }

    /// Every violation of the schema by the value whose JSON text is `text` (written by `JSON.stringify`,
    /// so strict). A value nested deeper than `max_depth` is one `depth` issue at the root.
    #[inline(never)]
    pub fn validate_text(&self, text: &str, max_depth: usize) -> Vec<Issue> {
        match Value::parse(text, max_depth) {
            Ok(value) => self.validate(&value),
            Err(_) => vec![Issue {
                path: String::new(),
                keyword: "depth",
                message: cat!("the value nests deeper than ", max_depth, " levels"),
                schema_path: "#".into(),
                params: Value::Object(Vec::new()),
            }],
        }
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

/// `parts` joined by `sep`: one loop for every join in the crate, instead of a copy of the standard
/// library's generic join per element type in the wasm.
pub(crate) fn join<'a>(parts: impl IntoIterator<Item = &'a str>, sep: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(part);
    }
    out
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

    #[test]
    fn compile_json_and_validate_text_read_json_text() {
        let options = || CompileOptions::default();
        for (schema, remotes, message) in [
            ("{", "{}", "the schema is not JSON"),
            ("{}", "[]", "remotes must be an object of schemas"),
        ] {
            let e = Schema::compile_json(schema, remotes, options()).unwrap_err();
            assert_eq!(
                (e.code, e.message.as_str(), e.schema_path.as_str()),
                ("invalid_schema", message, "#")
            );
        }
        let e =
            Schema::compile_json(r#"{"$ref":"https://x.test/s"}"#, "{}", options()).unwrap_err();
        assert_eq!(e.code, "unresolved_ref", "{e}");
        let remotes = r#"{"https://x.test/s":{"type":"integer"}}"#;
        let s = Schema::compile_json(r#"{"$ref":"https://x.test/s"}"#, remotes, options()).unwrap();
        assert!(s.validate_text("3", 8).is_empty());
        let wrong = s.validate_text("\"3\"", 8);
        assert_eq!(
            (wrong.len(), wrong[0].path.as_str(), wrong[0].keyword),
            (1, "", "type")
        );
        let deep = s.validate_text("[[[1]]]", 2);
        assert_eq!(deep.len(), 1);
        assert_eq!(deep[0].keyword, "depth");
        assert!(deep[0].message.contains("deeper than 2 levels"), "{deep:?}");
    }

    #[test]
    fn unique_items_reports_the_first_duplicate_in_order() {
        let s = Schema::compile(
            &Value::parse(r#"{"uniqueItems": true}"#, 8).unwrap(),
            &CompileOptions::default(),
        )
        .unwrap();
        for (items, pair) in [
            ("[1, 2, 1, 2, 2]", Some((0, 2))),
            (r#"[3, "a", {"x": [1.0]}, "a", 3]"#, Some((1, 3))),
            (r#"[{"a": 1, "b": 2}, 5, {"b": 2, "a": 1}]"#, Some((0, 2))),
            ("[1, 2, 3]", None),
            ("[]", None),
        ] {
            let issues = s.validate(&Value::parse(items, 8).unwrap());
            let found = issues.first().map(|i| {
                let n = |k: &str| i.params.get(k).map(|v| v.to_json());
                (n("i").unwrap(), n("j").unwrap())
            });
            let expected = pair.map(|(i, j): (u32, u32)| (i.to_string(), j.to_string()));
            assert_eq!(found, expected, "{items}");
        }
    }

    /// Found by the `schema` fuzz target: `oneOf` branches that refer to one another needed
    /// exponentially many evaluations of a tiny value (a hang). They now end in a `budget` issue.
    #[test]
    fn branches_that_refer_to_one_another_end_in_a_budget_issue() {
        let mut defs: Vec<String> = (0..40)
            .map(|k| {
                format!(
                    r##""a{k}":{{"anyOf":[{{"$ref":"#/$defs/a{n}"}},{{"$ref":"#/$defs/a{n}"}}]}}"##,
                    n = k + 1
                )
            })
            .collect();
        defs.push(r#""a40":{"type":"string"}"#.to_string());
        let chain = format!(
            r##"{{"$defs":{{{}}},"$ref":"#/$defs/a0"}}"##,
            defs.join(",")
        );
        let cycle = r##"{"$defs":{"x":{"oneOf":[{"$ref":"#/$defs/x"},{"$ref":"#/$defs/x"}]}},"$ref":"#/$defs/x"}"##;
        for schema in [chain.as_str(), cycle] {
            let s = Schema::compile(
                &Value::parse(schema, 64).unwrap(),
                &CompileOptions::default(),
            )
            .unwrap();
            let value = Value::parse("1", 1).unwrap();
            let issues = s.validate(&value);
            assert!(issues.iter().any(|i| i.keyword == "budget"), "{issues:?}");
            assert!(!s.is_valid(&value));
            let mut coerced = value.clone();
            s.coerce(&mut coerced, &CoerceOptions::default());
        }
    }

    /// Every `type` of a value's schemas at once: the kinds all of them allow (an integer being a
    /// number), and a string coerced to one of those, by the rule of what they allow.
    #[test]
    fn coercion_reads_the_types_of_every_schema_that_applies() {
        let coerce = |schema: &str, value: &str| {
            let s = Schema::compile(
                &Value::parse(schema, 64).unwrap(),
                &CompileOptions::default(),
            )
            .unwrap();
            let mut v = Value::parse(value, 8).unwrap();
            let rules: Vec<String> = s
                .coerce(&mut v, &CoerceOptions::default())
                .iter()
                .map(|c| cat!(c.path.as_str(), " ", c.rule.code()))
                .collect();
            (v.to_json(), rules.join(","))
        };
        let both = r#"{"allOf":[{"type":"number"},{"type":["integer","string"]}]}"#;
        assert_eq!(
            coerce(both, r#""5""#),
            ("5".into(), " string_to_integer".into())
        );
        assert_eq!(coerce(both, "5"), ("5".into(), String::new()));
        let number = r##"{"$ref":"#/$defs/n","$defs":{"n":{"type":"number"}}}"##;
        assert_eq!(coerce(number, "5"), ("5".into(), String::new()));
        assert_eq!(
            coerce(number, r#""2.5""#),
            ("2.5".into(), " string_to_number".into())
        );
        let items = r#"{"type":"array","items":{"type":"integer"}}"#;
        assert_eq!(
            coerce(items, r#"[1,"2"]"#),
            ("[1,2]".into(), "/1 string_to_integer".into())
        );
    }
}
