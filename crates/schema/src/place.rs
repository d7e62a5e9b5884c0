//! Places in a value that is still arriving: which subschemas may describe the value at a path, and
//! how a string there is shown before it is complete.
//!
//! A streamed partial value is shown while its text arrives. A string the schema restricts to fixed
//! values (`enum`, `const`) would show a misleading prefix (`"att"` of `"attack"`), and a string the schema
//! wants as a number or boolean would change type when extraction coerces it at the end; both are
//! shown only once complete, the second coerced as extraction coerces it.
//!
//! Which branch of an `anyOf`/`oneOf` applies is not known until the value is complete, so a place
//! holds the subschemas of every branch: a string is held if any of them restricts it, and coerced
//! only if none of them allows a string.

use super::coerce::{coerce_string, RuleSet};
use super::compile::{Body, Keyword, NodeId};
use super::value::{Kind, Value};
use super::{Schema, SharedSchema};
use crate::prelude::*;

/// The most subschemas a place holds; a schema whose branches reach more is read through the first.
const MAX_NODES: usize = 64;

/// The subschemas that may describe the value at one place in it. An empty place is unconstrained.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    nodes: Vec<NodeId>,
}

/// How a string at a place is shown while it streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringView {
    /// As it grows.
    Grow,
    /// Only once complete: the schema allows fixed strings only (`enum`, `const`).
    Whole,
    /// Only once complete, and then coerced toward this type (number, integer or boolean) as
    /// extraction coerces it: no subschema here allows a string.
    Coerced(Kind),
}

impl Schema {
    /// The place of the whole value.
    pub fn root_place(&self) -> Place {
        self.place_of(vec![0])
    }

    /// The place of member `key` of an object at `at`: `properties`, else `additionalProperties`.
    pub fn member_place(&self, at: &Place, key: &str) -> Place {
        let mut next = Vec::new();
        for kws in self.keywords(at) {
            let mut named = false;
            let mut extra = None;
            for kw in kws {
                match kw {
                    Keyword::Properties(props) => {
                        if let Some((_, id)) = props.iter().find(|(name, _)| name == key) {
                            next.push(*id);
                            named = true;
                        }
                    }
                    Keyword::AdditionalProperties(id, _, _) => extra = Some(*id),
                    _ => {}
                }
            }
            if let (false, Some(id)) = (named, extra) {
                next.push(id);
            }
        }
        self.place_of(next)
    }

    /// The place of element `index` of an array at `at`: `prefixItems` (or draft 7's array of `items`),
    /// else `items` (or `additionalItems`).
    pub fn element_place(&self, at: &Place, index: usize) -> Place {
        let mut next = Vec::new();
        for kws in self.keywords(at) {
            let mut prefixed = false;
            let mut rest = None;
            for kw in kws {
                match kw {
                    Keyword::PrefixItems(items) => {
                        if let Some(id) = items.get(index) {
                            next.push(*id);
                            prefixed = true;
                        }
                    }
                    Keyword::Items(id, start) if index >= *start => rest = Some(*id),
                    _ => {}
                }
            }
            if let (false, Some(id)) = (prefixed, rest) {
                next.push(id);
            }
        }
        self.place_of(next)
    }

    /// How a string at `at` is shown while it streams, when extraction may apply the coercion rules not in
    /// `forbid`.
    pub fn string_view(&self, at: &Place, forbid: RuleSet) -> StringView {
        let (mut string, mut number, mut integer, mut boolean, mut fixed) =
            (false, false, false, false, false);
        for kw in self.keywords(at).flatten() {
            match kw {
                Keyword::Type(kinds) => {
                    for k in kinds {
                        match k {
                            Kind::String => string = true,
                            Kind::Number => number = true,
                            Kind::Integer => integer = true,
                            Kind::Boolean => boolean = true,
                            _ => {}
                        }
                    }
                }
                Keyword::Enum(values) => {
                    fixed |= values.iter().any(|v| matches!(v, Value::String(_)))
                }
                Keyword::Const(Value::String(_)) => fixed = true,
                _ => {}
            }
        }
        let coerced = [
            (number, Kind::Number, super::Rule::StringToNumber),
            (integer, Kind::Integer, super::Rule::StringToInteger),
            (boolean, Kind::Boolean, super::Rule::StringToBoolean),
        ]
        .into_iter()
        .find(|&(named, _, _)| named && !string)
        .filter(|&(_, _, rule)| !forbid.contains(rule));
        match coerced {
            Some((_, kind, _)) => StringView::Coerced(kind),
            None if fixed => StringView::Whole,
            None => StringView::Grow,
        }
    }

    /// The value a complete string `text` becomes where the schema wants `to` (see [`StringView::Coerced`]):
    /// the number or boolean it reads as, or the string itself.
    pub fn coerce_string(&self, text: &str, to: Kind, forbid: RuleSet) -> Value {
        coerce_string(text, to, forbid)
    }

    /// The place of `nodes` and every node they lead to in place: `$ref`, `$dynamicRef` (statically),
    /// and the branches of `allOf`, `anyOf` and `oneOf`.
    fn place_of(&self, mut nodes: Vec<NodeId>) -> Place {
        let mut i = 0;
        while i < nodes.len() && nodes.len() < MAX_NODES {
            if let Body::Keywords(kws) = &self.compiled.nodes[nodes[i]].body {
                for (_, kw) in kws {
                    let next: &[NodeId] = match kw {
                        Keyword::Ref(t) | Keyword::DynamicRef(t, _) => core::slice::from_ref(t),
                        Keyword::AllOf(ts) | Keyword::AnyOf(ts) | Keyword::OneOf(ts) => ts,
                        _ => &[],
                    };
                    for &t in next {
                        if !nodes.contains(&t) && nodes.len() < MAX_NODES {
                            nodes.push(t);
                        }
                    }
                }
            }
            i += 1;
        }
        Place { nodes }
    }

    /// The keywords of each subschema of `at`.
    fn keywords<'s>(
        &'s self,
        at: &'s Place,
    ) -> impl Iterator<Item = impl Iterator<Item = &'s Keyword>> + 's {
        at.nodes.iter().map(move |&id| {
            let kws: &[(&'static str, Keyword)] = match &self.compiled.nodes[id].body {
                Body::Keywords(kws) => kws,
                _ => &[],
            };
            kws.iter().map(|(_, kw)| kw)
        })
    }
}

/// A walk through a value as its text arrives, for showing it by a schema: it follows containers, keys
/// and elements to the place of each value, and holds the strings the schema says to show only whole.
/// It is fed the strict JSON text a repair writes (string content JSON-escaped), one token at a time.
///
/// It lives here, in the crate built for size, rather than beside the stream parser that calls it: it
/// decodes keys and coerces strings with this crate's own readers.
#[derive(Debug)]
pub struct Walk {
    schema: SharedSchema,
    /// Coercion rules extraction must not apply.
    forbid: RuleSet,
    /// The place of each open container, and for an array how many elements it has.
    places: Vec<(Place, usize)>,
    /// The key just read, decoded.
    key: String,
    /// The open string, held until complete: its text so far (JSON-escaped), and the type it is
    /// coerced toward then.
    held: Option<(Vec<u8>, Option<Kind>)>,
}

/// What a held string, now complete, is shown as.
#[derive(Debug, PartialEq, Eq)]
pub enum Released {
    /// The string, with this JSON-escaped content.
    String(Vec<u8>),
    /// The number or boolean it was coerced to, as JSON text.
    Scalar(String),
}

/// Marks an object on the stack of places (arrays count their elements there).
const OBJECT: usize = usize::MAX;

impl Walk {
    /// A walk by `schema`, coercing as extraction does under the rules not in `forbid`.
    pub fn new(schema: SharedSchema, forbid: RuleSet) -> Walk {
        Walk {
            schema,
            forbid,
            places: Vec::new(),
            key: String::new(),
            held: None,
        }
    }

    /// Forgets the value: the next one is a new root.
    pub fn reset(&mut self) {
        self.places.clear();
        self.key.clear();
        self.held = None;
    }

    /// The place of the next value (counting it, in an array).
    #[inline(never)]
    fn next_place(&mut self) -> Place {
        match self.places.last_mut() {
            None => self.schema.root_place(),
            Some((at, count)) if *count != OBJECT => {
                *count += 1;
                self.schema.element_place(at, *count - 1)
            }
            Some((at, _)) => self.schema.member_place(at, &self.key),
        }
    }

    /// An object (`object`) or array starts as the next value.
    #[inline(never)]
    pub fn open(&mut self, object: bool) {
        let place = self.next_place();
        self.places.push((place, if object { OBJECT } else { 0 }));
    }

    /// The innermost container is complete.
    pub fn close(&mut self) {
        self.places.pop();
    }

    /// The root becomes the first element of a new, unconstrained root array.
    pub fn wrap(&mut self) {
        self.places.insert(0, (Place::default(), 1));
    }

    /// The next value is the member with this key (JSON-escaped).
    #[inline(never)]
    pub fn key(&mut self, escaped: &[u8]) {
        self.key = decode(escaped);
    }

    /// A number or literal is the next value.
    #[inline(never)]
    pub fn scalar(&mut self) {
        self.next_place();
    }

    /// A string starts as the next value, with this content so far: whether it is held until complete
    /// (then [`Self::hold`] takes the rest, and [`Self::release`] gives what to show).
    #[inline(never)]
    pub fn string_starts(&mut self, escaped: &[u8]) -> bool {
        let place = self.next_place();
        let to = match self.schema.string_view(&place, self.forbid) {
            StringView::Grow => return false,
            StringView::Whole => None,
            StringView::Coerced(kind) => Some(kind),
        };
        self.held = Some((escaped.to_vec(), to));
        true
    }

    /// Whether the open string is held.
    pub fn holds(&self) -> bool {
        self.held.is_some()
    }

    /// More content (JSON-escaped) of the held string.
    pub fn hold(&mut self, escaped: &[u8]) {
        if let Some((text, _)) = &mut self.held {
            text.extend_from_slice(escaped);
        }
    }

    /// The held string is complete: what to show, if one was held.
    #[inline(never)]
    pub fn release(&mut self) -> Option<Released> {
        let (text, to) = self.held.take()?;
        if let Some(to) = to {
            let v = self.schema.coerce_string(&decode(&text), to, self.forbid);
            if !matches!(v, Value::String(_)) {
                return Some(Released::Scalar(v.to_json()));
            }
        }
        Some(Released::String(text))
    }
}

/// JSON-escaped string content, decoded (content that is not JSON is taken as it is, or as nothing).
fn decode(escaped: &[u8]) -> String {
    let text = core::str::from_utf8(escaped).unwrap_or_default();
    if !escaped.contains(&b'\\') {
        return text.to_owned();
    }
    match &Value::parse(&cat!("\"", text, "\""), 1) {
        Ok(Value::String(s)) => s.clone(),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CompileOptions;

    fn schema(text: &str) -> Schema {
        Schema::compile(&Value::parse(text, 64).unwrap(), &CompileOptions::default()).unwrap()
    }

    #[test]
    fn places_follow_properties_items_refs_and_branches() {
        let s = schema(
            r##"{"properties": {"action": {"$ref": "#/$defs/action"}, "speech": {"type": "string"},
                 "steps": {"items": {"anyOf": [{"enum": ["north", "south"]}, {"type": "number"}]}},
                 "pair": {"prefixItems": [{"type": "integer"}], "items": {"const": "x"}}},
                "additionalProperties": {"type": "boolean"},
                "$defs": {"action": {"enum": ["attack", "defend"]}}}"##,
        );
        let none = RuleSet::default();
        let root = s.root_place();
        let view = |p: &Place| s.string_view(p, none);
        assert_eq!(view(&s.member_place(&root, "action")), StringView::Whole);
        assert_eq!(view(&s.member_place(&root, "speech")), StringView::Grow);
        assert_eq!(
            view(&s.member_place(&root, "other")),
            StringView::Coerced(Kind::Boolean)
        );
        let steps = s.member_place(&root, "steps");
        // One branch is an enum, the other a number, and no `type` allows a string: held, and coerced
        // toward a number when complete (`"north"` does not read as one and stays a string).
        assert_eq!(
            view(&s.element_place(&steps, 4)),
            StringView::Coerced(Kind::Number)
        );
        let pair = s.member_place(&root, "pair");
        assert_eq!(
            view(&s.element_place(&pair, 0)),
            StringView::Coerced(Kind::Integer)
        );
        assert_eq!(view(&s.element_place(&pair, 1)), StringView::Whole);
        // Unconstrained places: inside a string-typed member, and under no schema at all.
        assert_eq!(
            view(&s.member_place(&s.member_place(&root, "speech"), "x")),
            StringView::Grow
        );
        assert_eq!(view(&Place::default()), StringView::Grow);
    }

    #[test]
    fn a_string_type_anywhere_keeps_strings_and_forbidden_rules_fall_back() {
        let s = schema(
            r#"{"properties": {"x": {"type": ["number", "null"]}, "y": {"type": ["integer", "string"]},
                           "z": {"anyOf": [{"type": "boolean"}, {"const": "maybe"}]}}}"#,
        );
        let root = s.root_place();
        let none = RuleSet::default();
        assert_eq!(
            s.string_view(&s.member_place(&root, "x"), none),
            StringView::Coerced(Kind::Number)
        );
        assert_eq!(
            s.string_view(&s.member_place(&root, "y"), none),
            StringView::Grow
        );
        let z = s.member_place(&root, "z");
        assert_eq!(s.string_view(&z, none), StringView::Coerced(Kind::Boolean));
        let forbid = RuleSet::from_codes("string_to_boolean");
        assert_eq!(s.string_view(&z, forbid), StringView::Whole);
    }

    #[test]
    fn complete_strings_are_coerced_as_extraction_coerces_them() {
        let s = schema("{}");
        let none = RuleSet::default();
        let json = |text: &str, to: Kind| s.coerce_string(text, to, none).to_json();
        assert_eq!(json(" 12 ", Kind::Integer), "12");
        assert_eq!(json("2.5", Kind::Integer), "\"2.5\"");
        assert_eq!(json("2.5", Kind::Number), "2.5");
        assert_eq!(json("TRUE", Kind::Boolean), "true");
        assert_eq!(json("yes", Kind::Boolean), "\"yes\"");
        assert_eq!(
            s.coerce_string(
                "12",
                Kind::Integer,
                RuleSet::from_codes("string_to_integer")
            )
            .to_json(),
            "\"12\""
        );
    }
}
