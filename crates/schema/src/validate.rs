//! Validating a value against a compiled schema, with one issue per violation.
//!
//! Evaluation follows the compiled nodes. Annotations (which properties and items a subschema
//! evaluated) are tracked only when the schema uses `unevaluatedProperties` or `unevaluatedItems`.
//! Nested evaluation is bounded by [`MAX_EVALUATION_DEPTH`], so a deep value or a schema that refers
//! to itself without consuming input ends in an issue, not a stack overflow. The number of subschema
//! evaluations is bounded too ([`evaluation_budget`]): a schema whose `anyOf`/`oneOf` branches refer to
//! one another can need exponentially many, and then ends in a `budget` issue, not a hang.
//!
//! One file, although long: every keyword's check is a method of the one evaluator, sharing its depth,
//! budget, annotations and issue sink; split, each part would import all of them.

use super::compile::{Body, Compiled, Keyword, NodeId};
use super::format::format_ok;
use super::value::{equal, push_pointer, write_str, Number, Value};
use crate::prelude::*;

/// Every keyword an [`Issue`] can carry: the JSON Schema keywords that can fail, `false` (the `false`
/// schema), `depth` (the value nests deeper than validation follows), `budget` (validation stopped at its
/// evaluation budget) and `parse` (extraction found no JSON in the text). The TypeScript API's
/// `ISSUE_KEYWORDS` is generated from this list.
pub const ISSUE_KEYWORDS: [&str; 36] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "dependencies",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "items",
    "propertyNames",
    "anyOf",
    "oneOf",
    "not",
    "false",
    "depth",
    "budget",
    "parse",
];

/// How deeply subschema evaluations may nest (instance depth plus reference chains).
pub const MAX_EVALUATION_DEPTH: usize = 256;

/// Subschema evaluations allowed for any value, on top of [`EVALUATIONS_PER_VALUE`] for each value it
/// holds.
pub const BASE_EVALUATIONS: u64 = 100_000;
/// Subschema evaluations allowed per value (object, array, member or item) in the instance.
pub const EVALUATIONS_PER_VALUE: u64 = 64;

/// The evaluations one validation (or coercion) of `value` may make: enough for any schema that does
/// not branch exponentially, linear in the size of the value.
pub fn evaluation_budget(value: &Value) -> u64 {
    let mut count = 0u64;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    BASE_EVALUATIONS + EVALUATIONS_PER_VALUE * count
}

/// One violation.
#[derive(Clone, Debug)]
pub struct Issue {
    /// JSON Pointer to the offending value; for `required`, `dependentRequired` and
    /// `additionalProperties`/`unevaluatedProperties` the missing or unexpected property itself.
    pub path: String,
    /// The keyword that failed (`type`, `required`, …; `false` for the `false` schema).
    pub keyword: &'static str,
    /// What is wrong, for people.
    pub message: String,
    /// Where the keyword is: `#` and a JSON Pointer into the schema.
    pub schema_path: String,
    /// The keyword's details, as a JSON object (`{"missingProperty": "x"}`, `{"allowedValues": […]}`).
    pub params: Value,
}

impl Issue {
    /// The issue as a JSON object: `{"path", "keyword", "message", "schemaPath", "params"}`.
    pub fn to_value(&self) -> Value {
        Value::Object(vec![
            ("path".into(), Value::String(self.path.clone())),
            ("keyword".into(), Value::String(self.keyword.into())),
            ("message".into(), Value::String(self.message.clone())),
            ("schemaPath".into(), Value::String(self.schema_path.clone())),
            ("params".into(), self.params.clone()),
        ])
    }
}

/// What one evaluation produced: validity and, when tracked, the evaluated members and items.
struct Eval {
    valid: bool,
    props: Vec<bool>,
    items: Vec<bool>,
}

impl Eval {
    fn merge(&mut self, other: &Eval) {
        for (a, b) in self.props.iter_mut().zip(&other.props) {
            *a |= *b;
        }
        for (a, b) in self.items.iter_mut().zip(&other.items) {
            *a |= *b;
        }
    }
}

/// Which annotation applying a subschema to a child records.
#[derive(Clone, Copy)]
enum Mark {
    Nothing,
    Property(usize),
    Item(usize),
}

/// Where issues go: collected, or (`collect == false`) only counted so evaluation can stop early.
struct Sink {
    collect: bool,
    issues: Vec<Issue>,
}

impl Sink {
    fn new(collect: bool) -> Sink {
        Sink {
            collect,
            issues: Vec::new(),
        }
    }
}

struct Validator<'c> {
    c: &'c Compiled,
    /// Resources entered, outermost first (the dynamic scope).
    scope: Vec<usize>,
    depth: usize,
    /// Evaluations left; at 0 every evaluation fails.
    budget: u64,
    exhausted: bool,
}

impl Validator<'_> {
    fn new(c: &Compiled, budget: u64) -> Validator<'_> {
        Validator {
            c,
            scope: Vec::new(),
            depth: 0,
            budget,
            exhausted: false,
        }
    }
}

/// Validates `value`; returns every issue (empty when valid).
pub fn validate(c: &Compiled, value: &Value) -> Vec<Issue> {
    let budget = evaluation_budget(value);
    let mut v = Validator::new(c, budget);
    let mut sink = Sink::new(true);
    v.node(0, value, &mut String::new(), &mut sink);
    if v.exhausted {
        let message = cat!(
            "validation stopped after ",
            budget,
            " subschema evaluations, the budget for this value: \
             the schema's anyOf/oneOf branches refer to one another"
        );
        sink.issues.insert(
            0,
            Issue {
                path: String::new(),
                keyword: "budget",
                message,
                schema_path: "#".into(),
                params: param("limit", num(budget)),
            },
        );
    }
    sink.issues
}

/// Whether `value` is valid (stops at the first violation).
pub fn is_valid(c: &Compiled, value: &Value) -> bool {
    is_valid_at(c, 0, value, &mut evaluation_budget(value))
}

/// Whether `value` is valid against node `id` (stops at the first violation), spending evaluations
/// from `budget`.
pub(crate) fn is_valid_at(c: &Compiled, id: NodeId, value: &Value, budget: &mut u64) -> bool {
    let mut v = Validator::new(c, *budget);
    let valid = v
        .node(id, value, &mut String::new(), &mut Sink::new(false))
        .valid;
    *budget = v.budget;
    valid
}

#[inline(never)]
fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// An issue's params with one member. Out of line: a dozen sites.
#[inline(never)]
fn param(key: &'static str, value: Value) -> Value {
    obj(vec![(key, value)])
}

#[inline(never)]
fn num(n: u64) -> Value {
    Value::Number(Number::from_u64(n))
}

#[inline(never)]
fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// A short JSON rendering of `v` for messages (long values are cut).
#[inline(never)]
fn show(v: &Value) -> String {
    let mut s = v.to_json();
    if s.len() > 60 {
        let mut cut = 57;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

#[inline(never)]
fn quoted(s: &str) -> String {
    let mut out = String::new();
    write_str(s, &mut out);
    out
}

/// A canonical text for `uniqueItems`: object members sorted, numbers by value.
fn canonical(v: &Value, out: &mut String) {
    // Explicit stack of pending pieces: a value to write, or literal text.
    enum Piece<'a> {
        V(&'a Value),
        T(&'static str),
        K(&'a str),
    }
    let mut stack = vec![Piece::V(v)];
    while let Some(p) = stack.pop() {
        match p {
            Piece::T(t) => out.push_str(t),
            Piece::K(k) => {
                write_str(k, out);
                out.push(':');
            }
            Piece::V(Value::Array(items)) => {
                out.push('[');
                stack.push(Piece::T("]"));
                for item in items.iter().rev() {
                    stack.push(Piece::T(","));
                    stack.push(Piece::V(item));
                }
            }
            Piece::V(Value::Object(members)) => {
                out.push('{');
                stack.push(Piece::T("}"));
                let mut order: Vec<usize> = (0..members.len()).collect();
                crate::order::sort_indices(&mut order, &|a, b| members[b].0.cmp(&members[a].0));
                for (k, v) in order.into_iter().map(|i| &members[i]) {
                    stack.push(Piece::T(","));
                    stack.push(Piece::V(v));
                    stack.push(Piece::K(k));
                }
            }
            // Numbers by value (`1` and `1.0` are equal; so are `0` and `-0`).
            Piece::V(Value::Number(n)) => {
                out.push('#');
                n.write_key(out);
            }
            Piece::V(v) => out.push_str(&v.to_json()),
        }
    }
}

impl Validator<'_> {
    fn fresh(&self, inst: &Value) -> Eval {
        let track = self.c.tracks_annotations;
        Eval {
            valid: true,
            props: match inst {
                Value::Object(m) if track => vec![false; m.len()],
                _ => Vec::new(),
            },
            items: match inst {
                Value::Array(a) if track => vec![false; a.len()],
                _ => Vec::new(),
            },
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fail(
        &self,
        sink: &mut Sink,
        ev: &mut Eval,
        path: &str,
        keyword: &'static str,
        at: &str,
        message: String,
        params: Value,
    ) {
        ev.valid = false;
        debug_assert!(
            ISSUE_KEYWORDS.contains(&keyword),
            "{keyword} is not in ISSUE_KEYWORDS"
        );
        if sink.collect {
            let mut schema_path = at.to_string();
            if keyword != "false" {
                push_pointer(&mut schema_path, keyword);
            }
            sink.issues.push(Issue {
                path: path.to_string(),
                keyword,
                message,
                schema_path,
                params,
            });
        }
    }

    /// [`Self::fail`] with params of one member, `key` and `value`. Out of line: a dozen sites, each of
    /// which would otherwise build the member's list itself.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fail_param(
        &self,
        sink: &mut Sink,
        ev: &mut Eval,
        path: &str,
        keyword: &'static str,
        at: &str,
        message: String,
        key: &'static str,
        value: Value,
    ) {
        self.fail(sink, ev, path, keyword, at, message, param(key, value));
    }

    /// Evaluates node `id` against `inst` at instance pointer `path`.
    fn node(&mut self, id: NodeId, inst: &Value, path: &mut String, sink: &mut Sink) -> Eval {
        let n = &self.c.nodes[id];
        let mut ev = self.fresh(inst);
        let keywords = match &n.body {
            Body::True => return ev,
            Body::False => {
                self.fail(
                    sink,
                    &mut ev,
                    path,
                    "false",
                    &n.location,
                    "no value is allowed here".into(),
                    obj(vec![]),
                );
                return ev;
            }
            Body::Keywords(k) => k,
        };
        if self.budget == 0 {
            // Reported once, at the root, by `validate`.
            self.exhausted = true;
            ev.valid = false;
            return ev;
        }
        self.budget -= 1;
        if self.depth >= MAX_EVALUATION_DEPTH {
            let message = cat!(
                "the value nests deeper than the schema engine's limit of ",
                MAX_EVALUATION_DEPTH,
                " evaluations"
            );
            self.fail_param(
                sink,
                &mut ev,
                path,
                "depth",
                &n.location,
                message,
                "limit",
                num(MAX_EVALUATION_DEPTH as u64),
            );
            return ev;
        }
        self.depth += 1;
        let entered = self.scope.last() != Some(&n.resource);
        if entered {
            self.scope.push(n.resource);
        }
        for (name, kw) in keywords {
            self.keyword(name, kw, &n.location, inst, path, sink, &mut ev);
            if !ev.valid && !sink.collect {
                break;
            }
        }
        if entered {
            self.scope.pop();
        }
        self.depth -= 1;
        ev
    }

    /// Evaluates a subschema applied in place (same instance); merges its annotations when valid.
    fn in_place(
        &mut self,
        id: NodeId,
        inst: &Value,
        path: &mut String,
        sink: &mut Sink,
        ev: &mut Eval,
    ) -> bool {
        let r = self.node(id, inst, path, sink);
        if r.valid {
            ev.merge(&r);
        } else {
            ev.valid = false;
        }
        r.valid
    }

    /// Evaluates a subschema on a child of the instance; `token` extends the path.
    fn child(
        &mut self,
        id: NodeId,
        inst: &Value,
        path: &mut String,
        token: &str,
        sink: &mut Sink,
    ) -> bool {
        let len = path.len();
        push_pointer(path, token);
        let r = self.node(id, inst, path, sink);
        path.truncate(len);
        r.valid
    }

    fn is_false(&self, id: NodeId) -> bool {
        matches!(self.c.nodes[id].body, Body::False)
    }

    #[allow(clippy::too_many_arguments)]
    fn keyword(
        &mut self,
        name: &'static str,
        kw: &Keyword,
        at: &str,
        inst: &Value,
        path: &mut String,
        sink: &mut Sink,
        ev: &mut Eval,
    ) {
        match kw {
            Keyword::Ref(target) => {
                self.in_place(*target, inst, path, sink, ev);
            }
            Keyword::DynamicRef(target, anchor) => {
                let mut t = *target;
                if let Some(anchor) = anchor {
                    // The outermost resource in the dynamic scope that defines this dynamic anchor wins.
                    if let Some(found) = self
                        .scope
                        .iter()
                        .find_map(|&r| self.c.dynamic.get(r).and_then(|m| m.get(anchor)))
                    {
                        t = found;
                    }
                }
                self.in_place(t, inst, path, sink, ev);
            }
            Keyword::Type(kinds) => {
                if !kinds.iter().any(|k| inst.is(*k)) {
                    let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                    let got = inst.kind().name();
                    let message = cat!(
                        "must be ",
                        crate::join(names.iter().copied(), " or "),
                        ", got ",
                        got
                    );
                    let params = obj(vec![
                        (
                            "type",
                            Value::Array(names.iter().map(|n| text(n)).collect()),
                        ),
                        ("received", text(got)),
                    ]);
                    self.fail(sink, ev, path, name, at, message, params);
                }
            }
            Keyword::Enum(values) => {
                if !values.iter().any(|v| equal(v, inst)) {
                    let shown: Vec<String> = values.iter().take(20).map(show).collect();
                    let more = if values.len() > 20 { ", …" } else { "" };
                    let message = cat!(
                        "must be one of ",
                        crate::join(shown.iter().map(String::as_str), ", "),
                        more,
                        ", got ",
                        show(inst)
                    );
                    self.fail_param(
                        sink,
                        ev,
                        path,
                        name,
                        at,
                        message,
                        "allowedValues",
                        Value::Array(values.clone()),
                    );
                }
            }
            Keyword::Const(c) => {
                if !equal(c, inst) {
                    let message = cat!("must be ", show(c), ", got ", show(inst));
                    self.fail_param(sink, ev, path, name, at, message, "allowedValue", c.clone());
                }
            }
            Keyword::MultipleOf(m) => {
                if let Value::Number(x) = inst {
                    if !x.is_multiple_of(m) {
                        let message = cat!("must be a multiple of ", m.text());
                        self.fail_param(
                            sink,
                            ev,
                            path,
                            name,
                            at,
                            message,
                            "multipleOf",
                            Value::Number(m.clone()),
                        );
                    }
                }
            }
            Keyword::Maximum(m)
            | Keyword::ExclusiveMaximum(m)
            | Keyword::Minimum(m)
            | Keyword::ExclusiveMinimum(m) => {
                if let Value::Number(x) = inst {
                    let order = x.cmp_value(m);
                    let (ok, op) = match kw {
                        Keyword::Maximum(_) => (order.is_le(), "<="),
                        Keyword::ExclusiveMaximum(_) => (order.is_lt(), "<"),
                        Keyword::Minimum(_) => (order.is_ge(), ">="),
                        _ => (order.is_gt(), ">"),
                    };
                    if !ok {
                        let message = cat!("must be ", op, " ", m.text(), ", got ", x.text());
                        self.fail(
                            sink,
                            ev,
                            path,
                            name,
                            at,
                            message,
                            obj(vec![
                                ("comparison", text(op)),
                                ("limit", Value::Number(m.clone())),
                            ]),
                        );
                    }
                }
            }
            Keyword::MaxLength(limit)
            | Keyword::MinLength(limit)
            | Keyword::MaxItems(limit)
            | Keyword::MinItems(limit)
            | Keyword::MaxProperties(limit)
            | Keyword::MinProperties(limit) => {
                // One rule for the six size limits: count, compare, name the unit.
                let max = matches!(
                    kw,
                    Keyword::MaxLength(_) | Keyword::MaxItems(_) | Keyword::MaxProperties(_)
                );
                let (len, unit) = match (kw, inst) {
                    (Keyword::MaxLength(_) | Keyword::MinLength(_), Value::String(s)) => {
                        // A character is one to four bytes: the bytes mostly settle it uncounted.
                        let bytes = s.len() as u64;
                        if (max && bytes <= *limit) || (!max && bytes / 4 >= *limit) {
                            return;
                        }
                        (char_count(s), "characters")
                    }
                    (Keyword::MaxItems(_) | Keyword::MinItems(_), Value::Array(a)) => {
                        (a.len(), "items")
                    }
                    (Keyword::MaxProperties(_) | Keyword::MinProperties(_), Value::Object(m)) => {
                        (m.len(), "properties")
                    }
                    _ => return,
                };
                let len = len as u64;
                if (max && len > *limit) || (!max && len < *limit) {
                    let bound = if max { "at most" } else { "at least" };
                    let message = cat!("must have ", bound, " ", limit, " ", unit, ", got ", len);
                    self.fail_param(sink, ev, path, name, at, message, "limit", num(*limit));
                }
            }
            Keyword::Pattern(p) => {
                if let (Value::String(s), Some(test)) = (inst, self.c.regex) {
                    if test(p, s) != Some(true) {
                        let message = cat!("must match the pattern /", p, "/");
                        self.fail_param(sink, ev, path, name, at, message, "pattern", text(p));
                    }
                }
            }
            Keyword::Format(f) => {
                if let Value::String(s) = inst {
                    if format_ok(f, s, self.c.regex) == Some(false) {
                        let message = cat!("must be a valid ", f);
                        self.fail_param(sink, ev, path, name, at, message, "format", text(f));
                    }
                }
            }
            Keyword::UniqueItems => {
                if let Value::Array(a) = inst {
                    // The first duplicate in order: the smallest `j` equal to an earlier item `i`. Found by
                    // sorting the items' canonical forms, not by hashing them: the items are the
                    // untrusted value, and a sort takes O(n log n) whatever they are.
                    let keys: Vec<String> = a
                        .iter()
                        .map(|item| {
                            let mut key = String::new();
                            canonical(item, &mut key);
                            key
                        })
                        .collect();
                    let mut order: Vec<usize> = (0..a.len()).collect();
                    crate::order::sort_indices(&mut order, &|x, y| keys[x].cmp(&keys[y]));
                    // Stable: equal keys keep their order, so each run's first two are its `i` and `j`.
                    let pair = order
                        .windows(2)
                        .enumerate()
                        .filter(|&(k, w)| {
                            keys[w[0]] == keys[w[1]] && (k == 0 || keys[order[k - 1]] != keys[w[0]])
                        })
                        .map(|(_, w)| (w[0], w[1]))
                        .min_by_key(|&(_, j)| j);
                    if let Some((i, j)) = pair {
                        let message =
                            cat!("items ", i, " and ", j, " are equal; items must be unique");
                        let params = obj(vec![("i", num(i as u64)), ("j", num(j as u64))]);
                        self.fail(sink, ev, path, name, at, message, params);
                    }
                }
            }
            Keyword::Contains(node, min, max) => {
                if let Value::Array(a) = inst {
                    let mut matched = 0u64;
                    for (i, item) in a.iter().enumerate() {
                        if self.child(*node, item, path, &cat!(i), &mut Sink::new(false)) {
                            matched += 1;
                            if let Some(slot) = ev.items.get_mut(i) {
                                *slot = true;
                            }
                        }
                    }
                    if matched < *min {
                        let message = cat!(
                            "must contain at least ",
                            min,
                            " matching item(s), found ",
                            matched
                        );
                        let kw_name = if *min == 1 { name } else { "minContains" };
                        self.fail_param(
                            sink,
                            ev,
                            path,
                            kw_name,
                            at,
                            message,
                            "minContains",
                            num(*min),
                        );
                    } else if max.is_some_and(|m| matched > m) {
                        let m = max.unwrap_or_default();
                        let message = cat!(
                            "must contain at most ",
                            m,
                            " matching item(s), found ",
                            matched
                        );
                        self.fail_param(
                            sink,
                            ev,
                            path,
                            "maxContains",
                            at,
                            message,
                            "maxContains",
                            num(m),
                        );
                    }
                }
            }
            Keyword::Required(names) => {
                if let Value::Object(_) = inst {
                    for n in names {
                        if inst.get(n).is_none() {
                            let mut p = path.clone();
                            push_pointer(&mut p, n);
                            let message = cat!("missing required property ", quoted(n));
                            self.fail_param(
                                sink,
                                ev,
                                &p,
                                name,
                                at,
                                message,
                                "missingProperty",
                                text(n),
                            );
                            if !sink.collect {
                                return;
                            }
                        }
                    }
                }
            }
            Keyword::DependentRequired(deps) => {
                for (present, needed) in deps {
                    if inst.get(present).is_none() {
                        continue;
                    }
                    for n in needed {
                        if inst.get(n).is_none() {
                            let mut p = path.clone();
                            push_pointer(&mut p, n);
                            let message = cat!(
                                "missing property ",
                                quoted(n),
                                ", required when ",
                                quoted(present),
                                " is present"
                            );
                            let params = obj(vec![
                                ("missingProperty", text(n)),
                                ("property", text(present)),
                            ]);
                            self.fail(sink, ev, &p, name, at, message, params);
                        }
                    }
                }
            }
            Keyword::DependentSchemas(deps) => {
                for (present, node) in deps {
                    if inst.get(present).is_some() {
                        self.in_place(*node, inst, path, sink, ev);
                    }
                }
            }
            Keyword::Properties(props) => {
                if let Value::Object(members) = inst {
                    for (pname, node) in props {
                        let Some(i) = members.iter().position(|(k, _)| k == pname) else {
                            continue;
                        };
                        if !self.apply(
                            *node,
                            &members[i].1,
                            pname,
                            Mark::Property(i),
                            path,
                            sink,
                            ev,
                        ) {
                            return;
                        }
                    }
                }
            }
            Keyword::PatternProperties(patterns) => {
                if let (Value::Object(members), Some(test)) = (inst, self.c.regex) {
                    for (p, node) in patterns {
                        for (i, (k, v)) in members.iter().enumerate() {
                            if test(p, k) == Some(true)
                                && !self.apply(*node, v, k, Mark::Property(i), path, sink, ev)
                            {
                                return;
                            }
                        }
                    }
                }
            }
            Keyword::AdditionalProperties(node, names, patterns) => {
                if let Value::Object(members) = inst {
                    let regex = self.c.regex;
                    for (i, (k, v)) in members.iter().enumerate() {
                        let known = names.contains(k)
                            || patterns
                                .iter()
                                .any(|p| regex.and_then(|t| t(p, k)) == Some(true));
                        if !known && !self.extra(*node, name, at, i, k, v, path, sink, ev) {
                            return;
                        }
                    }
                }
            }
            Keyword::UnevaluatedProperties(node) => {
                if let Value::Object(members) = inst {
                    for (i, (k, v)) in members.iter().enumerate() {
                        if ev.props.get(i) != Some(&true)
                            && !self.extra(*node, name, at, i, k, v, path, sink, ev)
                        {
                            return;
                        }
                    }
                }
            }
            Keyword::PropertyNames(node) => {
                if let Value::Object(members) = inst {
                    for (k, _) in members {
                        if !self.apply(
                            *node,
                            &Value::String(k.clone()),
                            k,
                            Mark::Nothing,
                            path,
                            sink,
                            ev,
                        ) {
                            return;
                        }
                    }
                }
            }
            Keyword::PrefixItems(nodes) => {
                if let Value::Array(items) = inst {
                    for (i, (node, item)) in nodes.iter().zip(items).enumerate() {
                        if !self.apply(*node, item, &cat!(i), Mark::Item(i), path, sink, ev) {
                            return;
                        }
                    }
                }
            }
            Keyword::Items(node, start) if self.is_false(*node) => {
                if let Value::Array(items) = inst {
                    if items.len() > *start {
                        let message =
                            cat!("must have at most ", start, " items, got ", items.len());
                        let mut p = path.clone();
                        push_pointer(&mut p, &cat!(start));
                        self.fail_param(
                            sink,
                            ev,
                            &p,
                            name,
                            at,
                            message,
                            "limit",
                            num(*start as u64),
                        );
                    }
                }
            }
            Keyword::Items(node, start) => {
                if let Value::Array(items) = inst {
                    for (i, item) in items.iter().enumerate().skip(*start) {
                        if !self.apply(*node, item, &cat!(i), Mark::Item(i), path, sink, ev) {
                            return;
                        }
                    }
                }
            }
            Keyword::UnevaluatedItems(node) => {
                if let Value::Array(items) = inst {
                    for (i, item) in items.iter().enumerate() {
                        if ev.items.get(i) != Some(&true)
                            && !self.apply(*node, item, &cat!(i), Mark::Item(i), path, sink, ev)
                        {
                            return;
                        }
                    }
                }
            }
            Keyword::AllOf(nodes) => {
                for node in nodes {
                    if !self.in_place(*node, inst, path, sink, ev) && !sink.collect {
                        return;
                    }
                }
            }
            Keyword::AnyOf(nodes) | Keyword::OneOf(nodes) => {
                let one = matches!(kw, Keyword::OneOf(_));
                let mut passed = Vec::new();
                let mut best: Option<Vec<Issue>> = None;
                for (i, node) in nodes.iter().enumerate() {
                    let mut branch = Sink::new(sink.collect);
                    let r = self.node(*node, inst, path, &mut branch);
                    if r.valid {
                        ev.merge(&r);
                        passed.push(i);
                        // Without annotations to gather, anyOf can stop at the first match.
                        if !one && !self.c.tracks_annotations {
                            break;
                        }
                    } else if sink.collect
                        && best
                            .as_ref()
                            .map_or(true, |b| branch.issues.len() < b.len())
                    {
                        best = Some(branch.issues);
                    }
                    if one && passed.len() > 1 && !sink.collect {
                        break;
                    }
                }
                if passed.is_empty() {
                    let message = cat!(
                        "must match ",
                        if one { "exactly one" } else { "at least one" },
                        " schema in ",
                        name,
                        ", matched none"
                    );
                    self.fail_param(
                        sink,
                        ev,
                        path,
                        name,
                        at,
                        message,
                        "passingSchemas",
                        Value::Array(Vec::new()),
                    );
                    // The closest branch says what would have made the value match.
                    if let Some(b) = best {
                        sink.issues.extend(b);
                    }
                } else if one && passed.len() > 1 {
                    let message = cat!(
                        "must match exactly one schema in oneOf, matched ",
                        passed.len()
                    );
                    let params = obj(vec![(
                        "passingSchemas",
                        Value::Array(passed.iter().map(|&i| num(i as u64)).collect()),
                    )]);
                    self.fail(sink, ev, path, name, at, message, params);
                }
            }
            Keyword::Not(node) => {
                if self.node(*node, inst, path, &mut Sink::new(false)).valid {
                    self.fail(
                        sink,
                        ev,
                        path,
                        name,
                        at,
                        "must not match the schema in not".into(),
                        obj(vec![]),
                    );
                }
            }
            Keyword::If(cond, then, otherwise) => {
                let r = self.node(*cond, inst, path, &mut Sink::new(false));
                if r.valid {
                    ev.merge(&r);
                    if let Some(t) = then {
                        self.in_place(*t, inst, path, sink, ev);
                    }
                } else if let Some(e) = otherwise {
                    self.in_place(*e, inst, path, sink, ev);
                }
            }
        }
    }

    /// Applies `node` to a child of the instance (`token` extends the path) and records the child as
    /// evaluated. Returns whether evaluation goes on: false once a violation is found and issues are
    /// not being collected.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        node: NodeId,
        value: &Value,
        token: &str,
        mark: Mark,
        path: &mut String,
        sink: &mut Sink,
        ev: &mut Eval,
    ) -> bool {
        if !self.child(node, value, path, token, sink) {
            ev.valid = false;
        }
        let slot = match mark {
            Mark::Property(i) => ev.props.get_mut(i),
            Mark::Item(i) => ev.items.get_mut(i),
            Mark::Nothing => None,
        };
        if let Some(slot) = slot {
            *slot = true;
        }
        ev.valid || sink.collect
    }

    /// Applies `additionalProperties`/`unevaluatedProperties` to member `i`, `k`: `false` names the
    /// unexpected property; a schema validates its value. Returns whether evaluation goes on.
    #[allow(clippy::too_many_arguments)]
    fn extra(
        &mut self,
        node: NodeId,
        name: &'static str,
        at: &str,
        i: usize,
        k: &str,
        v: &Value,
        path: &mut String,
        sink: &mut Sink,
        ev: &mut Eval,
    ) -> bool {
        if !self.is_false(node) {
            return self.apply(node, v, k, Mark::Property(i), path, sink, ev);
        }
        let mut p = path.clone();
        push_pointer(&mut p, k);
        let message = cat!("property ", quoted(k), " is not allowed");
        self.fail_param(
            sink,
            ev,
            &p,
            name,
            at,
            message,
            "additionalProperty",
            text(k),
        );
        sink.collect
    }
}

/// How many characters `s` has: its bytes that do not continue a UTF-8 sequence. (A plain loop: the
/// standard library's `chars().count()` is a larger, vectorised routine.)
fn char_count(s: &str) -> usize {
    let mut n = 0;
    for &b in s.as_bytes() {
        n += usize::from(b & 0xC0 != 0x80);
    }
    n
}
