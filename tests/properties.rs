//! The big guarantees, as properties:
//! - repaired output is always strict JSON (or a typed error), for any input;
//! - valid JSON passes through unchanged;
//! - repair is idempotent: repairing the output changes nothing;
//! - every prefix of a document (truncation) repairs to strict JSON;
//! - nothing panics on arbitrary input.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::string_slice)] // a test may panic: it then fails

use llm_response_sanitizer::{repair, ErrorKind, RepairKind, RepairOptions, Status};
use proptest::prelude::*;
use serde_json::Value;

mod common;
#[path = "common/strategies.rs"]
mod strategies;
use strategies::{json_value, token_soup};

/// Code-like string content with unescaped quotes: words, numbers, operators, quoted words between
/// others, object literals with quoted keys and values, quotes before brackets (`f"{x}"`), and nested
/// calls, indexes and objects whose brackets close; a comma only inside brackets.
fn code_content() -> impl Strategy<Value = String> {
    const WORDS: &[&str] = &["x", "port", "name", "go", "id", "a b", "ok", "f", "map"];
    let word = || prop::sample::select(WORDS);
    let leaf = prop_oneof![
        word().prop_map(String::from),
        word().prop_map(|w| format!(" w \"{w}\" w ")),
        (0u32..100).prop_map(|n| n.to_string()),
        prop::sample::select(&[" = ", " + ", " ; ", " . ", " ! ", " "][..]).prop_map(String::from),
        (word(), word(), 0u32..9)
            .prop_map(|(k, v, n)| format!("{{\"{k}\": \"{v}\", \"{k}2\": {n}}}")),
        (word(), word()).prop_map(|(k, v)| format!("{{\"{k}\": \"{v}\"}}")),
        // A quote before a bracket: an f-string, an attribute holding a template.
        word().prop_map(|w| format!(" f\"{{{w}}}\" w ")),
        word().prop_map(|w| format!(" {w}=\"[{w}]\" w ")),
        // A bracket the content opened before a string's prefix or a bare key, closed right after the
        // quote: `print([f"{x}"], y)`, `fetch("/api", {method: "POST"})`.
        word().prop_map(|w| format!("[f\"{{{w}}}\"]")),
        (
            prop::sample::select(&["x", "port", "method", "id"][..]),
            word()
        )
            .prop_map(|(k, v)| format!("{{{k}: \"{v}\"}}")),
    ];
    leaf.prop_recursive(3, 32, 5, move |inner| {
        let items = || prop::collection::vec(inner.clone(), 1..5);
        prop_oneof![
            items().prop_map(|v| v.concat()),
            (word(), items()).prop_map(|(k, v)| format!("{{\"{k}\": {}}}", v.join(", "))),
            items().prop_map(|v| format!("[{}]", v.join(", "))),
            items().prop_map(|v| format!("f({})", v.join(", "))),
        ]
    })
}

/// Words the parser reads as literals, not as bare strings.
const KEYWORD_LIKE: &[&str] = &["true", "false", "null", "undefined", "nan", "infinity"];

fn opts() -> RepairOptions {
    RepairOptions::default()
}

/// Objects and arrays of arbitrary values: what a response's JSON is.
fn json_container() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::collection::vec(json_value(), 0..6).prop_map(Value::Array),
        prop::collection::vec(("[a-z_$]{1,6}", json_value()), 0..6)
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
    ]
}

/// The records that members written in an array without braces make: a repeat of the first key starts
/// the next record (`["k": 1, "k": 2]` is two).
fn records_of(members: &[(String, Value)]) -> Vec<Value> {
    let mut records: Vec<(&str, serde_json::Map<String, Value>)> = Vec::new();
    for (k, v) in members {
        match records.last_mut() {
            Some((first, r)) if first != k => {
                r.insert(k.clone(), v.clone());
            }
            _ => records.push((k, [(k.clone(), v.clone())].into_iter().collect())),
        }
    }
    records.into_iter().map(|(_, r)| Value::Object(r)).collect()
}

/// Ok(json) must be strict JSON; errors must be typed (no panic got us here).
fn assert_parses(input: &str) -> Option<String> {
    match repair(input, &opts()) {
        Ok(out) => {
            // The JSON grammar, checked without building numbers: `1e999` is valid JSON (JSON.parse
            // reads Infinity) that `serde_json::Value` refuses as out of range.
            let parsed: Result<serde::de::IgnoredAny, _> = serde_json::from_str(&out.json);
            assert!(
                parsed.is_ok(),
                "output is not JSON: {:?}\ninput: {:?}",
                out.json,
                input
            );
            Some(out.json)
        }
        Err(e) => {
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::NoJson | ErrorKind::DepthLimitExceeded { .. }
                ),
                "unexpected error {e} for {input:?}"
            );
            None
        }
    }
}

/// `items` between `open` and `close`, separated by commas: on one line, or one per line and indented.
fn bracketed(open: char, items: &[String], close: char, pretty: bool) -> String {
    if pretty {
        format!("{open}\n  {}\n{close}", items.join(",\n  "))
    } else {
        format!("{open}{}{close}", items.join(", "))
    }
}

/// An object's members `"{k}{j}": "{v}"` as written (without braces) and as values, the last one's value
/// the number `n` instead when `number_last`.
fn members_of(pairs: &[(String, String)], number_last: bool, n: u32) -> (String, Value) {
    let mut map = serde_json::Map::new();
    let mut written = Vec::new();
    for (j, (k, v)) in pairs.iter().enumerate() {
        let key = format!("{k}{j}");
        if number_last && j + 1 == pairs.len() {
            written.push(format!("\"{key}\": {n}"));
            map.insert(key, Value::from(n));
        } else {
            written.push(format!("\"{key}\": \"{v}\""));
            map.insert(key, Value::from(v.as_str()));
        }
    }
    (written.join(", "), Value::Object(map))
}

/// `v` as Python 2's `repr` writes it, every string (keys too) with the prefix `prefix` (`u'text'`):
/// single quotes, a `'` inside escaped, a `"` inside not; `True`, `False`, `None`.
fn python_repr(v: &Value, prefix: &str) -> String {
    let string = |t: &str| {
        let body = serde_json::to_string(t).unwrap();
        let body = body[1..body.len() - 1]
            .replace("\\\"", "\"")
            .replace('\'', "\\'");
        format!("{prefix}'{body}'")
    };
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(t) => string(t),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|x| python_repr(x, prefix)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, x)| format!("{}: {}", string(k), python_repr(x, prefix)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

/// `written` (a value as a model wrote it, `value` what it means) as an array's item between two others,
/// or as a member of an object with another after it; with the value the repair must give.
fn member_or_item(written: &str, value: Value, in_array: bool) -> (String, Value) {
    if in_array {
        (
            format!("[\"x\", {written}, 2]"),
            serde_json::json!(["x", value, 2]),
        )
    } else {
        (
            format!("{{\n  \"code\": {written},\n  \"n\": 1\n}}"),
            serde_json::json!({"code": value, "n": 1}),
        )
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        // PROPTEST_CASES raises the count for long runs; 2,000 keeps `npm test` quick.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_text_gives_json_or_a_typed_error(s in any::<String>()) {
        assert_parses(&s);
    }

    #[test]
    fn token_soup_gives_json_or_a_typed_error(s in token_soup(60)) {
        assert_parses(&s);
    }

    #[test]
    fn repair_is_idempotent(s in token_soup(60)) {
        if let Some(json) = assert_parses(&s) {
            let again = repair(&json, &opts()).expect("repaired output repairs again");
            prop_assert_eq!(again.status, Status::Valid);
            prop_assert_eq!(again.json, json);
        }
    }

    #[test]
    fn valid_json_passes_through(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { serde_json::to_string(&v).unwrap() };
        let padded = format!(" \n{text}\t ");
        let out = repair(&padded, &opts()).unwrap();
        prop_assert_eq!(out.status, Status::Valid);
        prop_assert_eq!(&out.json, &text);
        prop_assert!(out.repairs.is_empty());
    }

    #[test]
    fn containers_survive_being_embedded_in_prose(v in json_container()) {
        let text = serde_json::to_string_pretty(&v).unwrap();
        let response = format!("<think>plan {{\"x\": 1}}</think>\nSure! Here it is:\n```json\n{text}\n```\nAnything else?");
        let out = repair(&response, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, v);
    }

    /// Pretty-printed JSON whose line breaks and indenting tabs were written as `\n` and `\t` (two
    /// characters each) and whose quotes were not escaped, alone or after prose: the value it was, the
    /// strings' own escapes (`\"`, `\\`, `\n`) kept.
    #[test]
    fn escaped_line_breaks_around_plain_quotes_are_whitespace(
        v in json_container(),
        tabs in any::<bool>(),
        prose in any::<bool>(),
    ) {
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        // A line's indent is never in a string: pretty JSON writes no raw line break in one.
        let lines: Vec<String> = pretty
            .lines()
            .map(|l| {
                let body = l.trim_start_matches(' ');
                let indent = l.len() - body.len();
                if tabs { format!("{}{body}", "\\t".repeat(indent / 2)) } else { l.to_string() }
            })
            .collect();
        let escaped = lines.join("\\n");
        let text = if prose { format!("Here it is: {escaped}") } else { escaped };
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, v, "{}", text);
    }

    /// The rest of a response whose `{` was written into the request to start the reply (a prefill): an
    /// object's members without their opening brace, whole or cut off after a member, are that object.
    #[test]
    fn an_object_without_its_opening_brace_is_that_object(
        members in prop::collection::vec(("[a-z_$]{1,6}", json_value()), 1..6),
        pretty in any::<bool>(),
        cut in any::<bool>(),
    ) {
        let v = Value::Object(members.into_iter().collect());
        let whole = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { serde_json::to_string(&v).unwrap() };
        let body = &whole[1..];
        // Cut off before the closing brace: the members that follow the first say what it is.
        let text = if cut && v.as_object().unwrap().len() > 1 { body.trim_end_matches([' ', '\n', '}']) } else { body };
        let out = repair(text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, v, "{}", text);
        prop_assert_eq!(out.repairs[0].kind, RepairKind::MissingBracket);
    }

    /// A member's number followed on its line by words (a unit, a currency, the rest of a phone number, a
    /// percent sign, a remark in parentheses, a range or a sum) is one string with them, first, in the middle or last of its object, compact or pretty; the member
    /// after it is kept. Read as a key without a value, the words were lost.
    #[test]
    fn a_members_number_with_words_after_it_is_one_string(
        number in "[+-]?[0-9]{1,4}(\\.[0-9]{1,2})?",
        words in prop::collection::vec("([a-zA-Z°€µ一-龥][a-zA-Z0-9%]{0,5}|[0-9]{3,4}|%|\\(approx\\)|[-+*/=] [0-9]{1,3})", 1..4),
        place in 0u8..3,
        pretty in any::<bool>(),
        n in 0u32..1000,
    ) {
        let written = format!("{number} {}", words.join(" "));
        let (before, after) = match place {
            0 => ("", format!(", \"n\": {n}")),
            1 => ("\"m\": true, ", format!(", \"n\": {n}")),
            _ => ("\"m\": true, ", String::new()),
        };
        let mut text = format!("{{{before}\"k\": {written}{after}}}");
        if pretty {
            text = text.replace('{', "{\n  ").replace(", ", ",\n  ").replace('}', "\n}");
        }
        let mut want = serde_json::Map::new();
        if place > 0 {
            want.insert("m".into(), Value::Bool(true));
        }
        want.insert("k".into(), Value::String(written.clone()));
        if place < 2 {
            want.insert("n".into(), n.into());
        }
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, Value::Object(want), "{}", text);
        prop_assert!(out.repairs.iter().all(|r| r.kind == RepairKind::UnquotedString), "{:?}", out.repairs);
    }

    /// An array's number followed on its line by words that start with a letter (`[2 eggs, 1 cup
    /// flour]`, `[20 °C]`) is one string with them, compact or pretty. Read as the next item, the words
    /// split it in two.
    #[test]
    fn an_items_number_with_words_after_it_is_one_string(
        items in prop::collection::vec(("[+-]?[0-9]{1,3}(\\.[0-9])?", "[a-zA-Z°µ一-龥][a-zA-Z]{0,5}( [a-z%]{1,5}){0,2}"), 1..4),
        pretty in any::<bool>(),
    ) {
        let written: Vec<String> = items.iter().map(|(n, w)| format!("{n} {w}")).collect();
        let text = format!("{{\"items\": {}}}", bracketed('[', &written, ']', pretty));
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"items": written}), "{}", text);
    }

    /// Members written with `=` or `=>` for their colons (Lua tables, Python's keyword arguments, Ruby and
    /// PHP hashes), keys quoted or bare, are those members. `{"a" = 1}` was `{}` before.
    #[test]
    fn keys_written_with_equals_signs_or_arrows_keep_their_values(
        members in prop::collection::vec(("[a-z_][a-z0-9_]{0,5}", json_value()), 1..5),
        sep in prop::sample::select(vec![" = ", "=", " => ", "=>"]),
        quoted in any::<bool>(),
    ) {
        let v = Value::Object(members.into_iter().collect());
        let body: Vec<String> = v.as_object().unwrap().iter().map(|(k, x)| {
            let key = if quoted { format!("\"{k}\"") } else { k.clone() };
            format!("{key}{sep}{x}")
        }).collect();
        let text = format!("{{{}}}", body.join(", "));
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, v, "{}", text);
    }

    /// Bare keys of several words (`Favorite Color: "blue"`), in an object whose keys are bare, are those
    /// keys: the string before one ends there, compact or pretty. They were read as the string's content.
    #[test]
    fn bare_keys_of_several_words_keep_their_members(
        members in prop::collection::vec(("[A-Za-z][a-z]{0,5}( [A-Za-z][a-z]{0,5}){0,2}", json_value()), 1..5),
        pretty in any::<bool>(),
    ) {
        let v = Value::Object(members.into_iter().collect());
        let body: Vec<String> = v.as_object().unwrap().iter().map(|(k, x)| format!("{k}: {x}")).collect();
        let text = bracketed('{', &body, '}', pretty);
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, v, "{}", text);
    }

    /// Structural slips (issue 23) lose nothing: quoted JSON pasted into a string without escaping.
    #[test]
    fn json_pasted_unescaped_into_a_string_stays_in_it(
        before in "[a-z]{1,8}( [a-z]{1,8})?",
        inner in prop::collection::vec(("[a-z]{1,6}", "[a-z]{1,6}( [a-z]{1,6})?"), 1..4),
        array in any::<bool>(),
        after in "(, [a-z]{1,8}| [a-z]{1,8})?",
        n in 0u32..1000,
    ) {
        let pasted = if array {
            let items: Vec<String> = inner.iter().map(|(_, v)| format!("\"{v}\"")).collect();
            format!("[{}]", items.join(", "))
        } else {
            let members: Vec<String> = inner.iter().map(|(k, v)| format!("\"{k}\": \"{v}\"")).collect();
            format!("{{{}}}", members.join(", "))
        };
        let content = format!("{before} {pasted}{after}");
        let text = format!("{{\"note\": \"{content}\", \"n\": {n}}}");
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"note": content, "n": n}), "{}", text);
    }

    /// Code a model writes into a string without escaping its quotes (calls, indexes, object literals
    /// with quoted keys and values, quoted words between others), its brackets balanced, stays in the
    /// string, and the members and items around it are kept: in an object, an array of objects and an
    /// object inside another, first or last in its object.
    #[test]
    fn code_with_unescaped_quotes_stays_in_its_string(
        code in code_content(),
        shape in 0u8..3,
        last in any::<bool>(),
        n in 0u32..1000,
    ) {
        let content = format!("a {code} z");
        let member = if last {
            format!("{{\"n\": {n}, \"code\": \"{content}\"}}")
        } else {
            format!("{{\"code\": \"{content}\", \"n\": {n}}}")
        };
        let value = serde_json::json!({"code": content, "n": n});
        let (text, want) = match shape {
            0 => (member, value),
            1 => (format!("[{member}, {{\"last\": 1}}]"), serde_json::json!([value, {"last": 1}])),
            _ => (
                format!("{{\"outer\": {member}, \"after\": [1]}}"),
                serde_json::json!({"outer": value, "after": [1]}),
            ),
        };
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A Python tuple of any values (`(1, "a", None)`, `(x,)`, `()`) is the array of those values, and
    /// the members after it are kept; one value in parentheses without a comma is that value.
    #[test]
    fn a_python_tuple_is_the_array_of_its_items(
        items in prop::collection::vec(json_value(), 0..6),
        spaced in any::<bool>(),
        trailing in any::<bool>(),
        n in 0u32..1000,
    ) {
        let texts: Vec<String> = items.iter().map(|v| serde_json::to_string(v).unwrap()).collect();
        let sep = if spaced { " , " } else { ", " };
        // A one-item tuple needs its comma in Python; any other may have one.
        let comma = if items.len() == 1 || (trailing && !items.is_empty()) { "," } else { "" };
        let text = format!("{{\"t\": ({}{comma}), \"n\": {n}}}", texts.join(sep));
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"t": items, "n": n}), "{}", text);
        // Without its comma, one item in parentheses is that item (`(1)` is 1 in Python).
        if let [item] = items.as_slice() {
            let text = format!("{{\"t\": ({}), \"n\": {n}}}", texts[0]);
            let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
            prop_assert_eq!(got, serde_json::json!({"t": item, "n": n}), "{}", text);
        }
    }

    /// A value as Python 2's `repr` writes it (`{u'name': u'Ada', u'tags': [u'a']}`), or Python 3's with
    /// bytes (`b'data'`): the prefixes are dropped and the strings read as they are written.
    #[test]
    fn a_python_repr_with_string_prefixes_is_its_value(
        v in json_value(),
        prefix in prop::sample::select(vec!["u", "U", "b", "B"]),
    ) {
        let text = format!("{{'v': {}, 'n': 1}}", python_repr(&v, prefix));
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"v": v, "n": 1}), "{}", text);
    }

    /// A Python set whose first item is a number or a single-quoted string (`{'a', 'b'}`, `{3, 1}`) is
    /// the array of its items, and the members after it are kept.
    #[test]
    fn a_python_set_is_the_array_of_its_items(
        first in prop_oneof![
            any::<i64>().prop_map(Value::from),
            "[a-zA-Z0-9 \"\\\\/\n\té😀{}\\[\\],:']{0,12}".prop_map(Value::String),
        ],
        rest in prop::collection::vec(json_value(), 0..5),
        trailing in any::<bool>(),
        n in 0u32..1000,
    ) {
        let items: Vec<Value> = std::iter::once(first).chain(rest).collect();
        let mut texts: Vec<String> = items.iter().map(|v| serde_json::to_string(v).unwrap()).collect();
        if let Value::String(first) = &items[0] {
            // As Python writes it: single quotes, a `'` inside escaped, a `\"` inside not.
            let body = serde_json::to_string(first).unwrap();
            let body = body[1..body.len() - 1].replace("\\\"", "\"").replace('\'', "\\'");
            texts[0] = format!("'{body}'");
        }
        let comma = if trailing { "," } else { "" };
        let text = format!("{{\"s\": {{{}{comma}}}, \"n\": {n}}}", texts.join(", "));
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"s": items, "n": n}), "{}", text);
    }

    /// A document whose colons and commas between tokens are full-width (`：`, `，`, as models writing
    /// Chinese or Japanese put them; or `、`, the ideographic comma), any of them, repairs to the value the
    /// ASCII ones give; the same characters inside its strings stay content.
    #[test]
    fn fullwidth_colons_and_commas_between_tokens_read_as_ascii(
        value in json_container(),
        wide in prop::collection::vec(any::<bool>(), 64),
        comma in prop::sample::select(vec!['，', '、']),
        spaced in any::<bool>(),
    ) {
        let json = serde_json::to_string(&value).unwrap();
        let (mut text, mut in_string, mut escaped, mut n) = (String::new(), false, false, 0);
        for c in json.chars() {
            let separator = !in_string && matches!(c, ':' | ',');
            if in_string {
                in_string = escaped || c != '"';
                escaped = !escaped && c == '\\';
            } else {
                in_string = c == '"';
            }
            if separator && wide[n % wide.len()] {
                text.push(if c == ':' { '：' } else { comma });
            } else {
                text.push(c);
            }
            if separator {
                n += 1;
                if spaced {
                    text.push(' ');
                }
            }
        }
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, value, "{}", text);
    }

    /// Prose in a straight-quoted string keeps its typographic quotes (`“yes” “no”`, `it’s`, `‘best’ —`)
    /// wherever what follows one cannot end the string, or it closes a quote the content opened
    /// (`“yes”, then`), in objects and arrays, single- or double-quoted,
    /// with raw line breaks between words (a line may end and begin with a quoted word); and when the
    /// text is cut off after any word, the string keeps every word.
    #[test]
    fn typographic_quotes_inside_straight_strings_are_content(
        words in prop::collection::vec(
            prop_oneof![
                "[a-z]{1,6}",
                "[a-z]{1,6}".prop_map(|w| format!("“{w}”")),
                "[a-z]{1,6}".prop_map(|w| format!("‘{w}’")),
                // A quote the content opened, closed before a comma or a colon (`“yes”, then`).
                ("[a-z]{1,6}", "[,:;]").prop_map(|(w, p)| format!("“{w}”{p}")),
                ("[a-z]{1,6}", "[,:;]").prop_map(|(w, p)| format!("‘{w}’{p}")),
                "[a-z]{1,4}".prop_map(|w| format!("{w}’s")),
                Just("—".to_string()),
                Just("…".to_string()),
            ],
            1..8,
        ),
        breaks in prop::collection::vec(any::<bool>(), 8),
        single in any::<bool>(),
        in_array in any::<bool>(),
        n in 0u32..1000,
    ) {
        // A quote ends the string only at its end (the last word is never one that ends in a quote).
        let mut content = String::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                content.push(if breaks[i % breaks.len()] { '\n' } else { ' ' });
            }
            content.push_str(w);
        }
        let cut_words = content.clone();
        content.push_str(" end");
        let quoted = if single { format!("'{content}'") } else { format!("\"{content}\"") };
        let text = if in_array {
            format!("{{\"s\": [{quoted}, {n}], \"n\": {n}}}")
        } else {
            format!("{{\"s\": {quoted}, \"n\": {n}}}")
        };
        let out = repair(&text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        let s = if in_array { serde_json::json!([content, n]) } else { Value::String(content) };
        prop_assert_eq!(got, serde_json::json!({"s": s, "n": n}), "{}", text);

        let cut = &text[..text.rfind(" end").unwrap()];
        let got: Value = serde_json::from_str(&repair(cut, &opts()).unwrap().json).unwrap();
        let s = if in_array { serde_json::json!([cut_words]) } else { Value::String(cut_words) };
        prop_assert_eq!(got, serde_json::json!({"s": s}), "{}", cut);
    }

    /// A line comment before a closer on its line (`"a": 1 // note }, "b": 2`) keeps every value.
    #[test]
    fn a_line_comment_before_a_closer_keeps_every_value(
        v in json_container(),
        pick in any::<prop::sample::Index>(),
        hash in any::<bool>(),
        note in "[a-z]{1,8}( [a-z]{1,8})?",
    ) {
        let text = serde_json::to_string(&v).unwrap();
        // The closers outside strings, as offsets.
        let (mut closers, mut in_str, mut esc) = (Vec::new(), false, false);
        for (i, b) in text.bytes().enumerate() {
            match b {
                _ if esc => esc = false,
                b'\\' if in_str => esc = true,
                b'"' => in_str = !in_str,
                b'}' | b']' if !in_str => closers.push(i),
                _ => {}
            }
        }
        let at = closers[pick.index(closers.len())];
        // Where a value may start, `#` starts one (`["#fff"]`).
        let mark = if hash && !text[..at].ends_with('[') { "#" } else { "//" };
        let commented = format!("{} {mark} {note} {}", &text[..at], &text[at..]);
        let out = repair(&commented, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        prop_assert_eq!(got, v, "{}", commented);
    }

    /// The same records with bare keys (`"items": [sku: "A", qty: 2, sku: "B", qty: 1]`): a word before a
    /// colon with a value after it is a record's key, and a repeat of the first starts the next record.
    #[test]
    fn bare_keys_where_values_stand_make_records(
        record in prop::collection::vec(
            // Short keys repeat often: a repeat of the first starts the next record.
            (prop_oneof!["[a-c]{1,2}", "[a-z_][a-zA-Z0-9_]{0,7}"].prop_filter("a literal is a value", |k| {
                !["true", "false", "null", "undefined", "nan", "none", "infinity"]
                    .contains(&k.to_ascii_lowercase().as_str())
            }), json_value()),
            1..5,
        ),
    ) {
        let members: Vec<String> = record.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let items = records_of(&record);
        let text = format!("{{\"items_list\": [{}]}}", members.join(", "));
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"items_list": items}), "{}", text);
    }

    /// A record written in an array without its braces (`"items": ["sku": "A", "qty": 2]`, as a model
    /// that forgot them writes it) is the array holding the record, a repeat of its first key starting
    /// the next record, and the items and members after it are kept; a member whose key is written
    /// again where its value starts (`{"k": "k": 1}`) keeps its value.
    #[test]
    fn keys_where_values_stand_keep_every_member(
        record in prop::collection::vec(("[a-zA-Z0-9 _'é—你🚀:,{}]{1,8}", json_value()), 1..5),
        after in prop::option::of(json_value()),
        echoed in any::<prop::sample::Index>(),
        closed in any::<bool>(),
        n in 0u32..1000,
    ) {
        let members: Vec<String> = record
            .iter()
            .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), v))
            .collect();
        let object = Value::Object(record.iter().cloned().collect());
        let mut items = records_of(&record);
        let mut text = format!("{{\"items_list\": [{}", members.join(", "));
        if closed {
            // Its own `}` closes it as well (`["sku": "A"}]`).
            text.push('}');
        }
        if let Some(v) = after {
            // An item after the record that is not a key ends it.
            if !matches!(v, Value::String(_)) {
                text += &format!(", {v}");
                items.push(v);
            }
        }
        // Later objects at the record's depth are read as objects again: a brace where a key is expected
        // merges the object it opens.
        text += &format!("], \"tail\": {{\"x\": {{\"a\": 1, {{\"b\": 2}}}}}}, \"count_of\": {n}}}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        let tail = serde_json::json!({"x": {"a": 1, "b": 2}});
        prop_assert_eq!(got, serde_json::json!({"items_list": items, "tail": tail, "count_of": n}), "{}", text);

        let i = echoed.index(members.len());
        let mut echoes = members.clone();
        echoes[i] = format!("{}: {}", Value::from(record[i].0.as_str()), echoes[i]);
        let text = format!("{{{}, \"count_of\": {n}}}", echoes.join(", "));
        let mut want = object;
        want["count_of"] = Value::from(n);
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A call with several arguments (`Date(2024, 1, 5)`) is the array of its arguments, and the members
    /// after it are kept.
    #[test]
    fn a_call_with_several_arguments_is_the_array_of_them(
        args in prop::collection::vec(json_value(), 2..6),
        name in "[a-zA-Z_][a-zA-Z0-9_]{0,8}",
        constructor in any::<bool>(),
        in_array in any::<bool>(),
    ) {
        let texts: Vec<String> = args.iter().map(Value::to_string).collect();
        // JavaScript's `new Date(…)` is the same call.
        let new = if constructor { "new " } else { "" };
        let call = format!("{new}{name}({})", texts.join(", "));
        let (text, want) = member_or_item(&call, Value::Array(args), in_array);
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// Quoted words side by side in a member's prose after a comma (`"she said "no", "fine" "run!" and
    /// left"`) stay in the string: a quoted word after a comma is a key with its colon missing (`"b" "y"`)
    /// only when the quoted value after it ends before a `,`, a `}` or a line break. The comma ended the
    /// string before, and the two words were a member. (In an array a quoted item after the comma is the
    /// next item, as `["a", "b"]` needs.)
    #[test]
    fn quoted_words_side_by_side_after_a_comma_stay_in_the_string(
        before in "[A-Za-z]{1,6}( [a-z]{1,6})?",
        words in prop::collection::vec("[a-z]{1,6}[!.?]?", 3),
        after in "[a-z]{1,6}( [a-z]{1,6}){0,2}",
        pretty in any::<bool>(),
    ) {
        let content = format!("{before} \"{}\", \"{}\" \"{}\" {after}", words[0], words[1], words[2]);
        let members = [format!("\"k\": \"{content}\""), "\"n\": 1".to_string()];
        let text = bracketed('{', &members, '}', pretty);
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"k": content, "n": 1}), "{}", text);
    }

    /// A call's bare argument with parentheses of its own (`tzinfo=TzInfo(UTC)` in a pydantic repr's
    /// datetime) is one item: its `)` closes neither the call nor what holds it, and the members after the
    /// call are kept. The first `)` ended the call before, and the next one the object around it.
    #[test]
    fn parentheses_in_a_calls_bare_argument_are_its_own(
        args in prop::collection::vec(json_value(), 1..4),
        word in "[a-z]{1,6}=[A-Z][a-z]{0,5}\\([A-Z]{1,4}\\)",
        n in 0u32..1000,
    ) {
        let mut texts: Vec<String> = args.iter().map(Value::to_string).collect();
        texts.push(word.clone());
        let text = format!("{{\"u\": User(id=1, at=f({})), \"n\": {n}}}", texts.join(", "));
        let mut items = args.clone();
        items.push(Value::String(word));
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"u": {"id": 1, "at": items}, "n": n}), "{}", text);
    }

    /// A call with keyword arguments (`Point(x=1, y=2)`, a dataclass's or a pydantic model's repr) is the
    /// object of its arguments, as a member's value or as items of a list, and what follows it is kept.
    /// Before, its first argument's name became a string and the rest was lost.
    #[test]
    fn a_call_with_keyword_arguments_is_the_object_of_them(
        members in prop::collection::vec(("[a-z_][a-z0-9_]{0,6}", json_value()), 1..5),
        name in "[a-zA-Z_][a-zA-Z0-9_]{0,8}",
        eq in prop::sample::select(vec!["=", " = "]),
        pretty in any::<bool>(),
        in_array in any::<bool>(),
    ) {
        let v = Value::Object(members.into_iter().collect());
        let args: Vec<String> = v.as_object().unwrap().iter().map(|(k, x)| format!("{k}{eq}{x}")).collect();
        let call = format!("{name}{}", bracketed('(', &args, ')', pretty));
        let (text, want) = member_or_item(&call, v, in_array);
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A stray quote right after a number or keyword (`12345",`) changes nothing; bare words after an
    /// array's string item (`["a" in progress, "b"]`) are the next item, also when they end in the quote
    /// whose opening one is missing (`["a" in progress", "b"]`).
    #[test]
    fn stray_quotes_and_bare_words_after_items_keep_every_value(
        v in json_container(),
        marks in prop::collection::vec(any::<bool>(), 32),
        items in prop::collection::vec(
            ("[a-zA-Z0-9 é—你🚀{}\\[\\],:]{0,8}", "[a-z]{1,8}( [a-z]{1,8})?"),
            1..4,
        ),
        n in 0u32..1000,
        closing in any::<bool>(),
    ) {
        let json = v.to_string();
        let (mut text, mut in_string, mut escaped, mut k) = (String::new(), false, false, 0);
        let mut chars = json.chars().peekable();
        while let Some(c) = chars.next() {
            text.push(c);
            if in_string {
                in_string = escaped || c != '"';
                escaped = !escaped && c == '\\';
                continue;
            }
            in_string = c == '"';
            let ends_token = c.is_ascii_alphanumeric() && matches!(chars.peek(), Some(',' | '}' | ']'));
            if ends_token {
                if marks[k % marks.len()] {
                    text.push('"');
                }
                k += 1;
            }
        }
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, v, "{}", text);

        let words: Vec<&str> = items.iter().map(|(_, w)| w.as_str()).collect();
        prop_assume!(words.iter().all(|w| !KEYWORD_LIKE.contains(&w.split(' ').next().unwrap_or(""))));
        let quote = if closing { "\"" } else { "" };
        let written: Vec<String> = items.iter().map(|(s, w)| format!("{} {w}{quote}", Value::from(s.as_str()))).collect();
        let text = format!("{{\"a\": [{}], \"n\": {n}}}", written.join(", "));
        let want: Vec<Value> = items.iter().flat_map(|(s, w)| [Value::from(s.as_str()), Value::from(w.as_str())]).collect();
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"a": want, "n": n}), "{}", text);
    }

    /// Quotes doubled inside a string as CSV writes them (`"say ""hi"" now"`) are one quote each.
    #[test]
    fn csv_doubled_quotes_are_one_quote(
        words in prop::collection::vec(("[a-zA-Z0-9é—你🚀]{1,6}", any::<bool>()), 2..8),
        in_array in any::<bool>(),
        n in 0u32..1000,
    ) {
        let (mut content, mut csv) = (String::new(), String::new());
        for (i, (w, quote)) in words.iter().enumerate() {
            if i > 0 {
                content.push(if *quote { '"' } else { ' ' });
                csv.push_str(if *quote { "\"\"" } else { " " });
            }
            content.push_str(w);
            csv.push_str(w);
        }
        let (text, want) = if in_array {
            (format!("[\"{csv}\", {n}]"), serde_json::json!([content, n]))
        } else {
            (format!("{{\"k\": \"{csv}\", \"n\": {n}}}"), serde_json::json!({"k": content, "n": n}))
        };
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// An array pretty-printed one item to a line keeps every item when the commas at the line ends are
    /// missing: strings holding prose (quoted words, typography) side by side with numbers, keywords,
    /// arrays and objects.
    #[test]
    fn line_items_with_their_commas_missing_keep_every_value(
        items in prop::collection::vec(
            prop_oneof![
                "[a-z]{1,6}( [a-z]{1,6}){0,3}".prop_map(Value::String),
                "[a-z]{1,6}".prop_map(|w| Value::String(format!("say “{w}”, then go"))),
                (-1000i64..1000).prop_map(Value::from),
                prop_oneof![Just(Value::Bool(true)), Just(Value::Bool(false)), Just(Value::Null)],
                "[a-z]{1,4}".prop_map(|w| serde_json::json!([w, 1])),
                "[a-z]{1,4}".prop_map(|w| serde_json::json!({ "k": w })),
            ],
            2..8,
        ),
        commas in prop::collection::vec(any::<bool>(), 8),
    ) {
        let mut text = String::from("{\"items\": [\n");
        for (i, item) in items.iter().enumerate() {
            text.push_str("  ");
            text.push_str(&serde_json::to_string(item).unwrap());
            if i + 1 < items.len() && commas[i] {
                text.push(',');
            }
            text.push('\n');
        }
        text.push_str("]}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({ "items": items }), "{}", text);
    }

    /// A member's bare words written over several lines (a model that forgot the quotes around prose),
    /// quoted phrases and parentheses with commas among them, are one string, line breaks and
    /// indentation included, whatever members follow.
    #[test]
    fn bare_words_over_several_lines_are_one_value(
        lines in prop::collection::vec(
            "[a-zA-Zé你—][a-zA-Z0-9é你— .!?]{0,12}( \"[a-z]{1,5}\"( [a-z]{1,4})?)?",
            1..5,
        ),
        indent in "[ \t]{0,4}",
        signature in "( f\\(([a-z]{1,4}, )?[a-z]{1,4}: [a-z]{1,4}, [a-z]{1,4}: [a-z]{1,4}\\): [a-z]{1,4})?",
        comma in any::<bool>(),
        next in prop_oneof![Just(""), Just("next: 1"), Just("\"next\": [1]"), Just("'next': true")],
    ) {
        // A signature's parentheses hold commas and colons (on the first line: on a later one a colon
        // reads as a key's).
        let mut lines: Vec<String> = lines.iter().map(|l| l.trim_end().to_string()).collect();
        lines[0].push_str(&signature);
        let value = lines.join(&format!("\n{indent}"));
        let mut text = format!("{{\n{indent}text: {value}");
        if !next.is_empty() {
            text.push_str(if comma { ",\n" } else { "\n" });
            text.push_str(&indent);
            text.push_str(next);
        }
        text.push_str("\n}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        let mut want = serde_json::json!({ "text": value });
        if !next.is_empty() {
            want["next"] = if next.ends_with("true") {
                Value::Bool(true)
            } else if next.ends_with(']') {
                serde_json::json!([1])
            } else {
                Value::from(1)
            };
        }
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A value in Python's triple quotes is the text between them as it stands: quotes, apostrophes,
    /// backslashes and line breaks included.
    #[test]
    fn triple_quoted_values_are_their_text(
        content in "[a-z \"'\\\n{}\\[\\],:é你]{0,30}[a-z]",
        in_array in any::<bool>(),
    ) {
        prop_assume!(!content.contains("\"\"\""));
        let (text, want) = member_or_item(&format!("\"\"\"{content}\"\"\""), content.into(), in_array);
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A fenced code block written as a member's or an item's value (`"code": ```python`, its lines, a
    /// closing fence) is the text of its lines: quotes, backticks, brackets and all; the fence's info
    /// string and the closing fence's indentation are not. (A block tagged `json` is the source.)
    #[test]
    fn fenced_code_values_are_their_lines(
        lines in prop::collection::vec("[a-z (){}\\[\\]\"'`=;,:.é你\\\\]{0,16}", 1..5),
        info in prop::sample::select(vec!["", "python", "typescript main.ts"]),
        indent in "[ ]{0,4}",
        in_array in any::<bool>(),
    ) {
        prop_assume!(lines.iter().all(|l| !l.trim_start().starts_with("```")));
        let code = lines.join("\n");
        // An untagged block whose code starts with a bracket is the source (SPEC §2.4).
        prop_assume!(!info.is_empty() || !code.trim_start().starts_with(['{', '[']));
        let (text, want) = member_or_item(&format!("```{info}\n{code}\n{indent}```"), code.into(), in_array);
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A closing reasoning tag inside a string of the JSON is the string's content, with prose or a
    /// fence before the value or none, whatever repair the value needs.
    #[test]
    fn closing_reasoning_tags_in_strings_of_the_value_are_content(
        tag in prop::sample::select(llm_response_sanitizer::REASONING_TAGS.to_vec()),
        words in "[a-z]{1,6}( [a-z]{1,6}){0,3}",
        before in prop::sample::select(vec!["", "Here it is: ", "Sure!\n```json\n", "See [notes] below: "]),
        trailing in any::<bool>(),
    ) {
        let note = format!("{words} {} {words}", tag.1);
        let value = serde_json::json!({ "note": note, "n": [1, 2] });
        let json = serde_json::to_string(&value).unwrap();
        let json = if trailing { format!("{},}}", &json[..json.len() - 1]) } else { json[..json.len() - 1].to_string() };
        let text = format!("{before}{json}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, value, "{}", text);
    }

    /// An untagged block whose code starts with a bracket but does not read as JSON (a TOML table, a C
    /// block, a shell test, a markdown link) gives way to a json block after it; alone, it is still the
    /// source. A json block or an untagged one that reads as JSON before it stays the source.
    #[test]
    fn an_untagged_block_of_other_code_gives_way_to_a_json_block(
        code in prop::sample::select(vec![
            "[server]\nport = 8080", "{ int x = 1; }", "[ -f file ] && echo ok", "[docs](https://x.y)",
            "{{ name }}", "[*] done",
        ]),
        v in json_container(),
        prose in prop::sample::select(vec!["", "And as JSON:\n", "The same — as “JSON”:\n\n"]),
        tag in prop::sample::select(vec!["json", "JSON", "jsonc"]),
    ) {
        let json = serde_json::to_string_pretty(&v).unwrap();
        let text = format!("Here it is in another form:\n```\n{code}\n```\n{prose}```{tag}\n{json}\n```\n");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(&got, &v, "{}", text);
        // A block that reads as JSON first stays the source.
        let first = format!("```\n{json}\n```\n{prose}```{tag}\n[0]\n```\n");
        let got: Value = serde_json::from_str(&repair(&first, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(&got, &v, "{}", first);
        // Alone, the block is read as before.
        let alone = format!("```\n{code}\n```\n");
        let without = repair(&format!("{code}\n"), &opts()).map(|o| o.json);
        prop_assert_eq!(repair(&alone, &opts()).map(|o| o.json).ok(), without.ok(), "{}", alone);
    }

    #[test]
    fn every_prefix_of_a_document_repairs(v in json_container()) {
        let text = serde_json::to_string(&v).unwrap();
        for (i, _) in text.char_indices() {
            assert_parses(&text[..i]);
        }
    }
}

/// Where keys are written loosely (bare, or with `=`), a string that took a quote as content is prose or
/// code, and words with a colon or `=` after its next comma are its own: the string goes on.
#[test]
fn prose_and_code_with_quotes_stay_in_strings_where_keys_are_loose() {
    for (text, want) in [
        (
            r#"{code: "let a = "x", b = "y";", lang: "js"}"#,
            serde_json::json!({"code": "let a = \"x\", b = \"y\";", "lang": "js"}),
        ),
        (
            r#"{note: "He said "stop", then shouted: run", n: 1}"#,
            serde_json::json!({"note": "He said \"stop\", then shouted: run", "n": 1}),
        ),
    ] {
        let out = repair(text, &opts()).unwrap();
        let got: Value = serde_json::from_str(&out.json).unwrap();
        assert_eq!(got, want, "{text}");
    }
}

#[test]
fn deep_nesting_is_a_typed_error_not_a_stack_overflow() {
    let deep = "[".repeat(1_000_000);
    let err = repair(&deep, &opts()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded { limit: 10_000 });
    let ok = "[".repeat(10_000);
    let out = repair(&ok, &opts()).unwrap();
    assert_eq!(out.json.len(), 20_000);
    let big = RepairOptions {
        max_depth: 2_000_000,
        ..opts()
    };
    let out = repair(&format!("{{\"a\":{deep}"), &big).unwrap();
    assert_eq!(out.json.len(), 2_000_006);
}

proptest! {
    /// A value string whose closing quote is missing before the closers that end the text
    /// (`{"a": {"b": "words}}`) ends there, and the closers close: the containers keep every member.
    /// A string that opened a bracket of its own keeps its closers (`"if (x) { go(); }`).
    #[test]
    fn a_closing_quote_missing_before_the_last_closers(
        words in "[a-zA-Z0-9éü—’,.:;!?()-]{1,6}( [a-zA-Z0-9éü—’,.:;!?()-]{1,6}){0,5}",
        path in prop::collection::vec(any::<bool>(), 1..4),
        before in prop::sample::select(vec!["", " ", "  "]),
        between in prop::sample::select(vec!["", " ", "\n"]),
        end in prop::sample::select(vec!["", "\n", " \n"]),
        own_brace in any::<bool>(),
        n in 0u32..1000,
    ) {
        let content = if own_brace { format!("{words} {{ }}") } else { words.clone() };
        // The innermost container first: objects hold the string under "k", arrays after a number.
        let mut text = format!("\"{content}{before}");
        let mut want = Value::from(content.as_str());
        let mut closers = Vec::new();
        for &object in &path {
            if object {
                text = format!("{{\"n\": {n}, \"k\": {text}");
                want = serde_json::json!({"n": n, "k": want});
                closers.push('}');
            } else {
                text = format!("[{n}, {text}");
                want = serde_json::json!([n, want]);
                closers.push(']');
            }
        }
        let closers: Vec<String> = closers.iter().map(char::to_string).collect();
        text += &closers.join(between);
        text += end;
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        if own_brace {
            // The closers stay the string's, and the containers close at the end.
            let mut v = &got;
            for &object in path.iter().rev() {
                v = if object { &v["k"] } else { &v[1] };
            }
            let s = v.as_str().unwrap_or_default();
            prop_assert!(s.starts_with(content.as_str()), "{:?} -> {}", text, got);
        } else {
            prop_assert_eq!(got, want, "{:?}", text);
        }
    }

    /// A container whose last string has a trailing comma and then the closer of the container around it
    /// (`{"tags": ["a", "b",}`, `[{"k": "v",], 2]`, the model forgot one closer or wrote the wrong one):
    /// the string ends at its quote, and every value is kept.
    #[test]
    fn a_closer_of_the_outer_container_after_a_trailing_comma(
        strings in prop::collection::vec("[a-zA-Zé—’ ,.!?-]{0,8}", 1..4),
        outer_object in any::<bool>(),
        space in prop::sample::select(vec!["", " ", "\n", "\n  "]),
        after in any::<bool>(),
        n in 0u32..1000,
    ) {
        let quoted: Vec<String> = strings.iter().map(|s| format!("\"{s}\"")).collect();
        let (inner, inner_value) = if outer_object {
            (format!("[{},", quoted.join(", ")), serde_json::json!(strings))
        } else {
            let members: Vec<String> = quoted.iter().enumerate().map(|(i, q)| format!("\"k{i}\": {q}")).collect();
            let map = strings.iter().enumerate().map(|(i, s)| (format!("k{i}"), Value::from(s.as_str())));
            (format!("{{{},", members.join(", ")), Value::Object(map.collect()))
        };
        let (text, want) = match (outer_object, after) {
            (true, false) => (format!("{{\"n\": {n}, \"x\": {inner}{space}}}"), serde_json::json!({"n": n, "x": inner_value})),
            (true, true) => (
                format!("{{\"n\": {n}, \"x\": {inner}{space}}},{space}\"m\": {n}}}"),
                serde_json::json!({"n": n, "x": inner_value, "m": n}),
            ),
            (false, false) => (format!("[{n}, {inner}{space}]"), serde_json::json!([n, inner_value])),
            (false, true) => (format!("[{n}, {inner}{space}],{space}{n}]"), serde_json::json!([n, inner_value, n])),
        };
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{:?}", text);
    }

    /// A call in code whose string literal is followed by an object literal (`fetch("/api", {method:
    /// "POST"})`) stays in its string in a record of a list, where a whole value after a comma would
    /// start the list's next item if no quote had been taken as content.
    #[test]
    fn a_calls_string_literal_then_an_object_literal_stays_in_a_records_string(
        call in "[a-z]{1,6}",
        arg in "/[a-z]{1,5}",
        key in "[a-z]{1,6}",
        quoted_key in any::<bool>(),
        v in "[A-Z]{1,4}",
        n in 0u32..1000,
    ) {
        let k = if quoted_key { format!("\"{key}\"") } else { key.clone() };
        let code = format!("{call}(\"{arg}\", {{{k}: \"{v}\"}})");
        let text = format!("[{{\"code\": \"{code}\", \"n\": {n}}}, {{\"n\": 2}}]");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!([{"code": code, "n": n}, {"n": 2}]), "{}", text);
    }

    /// A record of a list whose `}` is missing before the list's next item, another record, a list, a
    /// number or a keyword (`[{"i": "x", {"i": "y"}]`, `[{"i": "x", 2]`), or a string that ends the list
    /// (`[{"i": "x", "y"]`), or any item after a record whose last value is a number (`[{"i": 1, "y",
    /// "z"]`): the record closes there and the list keeps every item.
    #[test]
    fn a_record_missing_its_closing_brace_before_the_lists_next_item(
        records in prop::collection::vec(prop::collection::vec(("[a-z]{1,5}", "[a-zA-Zé—’ .!?]{0,3}(“[a-z]{1,4}” )?[a-z]{0,3}"), 1..4), 1..4),
        broken in any::<prop::sample::Index>(),
        number in any::<bool>(),
        next in 0u8..5,
        nested in any::<bool>(),
        space in prop::sample::select(vec!["", " ", "\n  "]),
        n in 0u32..1000,
    ) {
        let at = broken.index(records.len());
        let mut texts = Vec::new();
        let mut items = Vec::new();
        for (i, members) in records.iter().enumerate() {
            // The broken record's last value: a number, or a string.
            let (written, value) = members_of(members, i == at && number, n);
            let close = if i == at { "" } else { "}" };
            texts.push(format!("{{{written}{close}"));
            items.push(value);
            if i == at {
                // The item after it: a record, a list, or a string (only last, unless a number came before).
                let kind = if next == 2 && !number && i + 1 < records.len() { 0 } else { next };
                let (text, value) = match kind {
                    0 => (format!("{{\"k\": {n}}}"), serde_json::json!({"k": n})),
                    1 => (format!("[\"w\", {n}]"), serde_json::json!(["w", n])),
                    2 => (format!("\"item {n}\""), Value::from(format!("item {n}"))),
                    3 => (format!("-{n}.5"), serde_json::json!(-(f64::from(n) + 0.5))),
                    _ => ("null".to_string(), Value::Null),
                };
                texts.push(text);
                items.push(value);
            }
        }
        let list = format!("[{}{space}]", texts.join(&format!(",{space}")));
        let (text, want) = if nested {
            (format!("{{\"list\": {list}, \"n\": {n}}}"), serde_json::json!({"list": items, "n": n}))
        } else {
            (list, Value::Array(items))
        };
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, want, "{:?}", text);
    }

    /// A record of a list whose last member is an object, both `}` missing before the list's next item,
    /// a record or a list (`[{"a": {"i": "x", {"a": …`), with a comma after the last value (or none after
    /// a number, or after a string before a record): both objects close there and the list keeps every
    /// item.
    #[test]
    fn an_object_and_its_record_both_missing_their_closing_braces_before_the_lists_next_item(
        records in prop::collection::vec((prop::collection::vec(("[a-z]{1,5}", "[a-zA-Zé—’ .!?]{0,3}(“[a-z]{1,4}” )?[a-z]{0,3}"), 1..4), any::<bool>()), 2..5),
        broken in any::<prop::sample::Index>(),
        comma in any::<bool>(),
        list_next in any::<bool>(),
        space in prop::sample::select(vec!["", " ", "\n  "]),
        n in 0u32..1000,
    ) {
        // Not the last record: the broken one needs a next item.
        let at = broken.index(records.len() - 1);
        let mut texts = Vec::new();
        let mut items = Vec::new();
        for (i, (members, number)) in records.iter().enumerate() {
            // The inner object's last value: a number, or a string.
            let (written, inner) = members_of(members, *number, n);
            let close = if i == at { "" } else { "}}" };
            texts.push(format!("{{\"id\": {i}, \"stats\": {{{written}{close}"));
            items.push(serde_json::json!({"id": i, "stats": inner}));
            if i == at && list_next {
                texts.push(format!("[\"w\", {n}]"));
                items.push(serde_json::json!(["w", n]));
            }
        }
        // The comma after the broken record's last value is the list's, or missing: after a string,
        // only before a record (on a line of its own, or repeating the first key, `id`; a string then
        // a list with no comma between is left out).
        let comma = comma || !records[at].1 && list_next;
        let mut text = String::from("[");
        for (i, t) in texts.iter().enumerate() {
            text.push_str(t);
            if i + 1 < texts.len() {
                text.push_str(if i == at && !comma { " " } else { "," });
                text.push_str(space);
            }
        }
        text.push_str(space);
        text.push(']');
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, Value::Array(items), "{:?}", text);
    }

    /// A closing brace written twice between the records of an array (`[{…}}, {…}]`) closes nothing:
    /// the array keeps every record.
    #[test]
    fn a_doubled_closing_brace_between_records(
        records in prop::collection::vec(prop::collection::vec(("[a-z]{1,6}", json_value()), 1..4), 2..5),
        doubled in any::<prop::sample::Index>(),
    ) {
        let objects: Vec<Value> = records
            .iter()
            .map(|kv| Value::Object(kv.iter().cloned().collect()))
            .collect();
        let at = doubled.index(objects.len() - 1);
        let texts: Vec<String> = objects
            .iter()
            .enumerate()
            .map(|(i, o)| if i == at { format!("{o}}}") } else { o.to_string() })
            .collect();
        let text = format!("[{}]", texts.join(",\n  "));
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, Value::Array(objects), "{}", text);
    }

    /// A member's bare value with commas in it (`"summary": Apples, pears, and plums.",`) is one string
    /// up to its closing quote, or up to the next key when it has none.
    #[test]
    fn a_bare_value_with_commas_is_one_string(
        // No word starts with a quote: `’` there would open a string (it is an apostrophe inside one).
        parts in prop::collection::vec("[a-zA-Zé—][a-zA-Zé—’.!?-]{0,6}( [a-zA-Zé—][a-zA-Zé—’.!?-]{0,5}){0,2}", 2..5),
        closing_quote in any::<bool>(),
        n in 0u32..1000,
    ) {
        prop_assume!(parts.iter().all(|p| !KEYWORD_LIKE.iter().any(|k| p.eq_ignore_ascii_case(k))));
        let value = parts.join(", ");
        let quote = if closing_quote { "\"" } else { "" };
        let text = format!("{{\"title\": \"x\", \"summary\": {value}{quote}, \"count\": {n}}}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"title": "x", "summary": value, "count": n}), "{}", text);
    }
}

proptest! {
    /// An item of an array of strings whose closing quote is missing before the comma (`["apple,
    /// "banana"]`, or one item per line) ends there: the quote after the comma opens the next item, which
    /// keeps its own.
    #[test]
    fn an_array_item_missing_its_closing_quote_before_a_comma(
        items in prop::collection::vec("[a-zA-Zé—’.!?-]{1,6}( [a-zA-Zé—’.!?-]{1,6}){0,2}", 2..6),
        missing in any::<prop::sample::Index>(),
        sep in prop::sample::select(vec![", ", ",", ",\n  ", ",\n"]),
        n in 0u32..1000,
    ) {
        let at = missing.index(items.len() - 1);
        let texts: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, t)| if i == at { format!("\"{t}") } else { format!("\"{t}\"") })
            .collect();
        let text = format!("{{\"items\": [{}], \"n\": {n}}}", texts.join(sep));
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(got, serde_json::json!({"items": items, "n": n}), "{}", text);
    }
}

proptest! {
    /// A member written as one string with its colon inside (`"summary:All done"`, the quotes around
    /// the colon missing) is that key and value, whether a delimiter or the end of the text follows.
    #[test]
    fn a_key_that_holds_its_value(
        key in "[a-zA-Z_é][a-zA-Z0-9_é]{0,8}",
        // No word starts with a quote (`’` there would open a string).
        value in "[a-zA-Zé—][a-zA-Zé—’.!?-]{0,6}( [a-zA-Zé—][a-zA-Zé—’.!?-]{0,5}){0,3}",
        spaced in any::<bool>(),
        cut in any::<bool>(),
        n in 0u32..1000,
    ) {
        // A first word the parser reads as a literal (`None`, `true`, or `tr` cut off) is that literal.
        let first = value.split(' ').next().unwrap_or_default().to_lowercase();
        prop_assume!(!KEYWORD_LIKE.iter().chain(&["none"]).any(|k| k.starts_with(first.as_str())));
        let space = if spaced { " " } else { "" };
        let end = if cut { "" } else { "\"}" };
        let text = format!("{{\"n\": {n}, \"{key}:{space}{value}{end}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        let mut want = serde_json::json!({"n": n});
        want[key.as_str()] = Value::from(value.as_str());
        prop_assert_eq!(got, want, "{}", text);
    }
}

proptest! {
    /// A member written as one string with its colon inside, after a string value and its comma
    /// (`{"city": "Lisbon", "weather:sunny"}`), is its own member: the two strings never merge.
    #[test]
    fn a_key_that_holds_its_value_after_a_string_value(
        first in "[a-zA-Zé—][a-zA-Zé—’.!?-]{0,8}",
        key in "[a-zA-Z_é][a-zA-Z0-9_é]{0,8}",
        value in "[a-zA-Zé—][a-zA-Zé—’.!?-]{0,6}( [a-zA-Zé—][a-zA-Zé—’.!?-]{0,5}){0,2}",
        after in prop::sample::select(vec!["}", ", \"n\": 1}", "", "\n}"]),
    ) {
        let first_word = value.split(' ').next().unwrap_or_default().to_lowercase();
        prop_assume!(!KEYWORD_LIKE.iter().chain(&["none"]).any(|k| k.starts_with(first_word.as_str())));
        prop_assume!(key != "a");
        let close = if after.is_empty() { "" } else { "\"" };
        let text = format!("{{\"a\": \"{first}\", \"{key}:{value}{close}{after}");
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        let mut want = serde_json::json!({"a": first});
        want[key.as_str()] = Value::from(value.as_str());
        if after.contains("\"n\"") {
            want["n"] = Value::from(1);
        }
        prop_assert_eq!(got, want, "{}", text);
    }

    /// A closing fence whose opening one is missing ends the source wherever it stands outside a
    /// string, and at the end of a string cut before its closers: what came before it is kept, what
    /// follows it is not the value's.
    #[test]
    fn a_closing_fence_without_an_opening_one_ends_the_value(
        v in json_container(),
        cut in any::<prop::sample::Index>(),
        tail in prop::sample::select(vec!["", "\n", "\nHope this helps!", " Anything else?"]),
    ) {
        let text = serde_json::to_string(&v).unwrap();
        let whole = format!("Sure:\n{text}```{tail}");
        let got: Value = serde_json::from_str(&repair(&whole, &opts()).unwrap().json).unwrap();
        prop_assert_eq!(&got, &v, "{}", whole);
        // Cut anywhere, the fence ending the text: the repair of the cut text with the fence after it is
        // the repair of the cut text. (Inside a string cut before its quote, prose after a fence is the
        // string's: `"see:\n```\nok`. A backslash before it would escape its first backtick.)
        let at = (0..=cut.index(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let head = &text[..at];
        if tail.trim().is_empty() && !head.contains("```") && !head.ends_with('\\') {
            let alone = repair(head, &opts());
            let fenced = repair(&format!("{head}```{tail}"), &opts());
            if let (Ok(alone), Ok(fenced)) = (alone, fenced) {
                prop_assert_eq!(fenced.json, alone.json, "{:?}", head);
            }
        }
    }
}

proptest! {
    /// A value or key delimited by backticks, as JavaScript writes template strings (or closed by `´`),
    /// is a string whose content keeps its quotes of either kind.
    #[test]
    fn a_backtick_string_is_a_string(
        content in "[a-zA-Z0-9 é—“”’'\",:{}\\[\\]]{0,16}",
        in_array in any::<bool>(),
        acute in any::<bool>(),
        n in 0u32..1000,
    ) {
        let close = if acute { "´" } else { "`" };
        let text = if in_array {
            format!("{{`items`: [`{content}{close}, {n}], \"n\": {n}}}")
        } else {
            format!("{{\"text\": `{content}{close}, `n`: {n}}}")
        };
        let got: Value = serde_json::from_str(&repair(&text, &opts()).unwrap().json).unwrap();
        let want = if in_array {
            serde_json::json!({"items": [content, n], "n": n})
        } else {
            serde_json::json!({"text": content, "n": n})
        };
        prop_assert_eq!(got, want, "{}", text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// The binding's transcoders on runs of characters of every UTF-8 length, lone surrogates and broken
    /// UTF-8 (natively a character at a time; the same cases under wasm take its vector steps, see
    /// `tests/wasm_cases`): the standard library's text, both ways.
    #[test]
    fn transcoders_keep_runs_of_every_script(
        runs in proptest::collection::vec(
            (0..6usize, 1..31usize, 0..64usize).prop_map(|(class, len, pick)| common::Run { class, len, pick }),
            1..9,
        ),
        dots in 0..41usize,
        breaks in proptest::collection::vec((0..4096usize, 0..7usize), 0..3),
    ) {
        common::check_transcoders(&runs, dots, &breaks);
    }
}
