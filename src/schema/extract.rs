//! Schema-guided extraction (SPEC §5): every top-level JSON value in a response is a candidate, in
//! textual order; each is repaired, coerced toward the schema and validated; the first valid one wins,
//! and when none is valid the first candidate's issues are reported.

use super::{CoerceOptions, Coercion, Issue, Rule, RuleSet, Schema, Value};
use crate::prelude::*;
use crate::record::RepairKind;
use crate::repair::{candidates, repair, Options as RepairOptions, Repair, Repaired};
use crate::Error;
use core::ops::Range;

/// Candidates read from one response at most (each is parsed separately, so this bounds the work).
pub const MAX_CANDIDATES: usize = 32;

/// Options for [`extract`].
#[derive(Clone, Debug, Default)]
pub struct ExtractOptions {
    /// Limits and forbidden repairs, as for [`crate::repair`].
    pub repair: RepairOptions,
    /// Coercion rules that must not be applied.
    pub forbid_coercions: RuleSet,
    /// Candidates before this index are passed over: a caller whose own validator rejected the winner at
    /// index `i` asks again with `skip = i + 1` for the next valid candidate.
    pub skip: usize,
}

/// The result of [`extract`].
#[derive(Debug)]
pub struct Extracted {
    /// The chosen candidate after coercion: the first valid one, else the first one (`None` when the
    /// text holds no candidate).
    pub value: Option<Value>,
    /// Issues of the chosen candidate (empty when it is valid); one `parse` issue when there is no
    /// candidate.
    pub issues: Vec<Issue>,
    /// Coercions applied to the chosen candidate.
    pub coercions: Vec<Coercion>,
    /// Repairs made to read the chosen candidate, with byte offsets into the text.
    pub repairs: Vec<Repair>,
    /// Byte range of the text the chosen candidate was read from.
    pub span: Option<Range<usize>>,
    /// Index of the chosen candidate among those read.
    pub candidate: Option<usize>,
    /// How many candidates were read.
    pub candidates: usize,
}

impl Extracted {
    /// Whether a candidate validated.
    pub fn ok(&self) -> bool {
        self.value.is_some() && self.issues.is_empty()
    }
}

/// Coerces and validates one candidate; says whether it is valid.
#[cfg_attr(shipped, optimize(size))]
fn judge(
    schema: &Schema,
    options: &ExtractOptions,
    mut value: Value,
    repairs: Vec<Repair>,
    span: Range<usize>,
    index: usize,
    count: usize,
) -> (Extracted, bool) {
    let coerce = CoerceOptions {
        forbid: options.forbid_coercions,
        repair: Some(repair_json),
    };
    let coercions = schema.coerce(&mut value, &coerce);
    let issues = schema.validate(&value);
    let valid = issues.is_empty();
    let out = Extracted {
        value: Some(value),
        issues,
        coercions,
        repairs,
        span: Some(span),
        candidate: Some(index),
        candidates: count,
    };
    (out, valid)
}

/// The values of the candidates from `from` on as one array, if there are several and it is valid: a
/// response that wrote an array's items as separate values. The repairs are theirs, and one
/// `multiple_values` where the second begins.
#[cfg_attr(shipped, optimize(size))]
fn gathered(
    schema: &Schema,
    options: &ExtractOptions,
    found: &[Result<Repaired, Error>],
    from: usize,
    depth: usize,
) -> Option<Extracted> {
    let read: Vec<&Repaired> = found[from..].iter().flatten().collect();
    let [first, .., last] = read[..] else {
        return None;
    };
    let mut json = String::from("[");
    let mut repairs = Vec::new();
    for (k, r) in read.iter().enumerate() {
        if k > 0 {
            json.push(',');
            if k == 1 {
                repairs.push(Repair {
                    kind: RepairKind::MultipleValues,
                    offset: r.span.start,
                });
            }
        }
        json.push_str(&r.json);
        repairs.extend_from_slice(&r.repairs);
    }
    json.push(']');
    let value = Value::parse(&json, depth.saturating_add(1)).ok()?;
    let span = first.span.start..last.span.end;
    let (out, valid) = judge(schema, options, value, repairs, span, from, found.len());
    valid.then_some(out)
}

/// Reads a JSON-looking string that needs repair, for the `decode_json` coercion.
fn repair_json(text: &str) -> Option<Value> {
    let r = repair(text, &RepairOptions::default()).ok()?;
    Value::parse(&r.json, 10_000).ok()
}

/// Extracts the value `schema` describes from an LLM response.
///
/// # Example
/// ```
/// use llm_response_sanitizer::schema::{extract, CompileOptions, ExtractOptions, Schema, Value};
///
/// let schema = r#"{"type":"object","properties":{"chosenIndex":{"type":"integer","minimum":1}},"required":["chosenIndex"]}"#;
/// let schema = Schema::compile(&Value::parse(schema, 64).unwrap(), &CompileOptions::default()).unwrap();
/// let text = "<think>maybe {\"chosenIndex\": 0}</think>Draft: {\"x\": 1}\n```json\n{\"chosenIndex\": \"2\",}\n```";
/// let out = extract(text, &schema, &ExtractOptions::default());
/// assert!(out.ok());
/// assert_eq!(out.value.unwrap().to_json(), r#"{"chosenIndex":2}"#);
/// assert_eq!(out.coercions[0].rule.code(), "string_to_integer");
/// ```
pub fn extract(text: &str, schema: &Schema, options: &ExtractOptions) -> Extracted {
    extract_with(text, schema, options, |e| {
        cat!("no candidate could be read: ", e.message())
    })
}

/// [`extract`], the message of the `parse` issue for a text none of whose candidates could be read
/// made by `unread` from the first candidate's error. The wasm binding sends that error to the
/// TypeScript side, which names a forbidden repair by its code there: the codes stay out of the wasm.
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn extract_with(
    text: &str,
    schema: &Schema,
    options: &ExtractOptions,
    unread: impl FnOnce(&Error) -> String,
) -> Extracted {
    let mut first: Option<Extracted> = None;
    let mut first_error: Option<&Error> = None;
    // A wholly valid text is the only candidate: read it straight into a value (one pass, not two).
    let within_limit = options
        .repair
        .max_input_length
        .map_or(true, |limit| text.len() <= limit);
    if within_limit && options.skip == 0 {
        if let Ok(value) = Value::parse(text, options.repair.max_depth) {
            let start = text.len() - text.trim_start_matches([' ', '\t', '\n', '\r']).len();
            let end = text.trim_end_matches([' ', '\t', '\n', '\r']).len();
            return judge(schema, options, value, Vec::new(), start..end, 0, 1).0;
        }
    }
    let mut repair = options.repair.clone();
    repair.assume_invalid = within_limit;
    let found = candidates(text, &repair, MAX_CANDIDATES);
    let count = found.len();
    let depth = options.repair.max_depth.saturating_add(1);
    for (index, result) in found.iter().enumerate().skip(options.skip) {
        let r = match result {
            Ok(r) => r,
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        let Ok(value) = Value::parse(&r.json, depth) else {
            continue;
        };
        let (candidate, valid) = judge(
            schema,
            options,
            value,
            r.repairs.clone(),
            r.span.clone(),
            index,
            count,
        );
        if valid {
            // The schema wants an array and this value became one by wrapping: the values after it
            // are its items too (NDJSON, objects one after another), when all of them fit.
            let wrapped = candidate
                .coercions
                .iter()
                .any(|c| c.rule == Rule::WrapInArray && c.path.is_empty());
            if wrapped {
                if let Some(all) = gathered(schema, options, &found, index, depth) {
                    return all;
                }
            }
            return candidate;
        }
        first.get_or_insert(candidate);
    }
    first.unwrap_or_else(|| {
        let message = match first_error {
            Some(e) => unread(e),
            None => "no JSON value found in the text".to_string(),
        };
        Extracted {
            value: None,
            issues: vec![Issue {
                path: String::new(),
                keyword: "parse",
                message,
                schema_path: "#".to_string(),
                params: Value::Object(Vec::new()),
            }],
            coercions: Vec::new(),
            repairs: Vec::new(),
            span: None,
            candidate: None,
            candidates: count,
        }
    })
}
