//! Shared helpers for the Rust runners of the fixture corpus (native and wasm).
#![allow(dead_code)]
#![allow(clippy::string_slice)] // a test may panic: it then fails

/// One case of the corpus: `NAME.in`, and `NAME.out.json` with `NAME.repairs`, or `NAME.error`.
pub struct Fixture {
    pub name: &'static str,
    pub input: &'static str,
    /// The expected value as JSON text.
    pub expected: Option<&'static str>,
    /// The expected error code.
    pub error: Option<&'static str>,
    /// Every repair the report must list, in its order, one per line: the kind and the UTF-16 position
    /// (`trailing_comma 14`). Required with `.out.json`; empty when nothing is repaired.
    pub repairs: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));

use llm_response_sanitizer::position::locate_all;
use llm_response_sanitizer::{repair, RepairOptions};

/// Runs one fixture through the repair engine; `Err` describes the mismatch.
pub fn check_fixture(f: &Fixture) -> Result<(), String> {
    let Fixture {
        name,
        input,
        expected,
        error,
        repairs,
    } = *f;
    let got = repair(input, &RepairOptions::default());
    match (got, expected, error) {
        (Ok(out), Some(want), _) => {
            let got_v: serde_json::Value = serde_json::from_str(&out.json)
                .map_err(|e| format!("{name}: output is not JSON ({e}): {}", out.json))?;
            let want_v: serde_json::Value =
                serde_json::from_str(want).map_err(|e| format!("{name}: bad fixture: {e}"))?;
            if got_v != want_v {
                return Err(format!("{name}: got {} want {}", out.json, want.trim()));
            }
            let Some(repairs) = repairs else {
                return Err(format!("{name}: the fixture has no .repairs file"));
            };
            let want: Vec<&str> = repairs.lines().filter(|l| !l.is_empty()).collect();
            let offsets: Vec<usize> = out.repairs.iter().map(|r| r.offset).collect();
            let got: Vec<String> = out
                .repairs
                .iter()
                .zip(locate_all(input, &offsets))
                .map(|(r, at)| format!("{} {}", r.kind.code(), at.index))
                .collect();
            if got != want {
                return Err(format!("{name}: repairs {got:?} want {want:?}"));
            }
            Ok(())
        }
        (Err(e), None, Some(code)) if e.kind().code() == code.trim() => Ok(()),
        (Ok(out), None, Some(code)) => Err(format!(
            "{name}: expected error {} but got {}",
            code.trim(),
            out.json
        )),
        (Err(e), _, _) => Err(format!("{name}: unexpected error {e}")),
        (Ok(_), None, None) => Err(format!("{name}: fixture has neither .out.json nor .error")),
    }
}

use llm_response_sanitizer::{clean_detailed, CleanOptions, Cleaner, ThinkTag};
use serde_json::Value;

/// One case of the cleaning corpus, `tests/fixtures/clean/cases.json`.
pub struct CleanCase {
    pub name: String,
    pub input: String,
    pub options: CleanOptions,
    pub expected: String,
    /// `Some(None)`: nothing may be reported removed; `None`: the case does not say.
    pub reasoning: Option<Option<String>>,
}

/// Maps the JavaScript option names of the corpus onto [`CleanOptions`].
pub fn clean_options(v: Option<&Value>) -> CleanOptions {
    let mut o = CleanOptions::default();
    let Some(map) = v.and_then(Value::as_object) else {
        return o;
    };
    let text = |k: &str| map.get(k).and_then(Value::as_str).map(str::to_owned);
    let start = text("startThinkTag").unwrap_or_else(|| "<think>".into());
    let end = text("endThinkTag").unwrap_or_else(|| "</think>".into());
    o.think_tags = vec![ThinkTag::new(&start, &end)];
    if let Some(list) = map.get("thinkTags").and_then(Value::as_array) {
        o.think_tags = list
            .iter()
            .map(|p| ThinkTag::new(p["start"].as_str().unwrap(), p["end"].as_str().unwrap()))
            .collect();
    }
    if let Some(n) = map.get("openingTagGracePeriod").and_then(Value::as_u64) {
        o.opening_tag_grace_period = n as usize;
    }
    let flag = |k: &str, d: bool| map.get(k).and_then(Value::as_bool).unwrap_or(d);
    o.expect_only_closing_think_tag = flag("expectOnlyClosingThinkTag", false);
    o.remove_timestamp_prefix = flag("removeTimestampPrefix", false);
    o.remove_assistant_prefix = flag("removeAssistantPrefix", false);
    o.trim = flag("trim", true);
    o.think_only = flag("thinkOnly", false);
    o.grace_includes_leading_whitespace = flag("graceIncludesLeadingWhitespace", false);
    o.keep_text_without_closing_tag = flag("keepTextWithoutClosingTag", false);
    let list = |k: &str| -> Vec<String> {
        match map.get(k) {
            Some(Value::String(p)) => vec![p.clone()],
            Some(Value::Array(l)) => l.iter().map(|p| p.as_str().unwrap().to_owned()).collect(),
            _ => Vec::new(),
        }
    };
    o.response_start_text_to_remove = list("responseStartTextToRemove");
    o.response_start_text_to_remove_endpoint_wide = list("responseStartTextToRemoveEndpointWide");
    o
}

/// Every case of the cleaning corpus.
pub fn clean_cases() -> Vec<CleanCase> {
    let doc: Value =
        serde_json::from_str(include_str!("../fixtures/clean/cases.json")).expect("corpus is JSON");
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| CleanCase {
            name: c["name"].as_str().unwrap().to_owned(),
            input: c["input"].as_str().unwrap().to_owned(),
            options: clean_options(c.get("options")),
            expected: c["expected"].as_str().unwrap().to_owned(),
            reasoning: c.get("reasoning").map(|r| r.as_str().map(str::to_owned)),
        })
        .collect()
}

/// Runs `text` through a [`Cleaner`] in the given chunks; returns the text and the reasoning.
pub fn clean_chunked(chunks: &[&str], options: &CleanOptions) -> (String, Option<String>) {
    let mut cleaner = Cleaner::new(options);
    let mut out = String::new();
    for c in chunks {
        out.push_str(&cleaner.push(c));
    }
    out.push_str(&cleaner.finish());
    (out, cleaner.reasoning().map(str::to_owned))
}

/// Checks one case one-shot, split at every character boundary into two chunks, and one character
/// per chunk with empty chunks between.
pub fn check_clean_case(c: &CleanCase) -> Result<(), String> {
    let name = &c.name;
    let got = clean_detailed(&c.input, &c.options);
    if got.text != c.expected {
        return Err(format!("{name}: got {:?} want {:?}", got.text, c.expected));
    }
    if let Some(want) = &c.reasoning {
        if &got.reasoning != want {
            return Err(format!(
                "{name}: reasoning {:?} want {want:?}",
                got.reasoning
            ));
        }
    }
    let bounds: Vec<usize> = c
        .input
        .char_indices()
        .map(|(i, _)| i)
        .chain([c.input.len()])
        .collect();
    for &b in &bounds {
        let (a, z) = c.input.split_at(b);
        let (text, reasoning) = clean_chunked(&[a, z], &c.options);
        if text != c.expected || reasoning != got.reasoning {
            return Err(format!(
                "{name}: split at byte {b}: got {text:?}, reasoning {reasoning:?}"
            ));
        }
    }
    let mut pieces = vec![""];
    for w in bounds.windows(2) {
        pieces.push(&c.input[w[0]..w[1]]);
        pieces.push("");
    }
    let (text, reasoning) = clean_chunked(&pieces, &c.options);
    if text != c.expected || reasoning != got.reasoning {
        return Err(format!(
            "{name}: one character per chunk: got {text:?}, reasoning {reasoning:?}"
        ));
    }
    Ok(())
}

/// A run of characters of one kind in a text for the transcoders: `class` picks ASCII, two-byte,
/// three-byte, astral (surrogate pairs), lone surrogates or spaces; `pick` the characters among the
/// class's (the edges of each range among them).
#[derive(Clone, Debug)]
pub struct Run {
    pub class: usize,
    pub len: usize,
    pub pick: usize,
}

const CLASSES: [&[u16]; 6] = [
    &[0x61, 0x20, 0x7f, 0x22, 0x0a],
    &[0x80, 0xe9, 0x43f, 0x5d0, 0x7ff],
    &[
        0x800, 0x2000, 0x2014, 0x201c, 0x207f, 0x2080, 0x4f60, 0xac00, 0xd7ff, 0xe000, 0xfffd,
        0xffff,
    ],
    &[0xd83d, 0xde80],
    &[0xd800, 0xdfff],
    &[0x20],
];

/// UTF-8 that is not: a continuation byte alone, lead bytes cut short, overlong forms, a surrogate.
const BROKEN: [&[u8]; 7] = [
    b"\x80",
    b"\xd0",
    b"\xe4\xbd",
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xed\xa0\x80",
    b"\xff",
];

/// UTF-8 decoded one character at a time, a byte that starts no valid sequence as U+FFFD (the binding's
/// rule for bytes the parser never writes): the standard library's decoder on each sequence alone.
pub fn utf16_of_bytes(bytes: &[u8]) -> Vec<u16> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let len = match bytes[i] {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        match bytes
            .get(i..i + len)
            .and_then(|s| core::str::from_utf8(s).ok())
        {
            Some(s) => {
                out.extend(s.encode_utf16());
                i += len;
            }
            None => {
                out.push(0xfffd);
                i += 1;
            }
        }
    }
    out
}

/// The narrow forms of UTF-8 `bytes` as the binding writes them, read from [`utf16_of_bytes`]: ASCII
/// (and with `latin1` every unit up to U+00FF) as one byte, every other unit as a `\u` escape.
fn narrow_of_bytes(bytes: &[u8], latin1: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for u in utf16_of_bytes(bytes) {
        if u < 0x80 || latin1 && u <= 0xff {
            out.push(u as u8);
        } else {
            out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
        }
    }
    out
}

/// `locate_all` on `text` against counting its characters one by one: at every character boundary, at
/// every seventeenth (so that the steps between them are long), at the end alone, in order and reversed.
pub fn check_locations(text: &str) {
    use llm_response_sanitizer::position::Location;
    let mut all = Vec::new();
    let (mut index, mut line, mut line_start) = (0, 1, 0);
    for (offset, c) in text.char_indices() {
        all.push((
            offset,
            Location {
                index,
                line,
                column: index - line_start + 1,
            },
        ));
        index += c.len_utf16();
        if c == '\n' {
            line += 1;
            line_start = index;
        }
    }
    all.push((
        text.len(),
        Location {
            index,
            line,
            column: index - line_start + 1,
        },
    ));
    let sparse: Vec<_> = all.iter().copied().step_by(17).collect();
    for mut picked in [all.clone(), sparse, all[all.len() - 1..].to_vec()] {
        for _ in 0..2 {
            let offsets: Vec<usize> = picked.iter().map(|p| p.0).collect();
            let want: Vec<Location> = picked.iter().map(|p| p.1).collect();
            assert_eq!(locate_all(text, &offsets), want, "{text:?} at {offsets:?}");
            picked.reverse();
        }
    }
}

/// The binding's transcoders on the text of `runs` and `dots` ASCII units after them (so that runs end at
/// every distance from the end), both ways, against the standard library; then the UTF-8 with each of
/// `breaks` (a place, a piece of [`BROKEN`]) inserted, against [`utf16_of_bytes`]; the narrow forms of
/// both against [`narrow_of_bytes`].
pub fn check_transcoders(runs: &[Run], dots: usize, breaks: &[(usize, usize)]) {
    use llm_response_sanitizer::transcoders::{narrow_json, utf16_to_utf8, utf8_to_utf16};
    let mut units = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let pool = CLASSES[run.class % CLASSES.len()];
        // A few characters of a class at most for pairs and lone surrogates.
        let len = if run.class % CLASSES.len() < 3 {
            run.len
        } else {
            1 + run.len % 3
        };
        for j in 0..len {
            if pool.len() == 2 && pool[0] == 0xd83d {
                units.extend_from_slice(pool);
            } else {
                units.push(pool[(run.pick + j * (k + 1)) % pool.len()]);
            }
        }
    }
    units.extend(core::iter::repeat(0x2e).take(dots));
    let text = String::from_utf16_lossy(&units);
    check_locations(&text);
    assert_eq!(utf16_to_utf8(&units), text.as_bytes(), "{units:x?}");
    assert_eq!(
        utf8_to_utf16(text.as_bytes()),
        text.encode_utf16().collect::<Vec<_>>(),
        "{text:?}"
    );
    let narrow_forms_read = |bytes: &[u8]| {
        for latin1 in [false, true] {
            assert_eq!(
                narrow_json(bytes, latin1),
                narrow_of_bytes(bytes, latin1),
                "{bytes:x?}"
            );
        }
    };
    let mut bytes = text.into_bytes();
    narrow_forms_read(&bytes);
    for &(at, piece) in breaks {
        let at = at % (bytes.len() + 1);
        bytes.splice(at..at, BROKEN[piece % BROKEN.len()].iter().copied());
    }
    assert_eq!(utf8_to_utf16(&bytes), utf16_of_bytes(&bytes), "{bytes:x?}");
    narrow_forms_read(&bytes);
}
