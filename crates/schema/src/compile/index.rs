//! The index of a schema's documents: drafts and vocabularies, every resource (`$id`), anchor
//! (`$anchor`, `$dynamicAnchor`, `#name` ids of older drafts) and subschema scope, and resolving a
//! reference to a location. Iterative over nesting.

use super::{at_pointer, invalid, Compiler, Draft, Loc, SchemaError, Scope};
use crate::prelude::*;
use crate::sub;
use crate::uri::{percent_decode, resolve, split_fragment};
use crate::value::{push_pointer, Value};
use alloc::rc::Rc;

use Draft::{Draft2019, Draft2020, Draft4, Draft6, Draft7};

/// Keywords whose value is one subschema, with the first and last draft that has them.
const SINGLE_KEYWORDS: [(&str, Draft, Draft); 12] = [
    ("additionalItems", Draft4, Draft2019),
    ("additionalProperties", Draft4, Draft2020),
    ("not", Draft4, Draft2020),
    ("items", Draft4, Draft2020),
    ("contains", Draft6, Draft2020),
    ("propertyNames", Draft6, Draft2020),
    ("if", Draft7, Draft2020),
    ("then", Draft7, Draft2020),
    ("else", Draft7, Draft2020),
    ("unevaluatedItems", Draft2019, Draft2020),
    ("unevaluatedProperties", Draft2019, Draft2020),
    ("contentSchema", Draft2019, Draft2020),
];

/// Keywords whose value is one subschema in draft `d`.
fn single_keywords(d: Draft) -> impl Iterator<Item = &'static str> {
    SINGLE_KEYWORDS
        .into_iter()
        .filter(move |&(_, first, last)| first <= d && d <= last)
        .map(|(k, _, _)| k)
}

/// Keywords whose value is an array of subschemas.
fn array_keywords(d: Draft) -> &'static [&'static str] {
    if d == Draft::Draft2020 {
        &["allOf", "anyOf", "oneOf", "prefixItems"]
    } else {
        &["allOf", "anyOf", "oneOf", "items"]
    }
}

/// Keywords whose value maps names to subschemas.
fn map_keywords(d: Draft) -> &'static [&'static str] {
    if d >= Draft::Draft2019 {
        &[
            "properties",
            "patternProperties",
            "$defs",
            "definitions",
            "dependentSchemas",
        ]
    } else {
        &[
            "properties",
            "patternProperties",
            "definitions",
            "dependencies",
        ]
    }
}

impl Compiler<'_> {
    /// The draft a schema object declares with `$schema`, and whether its validation vocabulary is on.
    pub(super) fn declared_draft(
        &self,
        v: &Value,
        inherited: Draft,
        at: &str,
    ) -> Result<(Draft, bool), SchemaError> {
        let Some(meta) = v.get("$schema") else {
            return Ok((inherited, true));
        };
        let Some(uri) = meta.as_str() else {
            return Err(invalid(
                "invalid_schema",
                "$schema must be a string".into(),
                at,
            ));
        };
        if let Some(d) = Draft::from_meta_uri(uri) {
            return Ok((d, true));
        }
        // A custom meta-schema registered as a remote: its own $schema gives the draft, its
        // $vocabulary which keywords apply.
        let (key, _) = split_fragment(uri);
        let doc = self.docs.iter().find(|(u, _)| split_fragment(u).0 == key);
        let Some((_, metaschema)) = doc else {
            return Err(invalid(
                "unsupported",
                cat!(
                    "unknown $schema '",
                    uri,
                    "': not a supported draft or registered meta-schema"
                ),
                at,
            ));
        };
        let draft = match metaschema
            .get("$schema")
            .and_then(Value::as_str)
            .and_then(Draft::from_meta_uri)
        {
            Some(d) => d,
            None => {
                return Err(invalid(
                    "unsupported",
                    cat!("meta-schema '", uri, "' is not based on a supported draft"),
                    at,
                ))
            }
        };
        let mut validation = true;
        if let Some(Value::Object(vocab)) = metaschema.get("$vocabulary") {
            validation = false;
            for (name, required) in vocab {
                let known = [
                    "core",
                    "applicator",
                    "unevaluated",
                    "validation",
                    "meta-data",
                    "format-annotation",
                    "format-assertion",
                    "content",
                    "format",
                ]
                .iter()
                .any(|v| name.ends_with(&cat!("/vocab/", v)));
                if name.ends_with("/vocab/validation") {
                    validation = true;
                } else if !known && matches!(required, Value::Bool(true)) {
                    return Err(invalid(
                        "unsupported",
                        cat!(
                            "meta-schema '",
                            uri,
                            "' requires the unknown vocabulary '",
                            name,
                            "'"
                        ),
                        at,
                    ));
                }
            }
        }
        Ok((draft, validation))
    }

    /// Keeps `loc` for the maps that point at it; returns its index in `locs`.
    fn intern(&mut self, loc: Loc) -> usize {
        self.locs.push(loc);
        self.locs.len() - 1
    }

    fn set_scope(&mut self, loc: &Loc, scope: &Scope) {
        self.scope_list.push(scope.clone());
        self.scopes.insert(loc.key(), self.scope_list.len() - 1);
    }

    fn resource_id(&mut self, uri: &str) -> usize {
        if let Some(i) = self.resource_list.iter().position(|(u, _)| u == uri) {
            return i;
        }
        self.resource_list.push((uri.to_string(), Vec::new()));
        self.resource_list.len() - 1
    }

    /// Indexes document `doc`: every identifier, anchor and subschema scope. Iterative over nesting.
    pub(super) fn index(
        &mut self,
        doc: usize,
        base: String,
        draft: Draft,
        validation: bool,
    ) -> Result<(), SchemaError> {
        let root_resource = self.resource_id(&base);
        if !self.resources.contains_key(&base) {
            let root = self.intern(Loc {
                doc,
                pointer: String::new(),
            });
            self.resources.insert(base.clone(), root);
        }
        let root_scope = Scope {
            base,
            draft,
            resource: root_resource,
            validation,
        };
        let mut stack: Vec<(String, Scope)> = vec![(String::new(), root_scope)];
        while let Some((pointer, mut scope)) = stack.pop() {
            let root = Rc::clone(&self.docs[doc].1);
            self.index_one(&root, doc, pointer, &mut scope, &mut stack)?;
        }
        Ok(())
    }

    fn index_one(
        &mut self,
        root: &Value,
        doc: usize,
        pointer: String,
        scope: &mut Scope,
        stack: &mut Vec<(String, Scope)>,
    ) -> Result<(), SchemaError> {
        let Some(v) = at_pointer(root, &pointer) else {
            return Ok(());
        };
        let loc = Loc {
            doc,
            pointer: pointer.clone(),
        };
        let Value::Object(_) = v else {
            self.set_scope(&loc, scope);
            return Ok(());
        };
        let at = cat!("#", pointer);
        let id_key = scope.draft.id_keyword();
        let has_ref = v.get("$ref").is_some();
        if let Some(id) = v.get(id_key).and_then(Value::as_str) {
            if !(scope.draft.ref_overrides() && has_ref) {
                if v.get("$schema").is_some() {
                    let (d, validation) = self.declared_draft(v, scope.draft, &at)?;
                    scope.draft = d;
                    scope.validation = validation;
                }
                let resolved = resolve(&scope.base, id);
                let (uri, fragment) = split_fragment(&resolved);
                if scope.draft <= Draft::Draft7
                    && !fragment.is_empty()
                    && uri == split_fragment(&scope.base).0
                    && id.starts_with('#')
                {
                    // repair-free legacy form: `"$id": "#name"` is a plain-name anchor in drafts 4–7
                    let at = self.intern(loc.clone());
                    self.anchors.insert(resolved.clone(), at);
                } else {
                    if !fragment.is_empty() && scope.draft >= Draft::Draft2019 {
                        return Err(invalid(
                            "invalid_schema",
                            cat!("$id '", id, "' must not contain a fragment"),
                            &at,
                        ));
                    }
                    let uri = uri.to_string();
                    let at = self.intern(loc.clone());
                    if scope.draft <= Draft::Draft7 && !fragment.is_empty() {
                        self.anchors.insert(resolved.clone(), at);
                    }
                    scope.base = uri.clone();
                    scope.resource = self.resource_id(&uri);
                    self.resources.insert(uri, at);
                }
            }
        }
        if scope.draft >= Draft::Draft2019 {
            for (key, dynamic) in [("$anchor", false), ("$dynamicAnchor", true)] {
                if let Some(name) = v.get(key).and_then(Value::as_str) {
                    let full = cat!(scope.base, "#", name);
                    let at = self.intern(loc.clone());
                    self.anchors.insert(full, at);
                    if dynamic && scope.draft == Draft::Draft2020 {
                        self.resource_list[scope.resource]
                            .1
                            .push((name.to_string(), loc.clone()));
                    }
                }
            }
            if scope.draft == Draft::Draft2019
                && matches!(v.get("$recursiveAnchor"), Some(Value::Bool(true)))
            {
                self.resource_list[scope.resource]
                    .1
                    .push((String::new(), loc.clone()));
            }
        }
        self.set_scope(&loc, scope);
        let d = scope.draft;
        for k in single_keywords(d) {
            if let Some(Value::Object(_) | Value::Bool(_)) = v.get(k) {
                let mut p = pointer.clone();
                push_pointer(&mut p, k);
                stack.push((p, scope.clone()));
            }
        }
        for &k in array_keywords(d) {
            if let Some(Value::Array(items)) = v.get(k) {
                for i in 0..items.len() {
                    let mut p = pointer.clone();
                    push_pointer(&mut p, k);
                    push_pointer(&mut p, &cat!(i));
                    stack.push((p, scope.clone()));
                }
            }
        }
        for &k in map_keywords(d) {
            if let Some(Value::Object(members)) = v.get(k) {
                for (name, sub) in members {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        let mut p = pointer.clone();
                        push_pointer(&mut p, k);
                        push_pointer(&mut p, name);
                        stack.push((p, scope.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    /// Indexes the remote document registered under `uri` the first time a reference reaches it.
    fn index_remote(&mut self, uri: &str, at: &str) -> Result<(), SchemaError> {
        if self.resources.contains_key(uri) {
            return Ok(());
        }
        let Some(doc) =
            (1..self.docs.len()).find(|&i| self.docs[i].0 == uri && !self.indexed.contains(&i))
        else {
            return Ok(());
        };
        self.indexed.push(doc);
        let root = Rc::clone(&self.docs[doc].1);
        let (draft, validation) = self.declared_draft(&root, self.options.default_draft, at)?;
        self.index(doc, uri.to_string(), draft, validation)
    }

    /// The scope of `loc`: its own, or that of its nearest indexed ancestor (for a `$ref` into a
    /// place that is not a known subschema position).
    pub(super) fn scope_of(&self, loc: &Loc) -> Option<Scope> {
        let mut p = loc.pointer.as_str();
        loop {
            if let Some(s) = self.scopes.get(&Loc::key_of(loc.doc, p)) {
                return Some(self.scope_list[s].clone());
            }
            p = sub(p, ..p.rfind('/')?);
        }
    }

    pub(super) fn location_text(&self, loc: &Loc) -> String {
        if loc.doc == 0 {
            cat!("#", loc.pointer)
        } else {
            cat!(self.docs[loc.doc].0, "#", loc.pointer)
        }
    }

    /// Resolves a reference written at a position with base `base`.
    pub(super) fn resolve_ref(
        &mut self,
        base: &str,
        reference: &str,
        at: &str,
    ) -> Result<Loc, SchemaError> {
        let absolute = resolve(base, reference);
        let (uri, fragment) = split_fragment(&absolute);
        self.index_remote(uri, at)?;
        let unresolved = || {
            invalid(
                "unresolved_ref",
                cat!(
                    "$ref '",
                    reference,
                    "' resolves to '",
                    absolute,
                    "', which is not a known schema"
                ),
                at,
            )
        };
        if fragment.is_empty() || fragment.starts_with('/') {
            let root = &self.locs[self.resources.get(uri).ok_or_else(unresolved)?];
            let pointer = cat!(root.pointer, percent_decode(fragment));
            let loc = Loc {
                doc: root.doc,
                pointer,
            };
            at_pointer(&self.docs[loc.doc].1, &loc.pointer).ok_or_else(unresolved)?;
            return Ok(loc);
        }
        let key = cat!(uri, "#", percent_decode(fragment));
        let at = self.anchors.get(&key).ok_or_else(unresolved)?;
        Ok(self.locs[at].clone())
    }
}
