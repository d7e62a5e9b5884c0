//! Coercion toward a schema (SPEC §5): only where the schema asks for another type, each change
//! recorded as `{path, from, to, rule}`. Violations of limits (`minimum`, `minLength`, `enum` with no
//! unique match, extra properties) are never fixed here: validation after coercion reports them.

use super::compile::{Body, Compiled, Keyword, NodeId};
use super::validate::{evaluation_budget, is_valid_at, MAX_EVALUATION_DEPTH};
use super::value::{push_pointer, Kind, Value};
use crate::cat_into;
use crate::prelude::*;

/// A kind of coercion, which callers may turn off one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `"2"` → `2` where an integer is expected; `"15 minutes"` → `15` (a unit after the number,
    /// holding no digit, is dropped).
    StringToInteger,
    /// `"2.5"` → `2.5` where a number is expected; `"12.50 USD"` → `12.5`.
    StringToNumber,
    /// `"TRUE"` → `true` where a boolean is expected.
    StringToBoolean,
    /// `2` → `"2"`, `true` → `"true"` where a string is expected.
    ToString,
    /// `x` → `[x]` where an array is expected.
    WrapInArray,
    /// `"{\"a\":1}"` → `{"a":1}` where an object or array is expected (double-encoded responses).
    DecodeJson,
    /// `"attack"` → `"Attack"`: the unique case-insensitive match of an `enum` (ASCII letters fold;
    /// other characters must match exactly, which keeps Unicode case tables out of the wasm).
    EnumCase,
    /// `null` on an optional property whose type disallows null: the property is omitted.
    NullOmitted,
    /// A missing property whose schema has a `default` gets a copy of it.
    Default,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 9] = [
        Rule::StringToInteger,
        Rule::StringToNumber,
        Rule::StringToBoolean,
        Rule::ToString,
        Rule::WrapInArray,
        Rule::DecodeJson,
        Rule::EnumCase,
        Rule::NullOmitted,
        Rule::Default,
    ];

    /// Stable snake_case code.
    pub fn code(self) -> &'static str {
        match self {
            Rule::StringToInteger => "string_to_integer",
            Rule::StringToNumber => "string_to_number",
            Rule::StringToBoolean => "string_to_boolean",
            Rule::ToString => "to_string",
            Rule::WrapInArray => "wrap_in_array",
            Rule::DecodeJson => "decode_json",
            Rule::EnumCase => "enum_case",
            Rule::NullOmitted => "null_omitted",
            Rule::Default => "default",
        }
    }

    /// The rule with code `code`.
    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.code() == code)
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of coercion rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleSet(u16);

impl RuleSet {
    /// No rule.
    pub const NONE: RuleSet = RuleSet(0);
    /// Every rule.
    pub const ALL: RuleSet = RuleSet(0x1FF);

    /// Adds `rule`.
    pub fn insert(&mut self, rule: Rule) {
        self.0 |= rule.bit();
    }

    /// The rules named in a comma-separated list of codes; unknown codes are skipped.
    pub fn from_codes(list: &str) -> RuleSet {
        let mut set = RuleSet::NONE;
        list.split(',')
            .filter_map(Rule::from_code)
            .for_each(|r| set.insert(r));
        set
    }

    /// Whether `rule` is in the set.
    pub fn contains(self, rule: Rule) -> bool {
        self.0 & rule.bit() != 0
    }
}

/// One change made to a value.
#[derive(Clone, Debug)]
pub struct Coercion {
    /// JSON Pointer to the changed value (for `null_omitted` and `default`, the property).
    pub path: String,
    /// The value before (`null` for `default`).
    pub from: Value,
    /// The value after (`null` for `null_omitted`, where the property is gone).
    pub to: Value,
    /// Which rule applied.
    pub rule: Rule,
}

impl Coercion {
    /// The coercion as a JSON object: `{"path", "from", "to", "rule"}`.
    pub fn to_value(&self) -> Value {
        Value::Object(vec![
            ("path".into(), Value::String(self.path.clone())),
            ("from".into(), self.from.clone()),
            ("to".into(), self.to.clone()),
            ("rule".into(), Value::String(self.rule.code().into())),
        ])
    }
}

/// Reads JSON text that is not strict JSON (a repair engine), for [`Rule::DecodeJson`].
pub type RepairJson = fn(&str) -> Option<Value>;

/// How values are coerced.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoerceOptions {
    /// Rules that must not be applied.
    pub forbid: RuleSet,
    /// Reads a JSON-looking string that is not strict JSON; without it, `decode_json` takes strict
    /// JSON only.
    pub repair: Option<RepairJson>,
}

struct Coercer<'c> {
    c: &'c Compiled,
    forbid: RuleSet,
    repair: Option<RepairJson>,
    out: Vec<Coercion>,
    depth: usize,
    /// Evaluations left for coercing and for the validity checks it makes; at 0 coercion stops.
    budget: u64,
}

/// Coerces `value` toward the schema; returns what changed, in order.
pub fn coerce(c: &Compiled, value: &mut Value, options: &CoerceOptions) -> Vec<Coercion> {
    let mut k = Coercer {
        c,
        forbid: options.forbid,
        repair: options.repair,
        out: Vec::new(),
        depth: 0,
        budget: evaluation_budget(value),
    };
    k.at(0, value, &mut String::new());
    k.out
}

/// The value the string `text` becomes where the schema wants `to` alone, under the rules not in
/// `forbid`: what [`coerce`] makes of it there.
pub(crate) fn coerce_string(text: &str, to: Kind, forbid: RuleSet) -> Value {
    let c = Compiled {
        nodes: Vec::new(),
        dynamic: Vec::new(),
        tracks_annotations: false,
        regex: None,
    };
    let mut k = Coercer {
        c: &c,
        forbid,
        repair: None,
        out: Vec::new(),
        depth: 0,
        budget: 1,
    };
    let mut v = Value::String(text.to_owned());
    k.retype(widened(bit(to)), &mut v, "");
    v
}

/// A set of [`Kind`]s as bits: what `type` keywords allow, intersected without an allocation.
type Kinds = u8;

/// The one-kind set of `k`.
const fn bit(k: Kind) -> Kinds {
    1 << k as u8
}

/// `kinds` with `integer` wherever `number` is in it (every integer is a number).
fn widened(kinds: Kinds) -> Kinds {
    if kinds & bit(Kind::Number) != 0 {
        kinds | bit(Kind::Integer)
    } else {
        kinds
    }
}

/// Whether `v` is of a kind in `kinds`, a set [`widened`] (so [`Value::is`] of one of them).
fn admits(kinds: Kinds, v: &Value) -> bool {
    kinds & bit(v.kind()) != 0
}

/// The nodes whose keywords apply together at a value (see [`Coercer::group`]): most nodes lead to no
/// other, and are a group of one without an allocation.
enum Group {
    One([NodeId; 1]),
    Many(Vec<NodeId>),
}

impl core::ops::Deref for Group {
    type Target = [NodeId];
    fn deref(&self) -> &[NodeId] {
        match self {
            Group::One(id) => id,
            Group::Many(ids) => ids,
        }
    }
}

/// The nodes `kw` leads to that apply in place with its own (see [`Coercer::group`]): none for most.
fn leads_on(kw: &Keyword) -> &[NodeId] {
    match kw {
        Keyword::Ref(t) | Keyword::DynamicRef(t, _) => core::slice::from_ref(t),
        Keyword::AllOf(ts) => ts,
        _ => &[],
    }
}

impl<'c> Coercer<'c> {
    /// The nodes that apply in place at `id`: itself, and what `$ref`, `$dynamicRef` (statically)
    /// and `allOf` lead to.
    fn group(&self, id: NodeId) -> Group {
        let alone = match &self.c.nodes[id].body {
            Body::Keywords(kws) => kws.iter().all(|(_, kw)| leads_on(kw).is_empty()),
            _ => true,
        };
        if alone {
            return Group::One([id]);
        }
        let mut out = vec![id];
        let mut i = 0;
        while i < out.len() && out.len() < 64 {
            if let Body::Keywords(kws) = &self.c.nodes[out[i]].body {
                for (_, kw) in kws {
                    for &t in leads_on(kw) {
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                }
            }
            i += 1;
        }
        Group::Many(out)
    }

    fn keywords<'k>(&self, group: &'k [NodeId]) -> impl Iterator<Item = &'c Keyword> + 'k
    where
        'c: 'k,
    {
        let c = self.c;
        group.iter().flat_map(move |&id| {
            let kws: &'c [(&'static str, Keyword)] = match &c.nodes[id].body {
                Body::Keywords(kws) => kws,
                _ => &[],
            };
            kws.iter().map(|(_, k)| k)
        })
    }

    /// The types every `type` keyword of the group allows (`None` when no `type` applies).
    fn allowed(&self, group: &[NodeId]) -> Option<Kinds> {
        let mut allowed: Option<Kinds> = None;
        for kw in self.keywords(group) {
            if let Keyword::Type(kinds) = kw {
                let ks = widened(kinds.iter().fold(0, |set, &k| set | bit(k)));
                allowed = Some(allowed.map_or(ks, |prev| prev & ks));
            }
        }
        allowed
    }

    fn record(&mut self, path: &str, from: Value, to: Value, rule: Rule) {
        self.out.push(Coercion {
            path: path.to_string(),
            from,
            to,
            rule,
        });
    }

    fn on(&self, rule: Rule) -> bool {
        !self.forbid.contains(rule)
    }

    /// Coerces `v` toward node `id`.
    fn at(&mut self, id: NodeId, v: &mut Value, path: &mut String) {
        if self.depth >= MAX_EVALUATION_DEPTH || self.budget == 0 {
            return;
        }
        self.budget -= 1;
        self.depth += 1;
        let group = self.group(id);
        if let Some(allowed) = self.allowed(&group) {
            if !admits(allowed, v) {
                self.retype(allowed, v, path);
            }
        }
        self.enum_case(&group, v, path);
        self.branches(&group, v, path);
        match v {
            Value::Object(_) => self.object(&group, v, path),
            Value::Array(_) => self.array(&group, v, path),
            _ => {}
        }
        self.depth -= 1;
    }

    /// Changes the type of `v` to one of `allowed`, if a rule allows it.
    fn retype(&mut self, allowed: Kinds, v: &mut Value, path: &str) {
        let wants = |k: Kind| allowed & bit(k) != 0;
        if let Value::String(s) = &*v {
            let t = s.trim();
            if wants(Kind::Integer) || wants(Kind::Number) {
                // A number with a unit after it (`"190 °C"`, `"15 minutes"`, `"80 %"`): the number, when
                // the rest holds no digit (not `"10 - 20"`, `"+1 555 0100"`); the record keeps the unit.
                let number = match t.split_once(' ') {
                    Some((n, unit)) if !unit.bytes().any(|b| b.is_ascii_digit()) => n,
                    _ => t,
                };
                if let Ok(Value::Number(ref n)) = Value::parse(number, 1) {
                    let whole = n.is_integer();
                    let rule = if wants(Kind::Number) {
                        Rule::StringToNumber
                    } else {
                        Rule::StringToInteger
                    };
                    if (wants(Kind::Number) || whole) && self.on(rule) {
                        let from = core::mem::replace(v, Value::Number(n.clone()));
                        return self.record(path, from, Value::Number(n.clone()), rule);
                    }
                }
            }
            if wants(Kind::Boolean) && self.on(Rule::StringToBoolean) {
                let b = if t.eq_ignore_ascii_case("true") {
                    Some(true)
                } else if t.eq_ignore_ascii_case("false") {
                    Some(false)
                } else {
                    None
                };
                if let Some(b) = b {
                    let from = core::mem::replace(v, Value::Bool(b));
                    return self.record(path, from, Value::Bool(b), Rule::StringToBoolean);
                }
            }
            if (wants(Kind::Object) || wants(Kind::Array))
                && self.on(Rule::DecodeJson)
                && (t.starts_with('{') || t.starts_with('['))
            {
                let decoded = Value::parse(t, 10_000)
                    .ok()
                    .or_else(|| self.repair.and_then(|repair| repair(t)));
                if let Some(d) = decoded.filter(|d| admits(allowed, d)) {
                    let to = d.clone();
                    let from = core::mem::replace(v, d);
                    return self.record(path, from, to, Rule::DecodeJson);
                }
            }
        }
        if wants(Kind::String) && self.on(Rule::ToString) {
            let s = match &*v {
                Value::Number(n) => Some(n.text().to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
            if let Some(s) = s {
                let from = core::mem::replace(v, Value::String(s.clone()));
                return self.record(path, from, Value::String(s), Rule::ToString);
            }
        }
        if wants(Kind::Array)
            && !matches!(v, Value::Array(_) | Value::Null)
            && self.on(Rule::WrapInArray)
        {
            let inner = core::mem::take(v);
            let from = inner.clone();
            *v = Value::Array(vec![inner]);
            let to = v.clone();
            self.record(path, from, to, Rule::WrapInArray);
        }
    }

    /// A string that is not in an `enum` becomes its unique case-insensitive match.
    fn enum_case(&mut self, group: &[NodeId], v: &mut Value, path: &str) {
        if !self.on(Rule::EnumCase) {
            return;
        }
        let Value::String(s) = &*v else { return };
        let mut replacement = None;
        for kw in self.keywords(group) {
            let Keyword::Enum(values) = kw else { continue };
            if values.iter().any(|e| e.as_str() == Some(s)) {
                return;
            }
            let mut matches = values
                .iter()
                .filter_map(Value::as_str)
                .filter(|e| e.eq_ignore_ascii_case(s));
            if let (Some(m), None) = (matches.next(), matches.next()) {
                replacement = Some(m.to_string());
            }
        }
        if let Some(m) = replacement {
            let from = core::mem::replace(v, Value::String(m.clone()));
            self.record(path, from, Value::String(m), Rule::EnumCase);
        }
    }

    /// For `anyOf`/`oneOf` that the value matches in no branch: the first branch that coercion makes
    /// the value match.
    fn branches(&mut self, group: &[NodeId], v: &mut Value, path: &mut String) {
        let lists: Vec<Vec<NodeId>> = self
            .keywords(group)
            .filter_map(|kw| match kw {
                Keyword::AnyOf(ts) | Keyword::OneOf(ts) => Some(ts.clone()),
                _ => None,
            })
            .collect();
        for list in lists {
            if list
                .iter()
                .any(|&b| is_valid_at(self.c, b, v, &mut self.budget))
            {
                continue;
            }
            for b in list {
                let mut trial = v.clone();
                let saved = self.out.len();
                self.at(b, &mut trial, path);
                if is_valid_at(self.c, b, &trial, &mut self.budget) {
                    *v = trial;
                    break;
                }
                self.out.truncate(saved);
            }
        }
    }

    fn object(&mut self, group: &[NodeId], v: &mut Value, path: &mut String) {
        // The schema's own lists, borrowed: nothing is copied per object.
        let mut props: Vec<&'c (String, NodeId)> = Vec::new();
        let mut required: Vec<&'c String> = Vec::new();
        let mut patterns: Vec<&'c (String, NodeId)> = Vec::new();
        let mut additional: Option<(NodeId, &'c [String], &'c [String])> = None;
        for kw in self.keywords(group) {
            match kw {
                Keyword::Properties(p) => props.extend(p),
                Keyword::Required(r) => required.extend(r),
                Keyword::PatternProperties(p) => patterns.extend(p),
                Keyword::AdditionalProperties(n, names, pats) => {
                    additional = Some((*n, names, pats))
                }
                _ => {}
            }
        }
        let Value::Object(members) = v else { return };
        for &&(ref name, child) in &props {
            let len = path.len();
            push_pointer(path, name);
            match members.iter().position(|(k, _)| k == name) {
                Some(i) => {
                    // Only a null asks whether the property's type allows it.
                    if matches!(members[i].1, Value::Null)
                        && !self
                            .allowed(&self.group(child))
                            .map_or(true, |a| a & bit(Kind::Null) != 0)
                        && !required.contains(&name)
                        && self.on(Rule::NullOmitted)
                    {
                        members.remove(i);
                        self.record(path, Value::Null, Value::Null, Rule::NullOmitted);
                    } else {
                        self.at(child, &mut members[i].1, path);
                    }
                }
                None => {
                    if let Some(d) = self.c.nodes[child]
                        .default
                        .clone()
                        .filter(|_| self.on(Rule::Default))
                    {
                        members.push((name.clone(), d.clone()));
                        self.record(path, Value::Null, d, Rule::Default);
                    }
                }
            }
            path.truncate(len);
        }
        let regex = self.c.regex;
        for (k, val) in members.iter_mut() {
            if props.iter().any(|(n, _)| n == k) {
                continue;
            }
            let len = path.len();
            push_pointer(path, k);
            let mut matched = false;
            for &&(ref p, child) in &patterns {
                if regex.and_then(|t| t(p, k)) == Some(true) {
                    matched = true;
                    self.at(child, val, path);
                }
            }
            if let Some((child, names, pats)) = additional {
                let known = names.contains(k)
                    || pats
                        .iter()
                        .any(|p| regex.and_then(|t| t(p, k)) == Some(true));
                if !known && !matched {
                    self.at(child, val, path);
                }
            }
            path.truncate(len);
        }
    }

    fn array(&mut self, group: &[NodeId], v: &mut Value, path: &mut String) {
        let mut prefix: &[NodeId] = &[];
        let mut rest: Option<(NodeId, usize)> = None;
        for kw in self.keywords(group) {
            match kw {
                Keyword::PrefixItems(p) => prefix = p,
                Keyword::Items(n, start) => rest = Some((*n, *start)),
                _ => {}
            }
        }
        let Value::Array(items) = v else { return };
        for (i, item) in items.iter_mut().enumerate() {
            let node = match (prefix.get(i), rest) {
                (Some(&n), _) => n,
                (None, Some((n, start))) if i >= start => n,
                _ => continue,
            };
            let len = path.len();
            // An index needs no escaping.
            cat_into!(path, '/', i);
            self.at(node, item, path);
            path.truncate(len);
        }
    }
}
