//! Compiling a JSON Schema: finding every resource and anchor, resolving references, and turning each
//! reachable subschema into a [`Node`] of checked keywords.
//!
//! Compilation walks the schema documents once to index identifiers (`$id`, `$anchor`,
//! `$dynamicAnchor`, and `#name` ids of older drafts), then compiles nodes on demand from the root,
//! following `$ref`s. A reference that resolves nowhere, a keyword with a value of the wrong type, or a
//! `$schema` this engine does not implement is a [`SchemaError`], never a silently ignored rule.
//!
//! One file, although long: the node types and the compilation of each keyword into them are read
//! together; the index of identifiers, which stands alone, is in `compile/index.rs`.

use super::map::Map;
use super::number::MAX_DIVISOR_DIGITS;
use super::sub;
use super::uri::{resolve, split_fragment, DEFAULT_BASE};
use super::value::{push_pointer, Kind, Number, Value};
use crate::prelude::*;
use alloc::rc::Rc;
use core::fmt;

mod index;

/// The JSON Schema drafts this engine implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Draft {
    /// Draft 4.
    Draft4,
    /// Draft 6.
    Draft6,
    /// Draft 7.
    Draft7,
    /// Draft 2019-09.
    Draft2019,
    /// Draft 2020-12.
    Draft2020,
}

impl Draft {
    /// The draft named by a `defaultDraft` option (`2020-12`, `2019-09`, `7`, `6`, `4`).
    pub fn from_name(name: &str) -> Option<Draft> {
        Some(match name {
            "2020-12" => Draft::Draft2020,
            "2019-09" => Draft::Draft2019,
            "7" | "07" | "draft-07" => Draft::Draft7,
            "6" | "06" | "draft-06" => Draft::Draft6,
            "4" | "04" | "draft-04" => Draft::Draft4,
            _ => return None,
        })
    }

    /// The draft whose meta-schema URI is `uri`.
    fn from_meta_uri(uri: &str) -> Option<Draft> {
        let uri = uri.trim_end_matches('#');
        let uri = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))?;
        Some(match uri {
            "json-schema.org/draft/2020-12/schema" => Draft::Draft2020,
            "json-schema.org/draft/2019-09/schema" => Draft::Draft2019,
            "json-schema.org/draft-07/schema" => Draft::Draft7,
            "json-schema.org/draft-06/schema" => Draft::Draft6,
            "json-schema.org/draft-04/schema" => Draft::Draft4,
            _ => return None,
        })
    }

    fn id_keyword(self) -> &'static str {
        if self == Draft::Draft4 {
            "id"
        } else {
            "$id"
        }
    }

    /// Whether `$ref` makes every sibling keyword ignored (drafts 4 to 7).
    fn ref_overrides(self) -> bool {
        self <= Draft::Draft7
    }
}

/// Why a schema could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// Stable code: `invalid_schema`, `unresolved_ref`, `unsupported`, `invalid_pattern`.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// Where in the schema, as `#` followed by a JSON Pointer (or `uri#pointer` in a remote schema).
    pub schema_path: String,
}

impl SchemaError {
    /// The error as a JSON object: `{"code", "message", "schemaPath"}`.
    pub fn to_value(&self) -> Value {
        Value::Object(vec![
            ("code".into(), Value::String(self.code.into())),
            ("message".into(), Value::String(self.message.clone())),
            ("schemaPath".into(), Value::String(self.schema_path.clone())),
        ])
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cat!(self.message, " (at ", self.schema_path, ")"))
    }
}

impl core::error::Error for SchemaError {}

/// Tests an ECMAScript regular expression against a string: `Some(matched)`, or `None` when the
/// pattern is not a valid regular expression. In wasm this is the host's `RegExp` with the `u` flag.
pub type RegexTest = fn(pattern: &str, text: &str) -> Option<bool>;

/// How a schema is compiled.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The draft of schemas without `$schema`.
    pub default_draft: Draft,
    /// Schemas that `$ref` may name, by URI.
    pub remotes: Vec<(String, Value)>,
    /// Whether `format` is an assertion (by default it is an annotation).
    pub assert_format: bool,
    /// The regular expression engine for `pattern`, `patternProperties` and the `regex` format.
    /// Without one, a schema that uses them does not compile.
    pub regex: Option<RegexTest>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            default_draft: Draft::Draft2020,
            remotes: Vec::new(),
            assert_format: false,
            regex: None,
        }
    }
}

/// Index of a node in [`Compiled::nodes`].
pub type NodeId = usize;

/// One checked keyword of a subschema.
#[derive(Debug)]
pub enum Keyword {
    Ref(NodeId),
    /// `$dynamicRef` (or `$recursiveRef`): the statically resolved node, and the dynamic anchor name
    /// when the static target carries one (otherwise it behaves as `$ref`).
    DynamicRef(NodeId, Option<String>),
    Type(Vec<Kind>),
    Enum(Vec<Value>),
    Const(Value),
    MultipleOf(Number),
    Maximum(Number),
    ExclusiveMaximum(Number),
    Minimum(Number),
    ExclusiveMinimum(Number),
    MaxLength(u64),
    MinLength(u64),
    Pattern(String),
    Format(String),
    MaxItems(u64),
    MinItems(u64),
    UniqueItems,
    /// `contains` with `minContains` and `maxContains`.
    Contains(NodeId, u64, Option<u64>),
    MaxProperties(u64),
    MinProperties(u64),
    Required(Vec<String>),
    DependentRequired(Vec<(String, Vec<String>)>),
    DependentSchemas(Vec<(String, NodeId)>),
    Properties(Vec<(String, NodeId)>),
    PatternProperties(Vec<(String, NodeId)>),
    /// `additionalProperties`, with the names and patterns of its sibling keywords.
    AdditionalProperties(NodeId, Vec<String>, Vec<String>),
    PropertyNames(NodeId),
    PrefixItems(Vec<NodeId>),
    /// `items` (or `additionalItems`) for the items after the first `usize`.
    Items(NodeId, usize),
    AllOf(Vec<NodeId>),
    AnyOf(Vec<NodeId>),
    OneOf(Vec<NodeId>),
    Not(NodeId),
    If(NodeId, Option<NodeId>, Option<NodeId>),
    UnevaluatedProperties(NodeId),
    UnevaluatedItems(NodeId),
}

/// A compiled subschema.
#[derive(Debug)]
pub struct Node {
    /// `#` and the JSON Pointer of this subschema (prefixed by the document URI for remote schemas).
    pub location: String,
    /// The schema resource this node belongs to, for the dynamic scope.
    pub resource: usize,
    /// What the node checks.
    pub body: Body,
    /// The `default` annotation, which extraction copies into a missing property.
    pub default: Option<Value>,
}

/// What a node checks.
#[derive(Debug)]
pub enum Body {
    /// Accepts everything.
    True,
    /// Rejects everything.
    False,
    /// Keywords, each with its name as written.
    Keywords(Vec<(&'static str, Keyword)>),
}

/// A compiled schema: every reachable node, and the dynamic anchors of each resource.
#[derive(Debug)]
pub struct Compiled {
    /// All nodes; the root is node 0.
    pub nodes: Vec<Node>,
    /// For each resource, its dynamic anchors by name.
    pub dynamic: Vec<Map>,
    /// Whether any node uses `unevaluatedProperties`/`unevaluatedItems` (annotations are tracked only then).
    pub tracks_annotations: bool,
    /// The regular expression engine.
    pub regex: Option<RegexTest>,
}

/// Where a subschema lives: a document and a JSON Pointer into it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Loc {
    doc: usize,
    pointer: String,
}

impl Loc {
    /// The key of `pointer` in document `doc`, for the maps.
    fn key_of(doc: usize, pointer: &str) -> String {
        cat!(doc, ":", pointer)
    }

    fn key(&self) -> String {
        Loc::key_of(self.doc, &self.pointer)
    }
}

/// What the index knows about a subschema position.
#[derive(Clone, Debug)]
struct Scope {
    base: String,
    draft: Draft,
    resource: usize,
    /// Whether the validation vocabulary is on (a custom meta-schema may leave it out).
    validation: bool,
}

struct Compiler<'o> {
    options: &'o CompileOptions,
    /// Documents: the schema (0) and the remotes, by retrieval URI.
    docs: Vec<(String, Rc<Value>)>,
    /// Locations that `resources` and `anchors` point at.
    locs: Vec<Loc>,
    /// Resource URI (no fragment) → its root (in `locs`).
    resources: Map,
    /// `uri#anchor` → the subschema (in `locs`).
    anchors: Map,
    /// For each resource id: its URI and dynamic anchors (name → location).
    resource_list: Vec<(String, Vec<(String, Loc)>)>,
    /// Location key → its scope (in `scope_list`).
    scopes: Map,
    scope_list: Vec<Scope>,
    nodes: Vec<Node>,
    /// Location key → its node.
    compiled: Map,
    /// Nodes reserved but not compiled yet.
    queue: Vec<(NodeId, Loc)>,
    tracks: bool,
    /// Remote documents indexed so far (each is indexed when a reference first reaches it).
    indexed: Vec<usize>,
}

#[cold]
#[inline(never)]
fn invalid(code: &'static str, message: String, at: &str) -> SchemaError {
    SchemaError {
        code,
        message,
        schema_path: at.to_string(),
    }
}

/// A JSON Pointer reference token with `~1` read as `/` and `~0` as `~` (RFC 6901 §4).
fn unescape_pointer_token(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        let rest = chars.as_str();
        match rest.as_bytes().first() {
            Some(b'1') => out.push('/'),
            Some(b'0') => out.push('~'),
            _ => {
                out.push('~');
                continue;
            }
        }
        chars = sub(rest, 1..).chars();
    }
    out
}

/// The value at JSON Pointer `pointer` (already percent-decoded) inside `root`.
fn at_pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut v = root;
    for raw in pointer.strip_prefix('/')?.split('/') {
        let token = unescape_pointer_token(raw);
        v = match v {
            Value::Object(_) => v.get(&token)?,
            Value::Array(items) => {
                if token.len() > 1 && token.starts_with('0') {
                    return None;
                }
                items.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(v)
}

impl<'o> Compiler<'o> {
    /// The node for `loc`, reserving it (to be compiled from the queue) when it is new.
    fn node_for(&mut self, loc: Loc) -> NodeId {
        let key = loc.key();
        if let Some(id) = self.compiled.get(&key) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            location: self.location_text(&loc),
            resource: 0,
            body: Body::True,
            default: None,
        });
        self.compiled.insert(key, id);
        self.queue.push((id, loc));
        id
    }

    #[inline(never)]
    fn child(&mut self, loc: &Loc, tokens: &[&str]) -> NodeId {
        let mut pointer = loc.pointer.clone();
        for t in tokens {
            push_pointer(&mut pointer, t);
        }
        self.node_for(Loc {
            doc: loc.doc,
            pointer,
        })
    }

    fn compile_all(&mut self) -> Result<(), SchemaError> {
        while let Some((id, loc)) = self.queue.pop() {
            self.compile_node(id, &loc)?;
        }
        Ok(())
    }

    fn compile_node(&mut self, id: NodeId, loc: &Loc) -> Result<(), SchemaError> {
        let at = self.nodes[id].location.clone();
        let root = Rc::clone(&self.docs[loc.doc].1);
        let v = at_pointer(&root, &loc.pointer)
            .ok_or_else(|| invalid("unresolved_ref", "no schema at this location".into(), &at))?;
        let scope = self
            .scope_of(loc)
            .ok_or_else(|| invalid("unresolved_ref", "no schema at this location".into(), &at))?;
        self.nodes[id].resource = scope.resource;
        match v {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => {
                self.nodes[id].body = Body::False;
                return Ok(());
            }
            Value::Object(_) => self.nodes[id].default = v.get("default").cloned(),
            _ => {
                return Err(invalid(
                    "invalid_schema",
                    "a schema must be an object or a boolean".into(),
                    &at,
                ))
            }
        };
        let d = scope.draft;
        let mut out: Vec<(&'static str, Keyword)> = Vec::new();
        let kw_at = |k: &str| {
            let mut p = at.clone();
            push_pointer(&mut p, k);
            p
        };
        if let Some(r) = v.get("$ref") {
            let r = r.as_str().ok_or_else(|| {
                invalid(
                    "invalid_schema",
                    "$ref must be a string".into(),
                    &kw_at("$ref"),
                )
            })?;
            // A `$ref` resolves against the base of its own schema object, which its own `$id` sets
            // (except in drafts 4–7, where `$ref` ignores a sibling `$id`).
            let target = self.resolve_ref(&scope.base, r, &kw_at("$ref"))?;
            out.push(("$ref", Keyword::Ref(self.node_for(target))));
            if d.ref_overrides() {
                self.nodes[id].body = Body::Keywords(out);
                return Ok(());
            }
        }
        for (key, name) in [
            ("$dynamicRef", "$dynamicRef"),
            ("$recursiveRef", "$recursiveRef"),
        ] {
            let applies = (key == "$dynamicRef" && d == Draft::Draft2020)
                || (key == "$recursiveRef" && d == Draft::Draft2019);
            let Some(r) = v.get(key).filter(|_| applies) else {
                continue;
            };
            let r = r.as_str().ok_or_else(|| {
                invalid(
                    "invalid_schema",
                    cat!(key, " must be a string"),
                    &kw_at(key),
                )
            })?;
            let target = self.resolve_ref(&scope.base, r, &kw_at(key))?;
            let anchor = if key == "$recursiveRef" {
                // `$recursiveRef` is dynamic only when its target declares `$recursiveAnchor: true`.
                let t = at_pointer(&self.docs[target.doc].1, &target.pointer);
                matches!(
                    t.and_then(|t| t.get("$recursiveAnchor")),
                    Some(Value::Bool(true))
                )
                .then(String::new)
            } else {
                // `$dynamicRef` is dynamic only when its static target is a `$dynamicAnchor` of that name.
                let fragment = split_fragment(r).1;
                let t = at_pointer(&self.docs[target.doc].1, &target.pointer);
                let named = t
                    .and_then(|t| t.get("$dynamicAnchor"))
                    .and_then(Value::as_str);
                (!fragment.starts_with('/') && !fragment.is_empty() && named == Some(fragment))
                    .then(|| fragment.to_string())
            };
            out.push((name, Keyword::DynamicRef(self.node_for(target), anchor)));
        }
        let number = |k: &str| -> Result<Option<Number>, SchemaError> {
            match v.get(k) {
                None => Ok(None),
                Some(Value::Number(n)) => Ok(Some(n.clone())),
                Some(_) => Err(invalid(
                    "invalid_schema",
                    cat!(k, " must be a number"),
                    &kw_at(k),
                )),
            }
        };
        let count = |k: &str| -> Result<Option<u64>, SchemaError> {
            match v.get(k) {
                None => Ok(None),
                Some(Value::Number(n)) if n.to_count().is_some() => Ok(n.to_count()),
                Some(_) => Err(invalid(
                    "invalid_schema",
                    cat!(k, " must be a non-negative integer"),
                    &kw_at(k),
                )),
            }
        };
        let strings = |k: &str, list: &Value| -> Result<Vec<String>, SchemaError> {
            match list {
                Value::Array(items) => items
                    .iter()
                    .map(|i| {
                        i.as_str().map(str::to_string).ok_or_else(|| {
                            invalid("invalid_schema", cat!(k, " must list strings"), &kw_at(k))
                        })
                    })
                    .collect(),
                _ => Err(invalid(
                    "invalid_schema",
                    cat!(k, " must be an array of strings"),
                    &kw_at(k),
                )),
            }
        };
        if scope.validation {
            if let Some(t) = v.get("type") {
                let names: Vec<&Value> = match t {
                    Value::Array(items) => items.iter().collect(),
                    one => vec![one],
                };
                let mut kinds = Vec::new();
                for n in names {
                    match n.as_str().and_then(Kind::from_name) {
                        Some(k) => kinds.push(k),
                        None if d == Draft::Draft4 && n.as_str() == Some("any") => {}
                        None => {
                            return Err(invalid(
                                "invalid_schema",
                                cat!("type: unknown type ", n.to_json()),
                                &kw_at("type"),
                            ))
                        }
                    }
                }
                out.push(("type", Keyword::Type(kinds)));
            }
            if let Some(e) = v.get("enum") {
                let Value::Array(items) = e else {
                    return Err(invalid(
                        "invalid_schema",
                        "enum must be an array".into(),
                        &kw_at("enum"),
                    ));
                };
                out.push(("enum", Keyword::Enum(items.clone())));
            }
            if d >= Draft::Draft6 {
                if let Some(c) = v.get("const") {
                    out.push(("const", Keyword::Const(c.clone())));
                }
            }
            if let Some(m) = number("multipleOf")? {
                if !m.is_positive() {
                    return Err(invalid(
                        "invalid_schema",
                        "multipleOf must be greater than 0".into(),
                        &kw_at("multipleOf"),
                    ));
                }
                if m.significant_digits() > MAX_DIVISOR_DIGITS {
                    return Err(invalid(
                        "unsupported",
                        cat!(
                            "multipleOf may have at most ",
                            MAX_DIVISOR_DIGITS,
                            " significant digits"
                        ),
                        &kw_at("multipleOf"),
                    ));
                }
                out.push(("multipleOf", Keyword::MultipleOf(m)));
            }
            if d == Draft::Draft4 {
                // Draft 4: exclusiveMaximum/exclusiveMinimum are booleans that modify maximum/minimum.
                let flag = |k: &str| matches!(v.get(k), Some(Value::Bool(true)));
                if let Some(m) = number("maximum")? {
                    out.push(if flag("exclusiveMaximum") {
                        ("maximum", Keyword::ExclusiveMaximum(m))
                    } else {
                        ("maximum", Keyword::Maximum(m))
                    });
                }
                if let Some(m) = number("minimum")? {
                    out.push(if flag("exclusiveMinimum") {
                        ("minimum", Keyword::ExclusiveMinimum(m))
                    } else {
                        ("minimum", Keyword::Minimum(m))
                    });
                }
            } else {
                for (k, make) in [
                    ("maximum", Keyword::Maximum as fn(Number) -> Keyword),
                    ("exclusiveMaximum", Keyword::ExclusiveMaximum),
                    ("minimum", Keyword::Minimum),
                    ("exclusiveMinimum", Keyword::ExclusiveMinimum),
                ] {
                    if let Some(m) = number(k)? {
                        out.push((k, make(m)));
                    }
                }
            }
            for (k, make) in [
                ("maxLength", Keyword::MaxLength as fn(u64) -> Keyword),
                ("minLength", Keyword::MinLength),
                ("maxItems", Keyword::MaxItems),
                ("minItems", Keyword::MinItems),
                ("maxProperties", Keyword::MaxProperties),
                ("minProperties", Keyword::MinProperties),
            ] {
                if let Some(n) = count(k)? {
                    out.push((k, make(n)));
                }
            }
            if let Some(p) = v.get("pattern") {
                let p = p.as_str().ok_or_else(|| {
                    invalid(
                        "invalid_schema",
                        "pattern must be a string".into(),
                        &kw_at("pattern"),
                    )
                })?;
                self.check_pattern(p, &kw_at("pattern"))?;
                out.push(("pattern", Keyword::Pattern(p.to_string())));
            }
            match v.get("uniqueItems") {
                Some(Value::Bool(true)) => out.push(("uniqueItems", Keyword::UniqueItems)),
                Some(Value::Bool(false)) | None => {}
                Some(_) => {
                    return Err(invalid(
                        "invalid_schema",
                        "uniqueItems must be a boolean".into(),
                        &kw_at("uniqueItems"),
                    ))
                }
            }
            if let Some(r) = v.get("required") {
                // Draft 4 forbids an empty list, later drafts allow it: accept both.
                out.push(("required", Keyword::Required(strings("required", r)?)));
            }
            if d >= Draft::Draft2019 {
                if let Some(Value::Object(m)) = v.get("dependentRequired") {
                    let mut deps = Vec::new();
                    for (name, list) in m {
                        deps.push((name.clone(), strings("dependentRequired", list)?));
                    }
                    out.push(("dependentRequired", Keyword::DependentRequired(deps)));
                }
            }
        }
        if let Some(f) = v.get("format").and_then(Value::as_str) {
            if self.options.assert_format {
                if f == "regex" && self.options.regex.is_none() {
                    return Err(invalid(
                        "unsupported",
                        "format 'regex' needs a regular expression engine".into(),
                        &kw_at("format"),
                    ));
                }
                out.push(("format", Keyword::Format(f.to_string())));
            }
        }
        // Applicators.
        for k in ["allOf", "anyOf", "oneOf"] {
            let Some(list) = v.get(k) else { continue };
            let Value::Array(items) = list else {
                return Err(invalid(
                    "invalid_schema",
                    cat!(k, " must be an array of schemas"),
                    &kw_at(k),
                ));
            };
            let ids: Vec<NodeId> = (0..items.len())
                .map(|i| self.child(loc, &[k, &cat!(i)]))
                .collect();
            out.push((
                k,
                match k {
                    "allOf" => Keyword::AllOf(ids),
                    "anyOf" => Keyword::AnyOf(ids),
                    _ => Keyword::OneOf(ids),
                },
            ));
        }
        if v.get("not").is_some() {
            out.push(("not", Keyword::Not(self.child(loc, &["not"]))));
        }
        if d >= Draft::Draft7 && v.get("if").is_some() {
            let t = v.get("then").is_some().then(|| self.child(loc, &["then"]));
            let e = v.get("else").is_some().then(|| self.child(loc, &["else"]));
            let i = self.child(loc, &["if"]);
            out.push(("if", Keyword::If(i, t, e)));
        }
        // Objects.
        let mut names = Vec::new();
        if let Some(Value::Object(props)) = v.get("properties") {
            let mut list = Vec::new();
            for (name, _) in props {
                list.push((name.clone(), self.child(loc, &["properties", name])));
                names.push(name.clone());
            }
            out.push(("properties", Keyword::Properties(list)));
        }
        let mut patterns = Vec::new();
        if let Some(Value::Object(props)) = v.get("patternProperties") {
            let mut list = Vec::new();
            for (p, _) in props {
                self.check_pattern(p, &kw_at("patternProperties"))?;
                list.push((p.clone(), self.child(loc, &["patternProperties", p])));
                patterns.push(p.clone());
            }
            out.push(("patternProperties", Keyword::PatternProperties(list)));
        }
        if v.get("additionalProperties").is_some() {
            let n = self.child(loc, &["additionalProperties"]);
            out.push((
                "additionalProperties",
                Keyword::AdditionalProperties(n, names, patterns),
            ));
        }
        if d >= Draft::Draft6 && v.get("propertyNames").is_some() {
            out.push((
                "propertyNames",
                Keyword::PropertyNames(self.child(loc, &["propertyNames"])),
            ));
        }
        let dependents = if d >= Draft::Draft2019 {
            "dependentSchemas"
        } else {
            "dependencies"
        };
        if let Some(Value::Object(m)) = v.get(dependents) {
            let (mut schemas, mut required) = (Vec::new(), Vec::new());
            for (name, dep) in m {
                match dep {
                    Value::Array(_) if d <= Draft::Draft7 => {
                        required.push((name.clone(), strings(dependents, dep)?))
                    }
                    Value::Object(_) | Value::Bool(_) => {
                        schemas.push((name.clone(), self.child(loc, &[dependents, name])))
                    }
                    _ => {
                        return Err(invalid(
                            "invalid_schema",
                            cat!(dependents, " values must be schemas"),
                            &kw_at(dependents),
                        ))
                    }
                }
            }
            if !required.is_empty() {
                out.push(("dependencies", Keyword::DependentRequired(required)));
            }
            out.push((dependents, Keyword::DependentSchemas(schemas)));
        }
        // Arrays.
        if d == Draft::Draft2020 {
            let mut prefix = 0;
            if let Some(Value::Array(items)) = v.get("prefixItems") {
                prefix = items.len();
                let ids = (0..prefix)
                    .map(|i| self.child(loc, &["prefixItems", &cat!(i)]))
                    .collect();
                out.push(("prefixItems", Keyword::PrefixItems(ids)));
            }
            if v.get("items").is_some() {
                out.push(("items", Keyword::Items(self.child(loc, &["items"]), prefix)));
            }
        } else {
            match v.get("items") {
                Some(Value::Array(items)) => {
                    let n = items.len();
                    let ids = (0..n)
                        .map(|i| self.child(loc, &["items", &cat!(i)]))
                        .collect();
                    out.push(("items", Keyword::PrefixItems(ids)));
                    if v.get("additionalItems").is_some() {
                        out.push((
                            "additionalItems",
                            Keyword::Items(self.child(loc, &["additionalItems"]), n),
                        ));
                    }
                }
                Some(_) => out.push(("items", Keyword::Items(self.child(loc, &["items"]), 0))),
                None => {}
            }
        }
        if d >= Draft::Draft6 && v.get("contains").is_some() {
            let node = self.child(loc, &["contains"]);
            let (min, max) = if d >= Draft::Draft2019 && scope.validation {
                (count("minContains")?.unwrap_or(1), count("maxContains")?)
            } else {
                (1, None)
            };
            out.push(("contains", Keyword::Contains(node, min, max)));
        }
        if d >= Draft::Draft2019 {
            if v.get("unevaluatedProperties").is_some() {
                self.tracks = true;
                out.push((
                    "unevaluatedProperties",
                    Keyword::UnevaluatedProperties(self.child(loc, &["unevaluatedProperties"])),
                ));
            }
            if v.get("unevaluatedItems").is_some() {
                self.tracks = true;
                out.push((
                    "unevaluatedItems",
                    Keyword::UnevaluatedItems(self.child(loc, &["unevaluatedItems"])),
                ));
            }
        }
        self.nodes[id].body = Body::Keywords(out);
        Ok(())
    }

    fn check_pattern(&self, p: &str, at: &str) -> Result<(), SchemaError> {
        let Some(test) = self.options.regex else {
            return Err(invalid(
                "unsupported",
                "pattern needs a regular expression engine".into(),
                at,
            ));
        };
        match test(p, "") {
            Some(_) => Ok(()),
            None => Err(invalid(
                "invalid_pattern",
                cat!("'", p, "' is not a valid ECMAScript regular expression"),
                at,
            )),
        }
    }
}

/// Compiles `schema` with `options`.
///
/// # Errors
/// A [`SchemaError`] when the schema is malformed, names an unknown draft, or a reference resolves nowhere.
pub fn compile(schema: &Value, options: &CompileOptions) -> Result<Compiled, SchemaError> {
    let mut c = Compiler {
        options,
        docs: vec![(String::new(), Rc::new(schema.clone()))],
        locs: Vec::new(),
        resources: Map::new(),
        anchors: Map::new(),
        resource_list: Vec::new(),
        scopes: Map::new(),
        scope_list: Vec::new(),
        nodes: Vec::new(),
        compiled: Map::new(),
        queue: Vec::new(),
        tracks: false,
        indexed: Vec::new(),
    };
    for (uri, doc) in &options.remotes {
        c.docs
            .push((split_fragment(uri).0.to_string(), Rc::new(doc.clone())));
    }
    for i in 1..c.docs.len() {
        c.docs[i].0 = resolve(DEFAULT_BASE, &c.docs[i].0);
    }
    let (draft, validation) = c.declared_draft(schema, options.default_draft, "#")?;
    c.index(0, DEFAULT_BASE.to_string(), draft, validation)?;
    c.node_for(Loc {
        doc: 0,
        pointer: String::new(),
    });
    c.compile_all()?;
    // Every dynamic anchor of every resource the schema reaches must have a node: the dynamic scope
    // may jump to it.
    let mut dynamic = vec![Map::new(); c.resource_list.len()];
    loop {
        let mut added = false;
        let mut reached = vec![false; c.resource_list.len()];
        c.nodes.iter().for_each(|n| reached[n.resource] = true);
        for r in (0..reached.len()).filter(|&r| reached[r]) {
            for (name, loc) in c.resource_list[r].1.clone() {
                if !dynamic[r].contains_key(&name) {
                    let id = c.node_for(loc);
                    dynamic[r].insert_new(name, id);
                    added = true;
                }
            }
        }
        c.compile_all()?;
        if !added {
            break;
        }
    }
    Ok(Compiled {
        nodes: c.nodes,
        dynamic,
        tracks_annotations: c.tracks,
        regex: options.regex,
    })
}
