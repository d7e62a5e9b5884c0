//! Streaming JSON: every chunking ends exactly where the one-shot repair does, and the partial values
//! on the way only ever grow.

#![allow(clippy::string_slice)] // a test may panic: it then fails

mod common;

use llm_response_sanitizer::{
    repair, Change, Changes, Error, PartialJson, RepairOptions, Repaired, REASONING_TAGS,
};
use proptest::prelude::*;
use serde_json::{Map, Value};

#[path = "common/strategies.rs"]
mod strategies;
use strategies::{json_value, token_soup};

/// A comparable summary of a result: the JSON, status, repairs and span, or the error and where.
fn summary(r: Result<Repaired, Error>) -> String {
    match r {
        Ok(r) => format!(
            "{} {} {:?} {:?}",
            r.status.code(),
            r.json,
            r.repairs
                .iter()
                .map(|x| (x.kind.code(), x.offset))
                .collect::<Vec<_>>(),
            r.span
        ),
        Err(e) => format!("error {} at {}", e.kind().code(), e.offset()),
    }
}

/// The live value a host keeps by applying the operations (the JS side does the same).
#[derive(Default)]
struct Live {
    root: Option<Value>,
    /// Paths of the open containers; the key named for the next member.
    open: Vec<Vec<Value>>,
    key: Option<String>,
    /// Path of the open string.
    string: Option<Vec<Value>>,
    /// Changes that may replace what was shown: a reset, a wrap, a duplicate key.
    resets: usize,
}

fn at<'a>(root: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(root, |v, k| match k {
        Value::String(k) => &mut v[k.as_str()],
        Value::Number(i) => &mut v[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

impl Live {
    /// Places `v` as the next value and returns its path.
    fn place(&mut self, v: Value) -> Vec<Value> {
        let Some(parent) = self.open.last().cloned() else {
            self.root = Some(v);
            return vec![];
        };
        let root = self.root.as_mut().unwrap();
        let mut path = parent.clone();
        match at(root, &parent) {
            Value::Array(a) => {
                path.push(Value::from(a.len()));
                a.push(v);
            }
            Value::Object(o) => {
                let k = self.key.take().expect("a key before a member");
                path.push(Value::String(k.clone()));
                if o.insert(k, v).is_some() {
                    // A duplicate key replaces the earlier value, as `JSON.parse` does.
                    self.resets += 1;
                }
            }
            other => panic!("placing into {other}"),
        }
        path
    }

    fn apply(&mut self, changes: &Changes) {
        // Text comes JSON-escaped, as it stands between a string's quotes.
        let decode = |t: &str| -> Value {
            serde_json::from_str(&format!("\"{t}\""))
                .unwrap_or_else(|e| panic!("not JSON string content ({e}): {t}"))
        };
        for change in changes.iter() {
            match change {
                Change::Reset => {
                    *self = Live {
                        resets: self.resets + 1,
                        ..Live::default()
                    }
                }
                Change::Object | Change::Array => {
                    let v = if change == Change::Object {
                        Value::Object(Map::new())
                    } else {
                        Value::Array(vec![])
                    };
                    let path = self.place(v);
                    self.open.push(path);
                }
                Change::Close => {
                    self.open.pop();
                }
                Change::Key(k) => self.key = Some(decode(k).as_str().unwrap().to_string()),
                Change::String(t) => {
                    let path = self.place(decode(t));
                    self.string = Some(path);
                }
                Change::Append(t) => {
                    let more = decode(t);
                    let path = self.string.clone().unwrap();
                    let v = at(self.root.as_mut().unwrap(), &path);
                    *v =
                        Value::String(format!("{}{}", v.as_str().unwrap(), more.as_str().unwrap()));
                }
                Change::EndString => self.string = None,
                Change::Scalar(token) => {
                    // A number beyond f64 (`1e400`) is JSON that `JSON.parse` reads as Infinity and
                    // serde_json refuses: it stands here as its token, placed once and never changed.
                    let v = serde_json::from_str(token).unwrap_or_else(|e| {
                        assert!(
                            e.to_string().contains("out of range"),
                            "not a JSON scalar ({e}): {token}"
                        );
                        Value::String(format!("number {token}"))
                    });
                    self.place(v);
                }
                Change::Wrap => {
                    let root = self.root.take().unwrap();
                    self.root = Some(Value::Array(vec![root]));
                    for p in &mut self.open {
                        p.insert(0, Value::from(0));
                    }
                    self.open.insert(0, vec![]);
                    if let Some(s) = &mut self.string {
                        s.insert(0, Value::from(0));
                    }
                    self.resets += 1;
                }
            }
        }
    }
}

/// Whether `new` extends `old`: same types, strings that grew, containers that gained members.
fn extends(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
        (Value::Array(a), Value::Array(b)) => {
            a.len() <= b.len() && a.iter().zip(b).all(|(x, y)| extends(x, y))
        }
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, x)| b.get(k).is_some_and(|y| extends(x, y))),
        (a, b) => a == b,
    }
}

/// Streams `chunks`, checking after each push that the live value only grew; returns the result.
fn stream(chunks: &[&str], options: &RepairOptions) -> Result<Repaired, String> {
    let mut p = PartialJson::new(options);
    let mut live = Live::default();
    let mut before: Option<Value> = None;
    for c in chunks {
        let resets = live.resets;
        let u = p.push(c).map_err(|e| format!("push failed: {e}"))?;
        live.apply(&u.changes);
        if let (Some(old), Some(new), true) = (&before, &live.root, live.resets == resets) {
            if !extends(old, new) {
                return Err(format!("value shrank or changed type: {old} -> {new}"));
            }
        }
        before = live.root.clone();
    }
    let (result, changes) = p.finish_with_changes();
    let result = result.map_err(|e| format!("error {} at {}", e.kind().code(), e.offset()))?;
    // Where the end says the value shown, completed, is the result: it is, exactly.
    if let Some(changes) = changes {
        live.apply(&changes);
        match serde_json::from_str::<Value>(&result.json) {
            Ok(want) if live.root.as_ref() != Some(&want) => {
                return Err(format!(
                    "completed value {:?} is not the result {want}",
                    live.root
                ));
            }
            // A number beyond f64, which the live value holds as its token (see `Live::apply`).
            Err(e) if !e.to_string().contains("out of range") => return Err(e.to_string()),
            _ => {}
        }
    }
    Ok(result)
}

fn check(text: &str, chunks: &[&str]) -> Result<(), String> {
    let options = RepairOptions::default();
    let want = summary(repair(text, &options));
    let got = match stream(chunks, &options) {
        Ok(r) => summary(Ok(r)),
        Err(e) if e.starts_with("error ") => e,
        Err(e) => return Err(e),
    };
    if got != want {
        return Err(format!("chunks {chunks:?}\n  want {want}\n  got  {got}"));
    }
    Ok(())
}

/// Splits `text` at every character boundary in `cuts` order.
fn split_at<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut last = 0;
    for &c in cuts {
        if c > last && c < text.len() && text.is_char_boundary(c) {
            out.push(&text[last..c]);
            last = c;
        }
    }
    out.push(&text[last..]);
    out
}

/// `text` in pieces of `size` bytes after a first one of `first`, each extended to a character boundary.
fn pieces(text: &str, first: usize, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut from, mut n) = (0, first);
    while from < text.len() {
        let mut to = (from + n).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push(&text[from..to]);
        (from, n) = (to, size);
    }
    out
}

#[test]
fn every_fixture_in_every_two_piece_split_and_one_character_at_a_time() {
    let mut failures = Vec::new();
    for f in common::REPAIR_FIXTURES {
        let text = f.input;
        let mut chunkings: Vec<Vec<&str>> = vec![vec![text]];
        chunkings.extend(
            (1..text.len())
                .filter(|&i| text.is_char_boundary(i))
                .map(|i| vec![&text[..i], &text[i..]]),
        );
        let mut chars: Vec<&str> = Vec::new();
        let mut start = 0;
        for (i, c) in text.char_indices() {
            chars.push(&text[start..i + c.len_utf8()]);
            chars.push("");
            start = i + c.len_utf8();
        }
        chunkings.push(chars);
        for chunks in &chunkings {
            if let Err(e) = check(text, chunks) {
                failures.push(format!("{}: {e}", f.name));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_value_grows_while_a_game_turn_streams() {
    let text = "<think>Pick the tavern.</think>\n```json\n{\"chosenIndex\": 2, \"speech\": \"Let's go to the tavern\", \"tags\": ['a', True,]}\n```";
    let mut p = PartialJson::new(&RepairOptions::default());
    let mut live = Live::default();
    let mut speeches = Vec::new();
    for chunk in text.as_bytes().chunks(7) {
        let u = p.push(std::str::from_utf8(chunk).unwrap()).unwrap();
        live.apply(&u.changes);
        if let Some(s) = live.root.as_ref().and_then(|r| r.get("speech")) {
            speeches.push(s.as_str().unwrap().to_string());
        }
    }
    // Reasoning never shows; the speech grows; the number appeared whole.
    assert!(speeches.len() > 2 && speeches[0].len() < speeches[speeches.len() - 1].len());
    assert_eq!(live.root.as_ref().unwrap()["chosenIndex"], 2);
    assert_eq!(
        live.root.unwrap(),
        serde_json::json!({"chosenIndex": 2, "speech": "Let's go to the tavern", "tags": ["a", true]})
    );
    assert_eq!(
        p.finish().unwrap().json,
        r#"{"chosenIndex":2,"speech":"Let's go to the tavern","tags":["a",true]}"#
    );
}

#[test]
fn keys_numbers_and_literals_appear_only_when_complete() {
    let mut p = PartialJson::new(&RepairOptions::default());
    let mut live = Live::default();
    let mut seen = Vec::new();
    for c in [
        "{\"na",
        "me\": \"A",
        "da\", \"age\": 3",
        "6, \"ok\": tr",
        "ue, \"b\"",
        ": nu",
        "ll}",
    ] {
        live.apply(&p.push(c).unwrap().changes);
        seen.push(live.root.clone().unwrap_or(Value::Null).to_string());
    }
    assert_eq!(
        seen,
        [
            "{}",
            r#"{"name":"A"}"#,
            r#"{"name":"Ada"}"#,
            r#"{"age":36,"name":"Ada"}"#,
            r#"{"age":36,"name":"Ada","ok":true}"#,
            r#"{"age":36,"name":"Ada","ok":true}"#,
            r#"{"age":36,"b":null,"name":"Ada","ok":true}"#,
        ]
    );
}

#[test]
fn an_orphan_closing_tag_restarts_the_value() {
    let text = "Maybe {\"draft\": 1} then.</think>\n{\"final\": 2}";
    check(text, &split_at(text, &[10, 20, 30, 40])).unwrap();
    let mut p = PartialJson::new(&RepairOptions::default());
    let mut live = Live::default();
    for c in split_at(text, &[20, 30]) {
        live.apply(&p.push(c).unwrap().changes);
    }
    assert_eq!(live.root.unwrap(), serde_json::json!({"final": 2}));
}

/// Regression: a member whose value turned out to be a dropped call (`$id:F(\t+\t\u{11}`) was cut from the
/// output after the host had been told its key; the host then read the next member from the middle and got
/// an operation that was not JSON (`8,_`). The view now starts over when the output is cut below what it
/// read, so every operation list stays JSON and the stream ends where the one-shot repair does.
#[test]
fn output_cut_below_what_was_shown_starts_the_value_over() {
    let text = "{$id:F(\t+\t\u{11}x\",_: \"x\"\t]";
    for size in [1, 2, 3, 5, 7] {
        let cuts: Vec<usize> = (1..text.len()).step_by(size).collect();
        check(text, &split_at(text, &cuts)).unwrap();
    }
    let mut p = PartialJson::new(&RepairOptions::default());
    let mut live = Live::default();
    for c in split_at(text, &(1..text.len()).collect::<Vec<_>>()) {
        live.apply(&p.push(c).unwrap().changes);
    }
    let whole = repair(text, &RepairOptions::default()).unwrap().json;
    assert_eq!(
        live.root.unwrap(),
        serde_json::from_str::<Value>(&whole).unwrap()
    );
}

#[test]
fn the_input_limit_stops_the_stream_at_once() {
    let options = RepairOptions {
        max_input_length: Some(10),
        ..RepairOptions::default()
    };
    let mut p = PartialJson::new(&options);
    p.push("{\"a\": ").unwrap();
    assert_eq!(
        p.push("\"long text\"}").unwrap_err().kind().code(),
        "input_too_long"
    );
    assert_eq!(p.finish().unwrap_err().kind().code(), "input_too_long");
}

#[test]
fn deep_nesting_is_reported_at_once_and_thrown_at_the_end() {
    let options = RepairOptions {
        max_depth: 100,
        ..RepairOptions::default()
    };
    let mut p = PartialJson::new(&options);
    p.push("[1, ").unwrap();
    for _ in 0..1000 {
        p.push("[[[[[[[[[[").unwrap();
    }
    assert_eq!(p.error().map(|e| e.kind().code()), Some("depth_limit"));
    assert_eq!(p.finish().unwrap_err().kind().code(), "depth_limit");
}

fn soup_and_cuts() -> impl Strategy<Value = (String, Vec<usize>)> {
    (token_soup(40), prop::collection::vec(0usize..200, 0..12)).prop_map(|(s, mut cuts)| {
        cuts.sort_unstable();
        (s, cuts)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_chunking_of_token_soup_equals_one_shot((text, cuts) in soup_and_cuts()) {
        let chunks = split_at(&text, &cuts);
        if let Err(e) = check(&text, &chunks) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn any_chunking_of_arbitrary_text_equals_one_shot(text in any::<String>(), cuts in prop::collection::vec(0usize..64, 0..8)) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        if let Err(e) = check(&text, &split_at(&text, &cuts)) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// A document as a model writes it: pretty or compact, maybe in prose and a fence, maybe with trailing
/// commas, maybe cut off.
fn document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(("[a-z_]{1,6}", json_value()), 0..6),
        any::<bool>(),
        0..4usize,
        any::<bool>(),
        0..100usize,
        0..REASONING_TAGS.len(),
    )
        .prop_map(|(kv, pretty, wrap, commas, cut, tags)| {
            let v = Value::Object(kv.into_iter().collect());
            let mut s = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                v.to_string()
            };
            if commas {
                s = s.replace("\n}", ",\n}").replace("\n]", ",\n]");
            }
            if cut > 0 && cut < 40 {
                let at = s.len() * cut / 40;
                let at = (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                s.truncate(at);
            }
            match wrap {
                0 => s,
                1 => format!("Sure! Here it is:\n```json\n{s}\n```\nAnything else?"),
                2 => {
                    let (open, close) = REASONING_TAGS[tags];
                    format!("{open}The user wants {{\"x\": 1}} or [2].{close}\n{s}")
                }
                _ => format!("Result: {s} (as requested)"),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_chunking_of_a_document_equals_one_shot(text in document(), cuts in prop::collection::vec(0usize..400, 0..20)) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        if let Err(e) = check(&text, &split_at(&text, &cuts)) {
            prop_assert!(false, "{}", e);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A member's number with words after it (`"oven": 190 °C`) is a string in the end, and never a
    /// number shown before it, in a member or an array; keys written with `=` or `=>` for their colons,
    /// or bare and of several words, keep their values: every chunking ends as the one-shot repair does, the partial values only
    /// growing.
    #[test]
    fn any_chunking_of_unusual_members_equals_one_shot(
        members in prop::collection::vec(("[a-z]{1,4}( [a-z]{1,4})?", "[+-]?[0-9]{1,3}(\\.[0-9])?", "( [a-z°€一-龥]{1,3}| [0-9]{3}| %| - [0-9]| / [0-9]| \\(ca\\)){0,2}"), 1..4),
        colon in prop::sample::select(vec![": ", " = ", "=>"]),
        bare in any::<bool>(),
        list in any::<bool>(),
        pretty in any::<bool>(),
        cuts in prop::collection::vec(0usize..120, 0..12),
    ) {
        let sep = if pretty { ",\n  " } else { ", " };
        let body: Vec<String> = members.iter().map(|(k, n, w)| {
            let value = if list { format!("[{n}{w}, {n}{w}]") } else { format!("{n}{w}") };
            if bare { format!("{k}{colon}{value}") } else { format!("\"{k}\"{colon}{value}") }
        }).collect();
        let text = format!("{{{}}}", body.join(sep));
        let mut cuts = cuts;
        cuts.sort_unstable();
        if let Err(e) = check(&text, &split_at(&text, &cuts)) {
            prop_assert!(false, "{}", e);
        }
    }

    /// Calls with keyword arguments (`Point(x=1, y=2)`, Python reprs with single quotes, `None` and nested
    /// calls among them) are objects in every chunking, as in one shot, the partial values only growing.
    #[test]
    fn any_chunking_of_calls_with_keyword_arguments_equals_one_shot(
        members in prop::collection::vec(("[a-z_]{1,5}", json_value()), 1..4),
        python in any::<bool>(),
        nested in any::<bool>(),
        cuts in prop::collection::vec(0usize..160, 0..12),
    ) {
        let args: Vec<String> = members.iter().map(|(k, x)| {
            let x = if python && x.is_null() { "None".to_string() } else { x.to_string() };
            format!("{k}={x}")
        }).collect();
        let mut call = format!("Item({})", args.join(", "));
        if nested {
            call = format!("Team(lead={call}, name='Ada', size=2)");
        }
        let text = format!("{{\"items\": [{call}, {call}], \"n\": 1}}");
        let mut cuts = cuts;
        cuts.sort_unstable();
        if let Err(e) = check(&text, &split_at(&text, &cuts)) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// With the reasoning first (the chat template emitted `<think>`), a draft in the reasoning is never shown;
/// the answer after the closing tag is, and the end is the one-shot repair's, with or without the tag.
#[test]
fn reasoning_first_shows_nothing_before_the_closing_tag() {
    for (tag, size) in [
        "</THINK>",
        "[/think]",
        "<|start|>assistant<|channel|>final<|message|>",
    ]
    .into_iter()
    .flat_map(|tag| [1, 2, 5, 13].map(|size| (tag, size)))
    {
        let text =
            format!("The user wants {{\"draft\": 1}}, so maybe [2]. {tag}\n{{\"final\": [3, 4]}}");
        let text = text.as_str();
        let mut p = PartialJson::new(&RepairOptions::default()).with_reasoning_first(true);
        let mut live = Live::default();
        let close = text.find(tag).unwrap() + tag.len() - 1;
        let mut at = 0;
        for c in split_at(text, &(size..text.len()).step_by(size).collect::<Vec<_>>()) {
            let u = p.push(c).unwrap();
            at += c.len();
            live.apply(&u.changes);
            if at <= close {
                assert!(
                    live.root.is_none(),
                    "chunks of {size}: shown before the tag: {:?}",
                    live.root
                );
            }
        }
        assert_eq!(live.root.unwrap(), serde_json::json!({"final": [3, 4]}));
        let whole = repair(text, &RepairOptions::default()).unwrap().json;
        assert_eq!(p.finish().unwrap().json, whole);
    }
    // No closing tag ever: nothing shown on the way, the one-shot answer at the end.
    let text = "{\"a\": [1, 2]}";
    let mut p = PartialJson::new(&RepairOptions::default()).with_reasoning_first(true);
    for c in split_at(text, &[3, 7]) {
        assert!(p.push(c).unwrap().changes.is_empty());
    }
    let whole = repair(text, &RepairOptions::default()).unwrap().json;
    assert_eq!(p.finish().unwrap().json, whole);
}

/// With reasoning first, gpt-oss's analysis channel also ends where a tool call in the commentary channel
/// starts: the call's arguments show as they arrive, not only at the end.
#[test]
fn reasoning_first_shows_a_gpt_oss_tool_call_after_the_analysis() {
    let text =
        "<|channel|>analysis<|message|>Call it with {\"city\": \"x\"}.<|end|><|start|>assistant\
                <|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>\
                {\"city\": \"Tokyo\", \"days\": [1, 2]}<|call|>";
    let answer = text.find("{\"city\": \"Tokyo").unwrap();
    for size in [1, 2, 5, 13] {
        let mut p = PartialJson::new(&RepairOptions::default()).with_reasoning_first(true);
        let mut live = Live::default();
        let mut shown_before_end = false;
        let mut at = 0;
        for c in split_at(text, &(size..text.len()).step_by(size).collect::<Vec<_>>()) {
            let u = p.push(c).unwrap();
            at += c.len();
            live.apply(&u.changes);
            assert!(
                at > answer || live.root.is_none(),
                "chunks of {size}: the draft shown"
            );
            shown_before_end |= at < text.len() && live.root.is_some();
        }
        assert!(
            shown_before_end,
            "chunks of {size}: nothing shown before the end"
        );
        let want = serde_json::json!({"city": "Tokyo", "days": [1, 2]});
        assert_eq!(live.root.unwrap(), want);
        let whole = repair(text, &RepairOptions::default()).unwrap().json;
        assert_eq!(p.finish().unwrap().json, whole);
    }
}

/// A stream that starts with `[` may be starting `[/THINK]` (Magistral's closing tag, its opening tag emitted
/// by the chat template): once the tag is whole, the `[` is no longer shown as the value.
#[test]
fn a_bracketed_closing_tag_moves_the_json_once_whole() {
    let text = "[/THINK]\n{\"a\": [1]}";
    for cut in 1..text.len() {
        let mut p = PartialJson::new(&RepairOptions::default());
        let mut live = Live::default();
        for c in split_at(text, &[cut]) {
            live.apply(&p.push(c).unwrap().changes);
        }
        assert_eq!(
            live.root,
            Some(serde_json::json!({"a": [1]})),
            "cut at {cut}"
        );
    }
}

/// After a long reasoning block the answer shows as it arrives, in every reasoning format, draft JSON in the
/// reasoning or not: once the reasoning is decided, locating again reads only the answer, not an eighth of
/// the whole text's growth later (before, a 10 KB block hid a 40-byte answer until the end).
#[test]
fn the_answer_after_long_reasoning_shows_as_it_arrives() {
    let reasoning =
        "Let me check each item once more; a draft {\"items\": [0]} is wrong. ".repeat(150);
    let formats = [
        ("<think>", "</think>", false),
        ("", "</think>", false),
        ("", "</think>", true),
        ("◁think▷", "◁/think▷", false),
        (
            "<|begin_of_thought|>\n\n",
            "\n\n<|end_of_thought|>\n\n<|begin_of_solution|>",
            false,
        ),
        ("", "[/THINK]", false),
        (
            "Here are my reasoning steps:\n",
            "\n[BEGIN FINAL RESPONSE]\n",
            false,
        ),
        (
            "Here is my thought process:\n",
            "\n\nHere is my response:\n\n",
            false,
        ),
        (
            "<|channel|>analysis<|message|>",
            "<|end|><|start|>assistant<|channel|>final<|message|>",
            false,
        ),
    ];
    for (open, close, first) in formats {
        let text = format!("{open}{reasoning}{close}\n{{\"items\": [1, 2, 3], \"done\": true}}");
        let shown = text.find("{\"items\": [1").unwrap() + "{\"items\": [1".len();
        let mut p = PartialJson::new(&RepairOptions::default()).with_reasoning_first(first);
        let mut live = Live::default();
        let mut from = 0;
        for c in pieces(&text, 7, 7) {
            live.apply(&p.push(c).unwrap().changes);
            from += c.len();
            if from > shown {
                let items = live.root.as_ref().and_then(|r| r.get("items"));
                assert_eq!(
                    items.and_then(|i| i.get(0)),
                    Some(&serde_json::json!(1)),
                    "{open:?} at {from}"
                );
            }
        }
        let want = serde_json::json!({"items": [1, 2, 3], "done": true});
        assert_eq!(live.root, Some(want), "{open:?}");
    }
}

/// After long prose with no reasoning tag the JSON shows as it arrives: fenced, inline, with an unquoted
/// key, and a fenced block that replaces a value in prose (a `[1]` citation) as soon as its bracket comes,
/// not an eighth of the text's growth later (before, after 10 KB of prose a 40-byte answer showed only at
/// the end, and the citation stayed the value while the fenced block streamed).
#[test]
fn the_json_after_long_prose_shows_as_it_arrives() {
    let prose = "The scene—quiet, “ready”—waits… it’s north of the gate (see below). ".repeat(150);
    let cases = [
        (
            String::new(),
            "```json\n{\"name\": \"Ada Lovelace\", \"done\": true}\n```\nHope it helps.",
        ),
        (
            String::new(),
            "~~~\n{\"name\": \"Ada Lovelace\", \"done\": true}\n~~~",
        ),
        (
            String::new(),
            "Here it is: {\"name\": \"Ada Lovelace\", \"done\": true} as asked.",
        ),
        (
            String::new(),
            "Here it is: {name: \"Ada Lovelace\", done: true}",
        ),
        (
            "See [1] first. ".to_string(),
            "```json\n{\"name\": \"Ada Lovelace\", \"done\": true}\n```",
        ),
    ];
    // Every offset of the 7-byte chunks, so that a bracket ends a chunk in some run.
    for ((before, answer), shift) in cases.iter().flat_map(|c| (0..7).map(move |s| (c, s))) {
        let text = format!("{before}{prose}\n{answer}");
        let at = text.rfind("Ada").unwrap() + "Ada".len();
        let mut p = PartialJson::new(&RepairOptions::default());
        let mut live = Live::default();
        let mut from = 0;
        for c in pieces(&text, shift + 1, 7) {
            live.apply(&p.push(c).unwrap().changes);
            from += c.len();
            if from > at {
                let name = live.root.as_ref().and_then(|r| r.get("name"));
                assert!(
                    name.and_then(|n| n.as_str())
                        .is_some_and(|n| n.starts_with("Ada")),
                    "{answer:?} at {from}, shifted {shift}"
                );
            }
        }
        let want = serde_json::json!({"name": "Ada Lovelace", "done": true});
        assert_eq!(live.root, Some(want), "{answer:?}");
        let whole = repair(&text, &RepairOptions::default()).unwrap().json;
        assert_eq!(p.finish().unwrap().json, whole, "{answer:?}");
    }
}

/// A closing tag with no `<` in it (Magistral's, Kimi-VL's `◁/think▷`, Apriel's final-response marker) that
/// arrives after a draft was shown moves the value to the answer, wherever the chunks split the tag.
#[test]
fn a_closing_tag_without_angle_brackets_moves_a_shown_draft() {
    for tag in ["[/THINK]", "◁/think▷", "[BEGIN FINAL RESPONSE]"] {
        let text = format!("Maybe {{\"draft\": 1}} then.{tag}\n{{\"a\": [1]}}");
        let draft = text.find('.').unwrap();
        for cut in (draft..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut p = PartialJson::new(&RepairOptions::default());
            let mut live = Live::default();
            for c in split_at(&text, &[draft, cut]) {
                live.apply(&p.push(c).unwrap().changes);
            }
            let want = serde_json::json!({"a": [1]});
            assert_eq!(live.root.as_ref(), Some(&want), "{text:?} cut at {cut}");
        }
    }
}

/// Found by the fuzzer: a member's array whose closer a stream showed (a key cut after it made the closer
/// settled) and that a `[` then opens again, its items going on, is read again from there, not from where
/// the stream had read (`_` came out as the scalar token `_"`).
#[test]
fn an_array_shown_closed_and_opened_again_is_read_again() {
    for text in [
        "{\"k\": [] \"a\"], [x, \"d\"]]}",
        "{\"k\": [1] \"a\"], [2, \"d\"], \"n\": 3}",
        "{\"k\": [[1]] \"a\"], [2], \"n\": 3}",
    ] {
        for cut in 1..text.len() {
            check(text, &split_at(text, &[cut])).unwrap();
        }
        let chars: Vec<&str> = (0..text.len()).map(|i| &text[i..=i]).collect();
        check(text, &chars).unwrap();
    }
}

/// Found by the token-soup property: a number too large for f64 streams like any other scalar.
#[test]
fn a_number_beyond_f64_streams_like_any_scalar() {
    for text in ["[12.5e02000{", "{\"a\": 1e400, \"b\": [-1e999]}"] {
        for cut in 1..text.len() {
            check(text, &split_at(text, &[cut])).unwrap();
        }
    }
}

/// With a schema, a string restricted to fixed values appears only whole, and a string the schema wants
/// as a number or boolean appears only whole and coerced, as extraction coerces it; free strings grow.
#[test]
fn with_a_schema_fixed_strings_appear_whole_and_wanted_scalars_coerced() {
    use llm_response_sanitizer::schema::{CompileOptions, RuleSet, Schema, SharedSchema};
    let schema = SharedSchema::new(
        Schema::compile_json(
            r##"{"properties": {"action": {"$ref": "#/$defs/action"}, "speech": {"type": "string"},
                 "n": {"type": "integer"}, "ok": {"type": "boolean"}, "bad": {"type": "integer"},
                 "steps": {"items": {"anyOf": [{"enum": ["north", "south"]}, {"type": "number"}]}},
                 "m\u00e9tier": {"const": "smith"}},
                "$defs": {"action": {"enum": ["attack", "defend"]}}}"##,
            "{}",
            CompileOptions::default(),
        )
        .unwrap(),
    );
    let text = r#"{"speech": "Hold the line", "action": "defend", "n": " 12", "ok": "TRUE", "bad": "2.5",
                  "steps": ["north", "4"], "m\u00e9tier": "smith"}"#;
    let whole = serde_json::json!({"speech": "Hold the line", "action": "defend", "n": 12, "ok": true,
        "bad": "2.5", "steps": ["north", 4], "métier": "smith"});
    for size in [1, 3, 7, text.len()] {
        for forbid in [RuleSet::default(), RuleSet::from_codes("string_to_boolean")] {
            let mut p =
                PartialJson::new(&RepairOptions::default()).with_schema(schema.clone(), forbid);
            let mut live = Live::default();
            let mut speeches = 0;
            let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
            for c in split_at(text, &cuts) {
                live.apply(&p.push(c).unwrap().changes);
                let Some(v) = &live.root else { continue };
                for (key, only) in [("action", "defend"), ("métier", "smith")] {
                    assert!(v.get(key).map_or(true, |a| a == only), "{key} shown as {v}");
                }
                assert!(v.get("n").map_or(true, |n| n == 12), "n shown as {v}");
                if let Some(first) = v.get("steps").and_then(|s| s.get(0)) {
                    assert_eq!(first, "north");
                }
                speeches += usize::from(v.get("speech").is_some());
            }
            assert!(size == text.len() || speeches > 1, "free strings grow");
            let mut expected = whole.clone();
            if forbid.contains(llm_response_sanitizer::schema::Rule::StringToBoolean) {
                expected["ok"] = "TRUE".into();
            }
            assert_eq!(live.root.as_ref(), Some(&expected), "size {size}");
        }
    }
}

#[test]
fn a_closing_fence_at_the_end_of_a_string_is_never_shown() {
    // The end of the text cuts a closing fence with no opening one off a string cut before its quote
    // (`{"note": "done}````): a stream holds the backticks back instead of showing and taking them back.
    for text in [
        "{\"note\": \"ends in a closer}```",
        "{\"note\": \"ends in a closer```\n",
    ] {
        let mut p = PartialJson::new(&RepairOptions::default());
        let mut live = Live::default();
        for c in split_at(text, &(1..text.len()).collect::<Vec<_>>()) {
            live.apply(&p.push(c).unwrap().changes);
            let shown = live
                .root
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_default();
            assert!(!shown.contains('`'), "{text:?}: shown {shown}");
        }
        assert_eq!(live.resets, 0, "{text:?}");
        check(text, &[text]).unwrap();
    }
}

/// A prefill's continuation (`"name": …` whose `{` was in the request) shows as the object from the
/// comma and key after its first member, long before its closing brace, never as a value nested in it,
/// and ends as the one-shot repair does, however the chunks split it.
#[test]
fn a_reply_without_its_opening_brace_shows_as_the_object() {
    let text = "\n  \"name\": \"Mirela\",\n  \"mood\": \"wary\",\n  \"inventory\": [\"rope\", \"lantern\"],\n  \"stats\": {\"wits\": 4}\n}";
    let second = text.find("\"mood\":").unwrap() + "\"mood\":".len();
    for size in 1..12 {
        let mut p = PartialJson::new(&RepairOptions::default());
        let mut live = Live::default();
        let mut from = 0;
        for c in pieces(text, size, size) {
            live.apply(&p.push(c).unwrap().changes);
            from += c.len();
            if let Some(root) = &live.root {
                assert_eq!(
                    root.get("name"),
                    Some(&serde_json::json!("Mirela")),
                    "size {size} at {from}"
                );
            }
            if from > second + 8 {
                assert!(
                    live.root.as_ref().is_some_and(|r| r.get("mood").is_some()),
                    "size {size} at {from}"
                );
            }
        }
        assert_eq!(live.resets, 0, "size {size}");
        let whole = repair(text, &RepairOptions::default()).unwrap().json;
        assert_eq!(p.finish().unwrap().json, whole, "size {size}");
    }
}
