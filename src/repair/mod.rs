//! Locating and repairing the JSON in an LLM response (SPEC §2–3).
//!
//! [`repair`] runs the whole pipeline: valid JSON passes through untouched; otherwise the locator finds
//! the source (after reasoning, inside a fence, or in prose) and the tolerant parser writes strict JSON
//! text, recording every repair.

use crate::prelude::*;
pub(crate) mod chars;
pub(crate) mod locate;
mod parser;
mod source;

pub use crate::record::{Repair, RepairClass, RepairKind, RepairSet};
pub(crate) use parser::json_string;

use crate::encoding::has_no_continuation_bytes;
use crate::error::{Error, ErrorKind};
use crate::position::utf16_len;
use core::ops::Range;
use parser::{Fault, Parser};
use source::fault_error;
pub(crate) use source::SourceParse;

/// Default for [`Options::max_depth`].
pub const DEFAULT_MAX_DEPTH: usize = 10_000;

/// Options for [`repair`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Deepest nesting of objects and arrays accepted; deeper input is a `DepthLimitExceeded` error.
    pub max_depth: usize,
    /// Longest input accepted, in UTF-16 code units (JavaScript's `length`); `None` for no limit.
    pub max_input_length: Option<usize>,
    /// Repairs that must not be made: input that needs one is a `RepairForbidden` error.
    pub forbid: RepairSet,
    /// Skip the check for strictly valid JSON (the caller already tried a strict parser). Input that
    /// needs no repair is still reported [`Status::Valid`].
    pub assume_invalid: bool,
    /// Keep every repair in the result's `repairs` (the default). Without it only the first one is
    /// kept: the status, the value and the errors are the same, for less work when no report is wanted
    /// (a response in single quotes makes a repair or two per string).
    pub report: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_depth: DEFAULT_MAX_DEPTH,
            max_input_length: None,
            forbid: RepairSet::NONE,
            assume_invalid: false,
            report: true,
        }
    }
}

/// Whether the input was valid JSON or needed repairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The whole input is strict JSON; `json` is that text without surrounding whitespace.
    Valid,
    /// The JSON was located and/or repaired; `repairs` says how.
    Repaired,
}

impl Status {
    /// `"valid"` or `"repaired"`.
    pub fn code(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Repaired => "repaired",
        }
    }
}

/// The result of [`repair`]. Inside the crate the JSON text may also be the parser's UTF-8 bytes
/// (`Repaired<Vec<u8>>`), for callers that copy it on without the check a `String` needs.
#[derive(Clone, Debug)]
pub struct Repaired<J = String> {
    /// Strict JSON text (compact when repaired).
    pub json: J,
    /// Valid or repaired.
    pub status: Status,
    /// Every repair, in the order it was made, with byte offsets into the input.
    pub repairs: Vec<Repair>,
    /// Byte range of the input that the value was read from.
    pub span: Range<usize>,
}

/// Finds the JSON value in `text` and returns it as strict JSON text with a record of every repair.
///
/// # Errors
/// - `NoJson` when the text holds no object or array and is not itself valid JSON;
/// - `DepthLimitExceeded` when containers nest deeper than `options.max_depth`;
/// - `InputLimitExceeded` when the text is longer than `options.max_input_length`;
/// - `RepairForbidden` when the text needs a repair that `options.forbid` names.
///
/// # Example
/// ```
/// use llm_response_sanitizer::{repair, RepairOptions, Status};
/// let out = repair("Sure! ```json\n{'name': 'Ada', tags: [\"x\",],}\n```", &RepairOptions::default()).unwrap();
/// assert_eq!(out.json, r#"{"name":"Ada","tags":["x"]}"#);
/// assert_eq!(out.status, Status::Repaired);
/// ```
pub fn repair(text: &str, options: &Options) -> Result<Repaired, Error> {
    repair_bytes(text, options).map(Repaired::into_text)
}

/// [`repair`] with the JSON text as bytes.
pub(crate) fn repair_bytes(text: &str, options: &Options) -> Result<Repaired<Vec<u8>>, Error> {
    if let Some(limit) = options.max_input_length {
        if text.len() > limit && utf16_len(text) > limit {
            return Err(Error::at(ErrorKind::InputLimitExceeded { limit }, text, 0));
        }
    }
    repair_in(text.as_bytes(), options, false).map_err(|f| fault_error(text, f))
}

/// [`repair_bytes`] of a text given as Latin-1 bytes (one byte per character, so a byte offset is also
/// the UTF-16 index), when no byte is in 0x80..=0xBF (which keeps every byte reading as it reads in the
/// UTF-8 form: see [`Parser::read_latin1`]). The JSON text it returns is Latin-1 too, with the escapes
/// of UTF-8 output. `None` when the text does not qualify or the repair fails: the caller then repairs
/// the UTF-8 form, which also gives the error its position.
///
/// Latin-1 is how a host such as V8 stores most strings: reading it as it is spares transcoding it to
/// UTF-8, checking that, and narrowing the result back.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn repair_latin1(s: &[u8], options: &Options) -> Option<Repaired<Vec<u8>>> {
    if options
        .max_input_length
        .is_some_and(|limit| s.len() > limit)
        || !has_no_continuation_bytes(s)
    {
        return None;
    }
    repair_in(s, options, true).ok()
}

/// [`repair_bytes`] of UTF-8 that the binding layer wrote itself from UTF-16 (see
/// `crate::encoding::utf16_to_utf8_in_place`), or that the host wrote (`TextEncoder`, Node's `Buffer`:
/// both write U+FFFD for a lone surrogate), read without a check: the parser takes bytes, and what it
/// writes for bytes that are not UTF-8 is still safe to hand on (the output forms replace them). `None`
/// when a length limit is set or the repair fails: the caller then repairs the checked text, which also
/// gives the error its position.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn repair_transcoded(s: &[u8], options: &Options) -> Option<Repaired<Vec<u8>>> {
    if options.max_input_length.is_some() {
        return None;
    }
    repair_in(s, options, false).ok()
}

/// The repair of the text `s` (UTF-8, or Latin-1 with `latin1`), faults at offsets of `s`.
#[cfg_attr(shipped, optimize(size))]
fn repair_in(s: &[u8], options: &Options, latin1: bool) -> Result<Repaired<Vec<u8>>, Fault> {
    let result = locate::locate(s)
        .ok_or((ErrorKind::NoJson, 0))
        .and_then(|src| {
            let mut parse = SourceParse::of_bytes(src, options, latin1)?;
            parse.feed_bytes(s, false)?;
            Ok(repaired(s, parse))
        });
    // Valid JSON passes through untouched. The strict pass (which forbids every repair) runs only when
    // the repair cannot settle validity: most invalid input is settled by its first repair. A parse
    // with no repairs read the whole text as the strict pass would, so it is valid even when the caller
    // assumed otherwise.
    match &result {
        Ok(out) if out.repairs.is_empty() => Ok(valid(s)),
        _ if options.assume_invalid => result,
        Ok(out) if settles_invalid(out.repairs[0].kind) => result,
        _ => strictly_valid_bytes(s, options.max_depth, latin1).map_or(result, Ok),
    }
}

/// Whether a text whose repair began with a repair of `kind` is certainly not valid JSON.
///
/// The strict pass is the same parser with every repair forbidden, so the two make the same steps up
/// to the first repair, where the strict pass fails. The exceptions: the locator's repairs (reasoning,
/// fences, prose, escaped JSON), made before parsing on text that may be valid (a `</think>` inside a
/// string), and a typographic quote closing a straight-quoted string, which only the repair takes as a
/// closer. With zero repairs the parse read the whole text as the strict pass would: it is valid.
fn settles_invalid(kind: RepairKind) -> bool {
    kind.class() != RepairClass::Extraction && kind != RepairKind::CurlyQuotes
}

/// Every top-level JSON value in `text`, in textual order, each located and repaired on its own (SPEC §5):
/// a wholly valid text is the only candidate; reasoning is never one. At most `max` are read. A
/// candidate that fails (a forbidden repair, too deep) is returned as its error, in its place.
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn candidates(
    text: &str,
    options: &Options,
    max: usize,
) -> Vec<Result<Repaired, Error>> {
    if let Some(limit) = options.max_input_length {
        if text.len() > limit && utf16_len(text) > limit {
            return vec![Err(Error::at(
                ErrorKind::InputLimitExceeded { limit },
                text,
                0,
            ))];
        }
    }
    if let Some(valid) = strictly_valid(text, options.max_depth) {
        return vec![Ok(valid.into_text())];
    }
    let mut out = Vec::new();
    let Some(answer) = locate::answer_start(text) else {
        return out;
    };
    let mut from = answer;
    while out.len() < max {
        let Some(src) = locate::next_candidate(text, from, from == answer) else {
            break;
        };
        let (start, fence) = (src.start, src.fence);
        let result = SourceParse::new(text, src, options).and_then(|mut parse| {
            parse.feed(text, false)?;
            Ok(repaired(text.as_bytes(), parse).into_text())
        });
        let end = match &result {
            Ok(r) => r.span.end.max(start + 1),
            Err(_) => start + 1,
        };
        out.push(result);
        from = locate::after_candidate(text, end, fence);
    }
    out
}

/// `text` as a [`Repaired`] result when it is strictly valid JSON nesting at most `max_depth` deep.
pub(crate) fn strictly_valid(text: &str, max_depth: usize) -> Option<Repaired<Vec<u8>>> {
    strictly_valid_bytes(text.as_bytes(), max_depth, false)
}

/// [`strictly_valid`] of a text given as bytes (Latin-1 with `latin1`).
fn strictly_valid_bytes(s: &[u8], max_depth: usize, latin1: bool) -> Option<Repaired<Vec<u8>>> {
    let mut parser = Parser::new(s, 0, None, RepairSet::ALL, max_depth);
    if latin1 {
        parser.read_latin1();
    }
    parser.run().ok()?;
    Some(valid(s))
}

/// The result for the text `s` that is valid JSON (out of line: three callers).
#[inline(never)]
pub(crate) fn valid(s: &[u8]) -> Repaired<Vec<u8>> {
    let start = s.iter().position(|&b| !is_json_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_json_space(b))
        .map_or(start, |e| e + 1);
    Repaired {
        json: s[start..end].to_vec(),
        status: Status::Valid,
        repairs: Vec::new(),
        span: start..end,
    }
}

/// The result of a finished parse of `text`.
#[cfg_attr(shipped, optimize(size))]
pub(crate) fn repaired(text: &[u8], parse: SourceParse) -> Repaired<Vec<u8>> {
    let (start, _) = parse.source();
    let out = parse.into_output(text);
    Repaired {
        json: out.json,
        status: Status::Repaired,
        repairs: out.repairs,
        span: start..out.end.max(start),
    }
}

impl Repaired<Vec<u8>> {
    /// The result with its JSON text as a `String`.
    pub(crate) fn into_text(self) -> Repaired {
        Repaired {
            json: String::from_utf8(self.json)
                .unwrap_or_else(|e| llm_response_sanitizer_schema::text::lossy(e.as_bytes())),
            status: self.status,
            repairs: self.repairs,
            span: self.span,
        }
    }
}

fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
#[allow(clippy::string_slice)] // a test may panic: it then fails
mod tests {
    use super::{
        repair_bytes, repair_latin1, strictly_valid, Options, Repair, Status, DEFAULT_MAX_DEPTH,
    };
    use crate::encoding::push_narrow_json;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    /// Pieces of valid and nearly valid JSON, and of what the locator and the typographic-quote rule
    /// read, so that glued at random they are often valid, often one repair away, and sometimes valid
    /// JSON that a repair would read differently.
    const PIECES: &[&str] = &[
        "{", "}", "[", "]", ",", ":", "\"", "\"a\"", "\"b\": ", "1", " ", "\n", "true", "'", "x",
        "”", "“", "\\\"", "</think>", "<think>", "```", "json", "//", "\u{feff}", "é",
    ];

    /// Pieces for the Latin-1 reading: structure, every kind of repair, and characters beyond ASCII
    /// whose UTF-8 and Latin-1 forms differ in length (accented letters, `â` and `ï`, which lead
    /// typographic and invisible sequences in UTF-8, `Â`), alone and in keys, words and chat tokens.
    const LATIN1_PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "'",
        " ",
        "\n",
        "\t",
        "\"k\": ",
        "k: ",
        "'k': ",
        "1",
        "1.",
        "-",
        "true",
        "True",
        "None",
        "NaN",
        "undefined",
        "x",
        "é",
        "â",
        "ï",
        "Â",
        "ÿ",
        "Ê",
        "éé",
        "\"é\"",
        "'âï'",
        "éa: ",
        "\\",
        "\\n",
        "\\u00e9",
        "//",
        "/*",
        "*/",
        "#",
        "...",
        "```",
        "```json\n",
        "<think>",
        "</think>",
        "<|im_end|>",
        "<|",
        "|>",
        "ÂÂÂÂÂÂÂÂÂÂÂÂÂÂÂÂ",
        "(",
        ")",
        "f(",
        "=",
        ";",
        "@",
        "\u{1}",
    ];

    /// The text as Latin-1 bytes, when every character fits in one.
    fn latin1_bytes(text: &str) -> Option<Vec<u8>> {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).ok())
            .collect()
    }

    /// The character index of each byte offset of `text` (and of its end).
    fn char_index(text: &str, offset: usize) -> usize {
        text[..offset].chars().count()
    }

    /// Checks that reading the Latin-1 form of `text` gives what repairing its UTF-8 form gives (see
    /// `latin1_reading_equals_the_utf8_repair`).
    fn same_reading(text: &str, options: &Options) -> Result<(), TestCaseError> {
        let bytes = latin1_bytes(text).unwrap();
        let qualifies = !text.chars().any(|c| ('\u{80}'..='\u{bf}').contains(&c));
        match (repair_latin1(&bytes, options), repair_bytes(text, options)) {
            (Some(l), Ok(u)) => {
                prop_assert!(qualifies);
                prop_assert_eq!(l.status, u.status, "{:?}", text);
                let mut narrow = Vec::new();
                push_narrow_json(&mut narrow, &u.json, true);
                prop_assert_eq!(l.json, narrow, "{:?}", text);
                let at = |r: &Repair| (r.kind, char_index(text, r.offset));
                prop_assert_eq!(
                    l.repairs
                        .iter()
                        .map(|r| (r.kind, r.offset))
                        .collect::<Vec<_>>(),
                    u.repairs.iter().map(at).collect::<Vec<_>>(),
                    "{:?}",
                    text
                );
                let span = char_index(text, u.span.start)..char_index(text, u.span.end);
                prop_assert_eq!(l.span, span, "{:?}", text);
            }
            (None, Ok(_)) => prop_assert!(!qualifies, "declined {:?}", text),
            (None, Err(_)) => {}
            (Some(_), Err(e)) => {
                prop_assert!(false, "{:?}: read as Latin-1, failed as UTF-8: {}", text, e)
            }
        }
        Ok(())
    }

    /// Digits straight after a member's comma go on with its number: thousands separators are dropped,
    /// other shapes are kept as strings, a numeric key stays a key, and a last group cut off by the end
    /// of the input is left out. Arrays keep their items.
    #[test]
    fn digits_after_a_members_comma() {
        for (text, json) in [
            ("{\"n\": 1,000,000}", "{\"n\":1000000}"),
            ("{\"n\": -12,345.5, \"m\": 2}", "{\"n\":-12345.5,\"m\":2}"),
            ("{\"n\": 12,50}", "{\"n\":\"12,50\"}"),
            ("{\"n\": 1234,567}", "{\"n\":\"1234,567\"}"),
            ("{\"n\": 0,125}", "{\"n\":\"0,125\"}"),
            ("{\"n\": +1,000}", "{\"n\":\"+1,000\"}"),
            ("{\"n\": 1e5,000}", "{\"n\":\"1e5,000\"}"),
            ("{\"n\": 1,2: \"b\"}", "{\"n\":1,\"2\":\"b\"}"),
            ("{\"n\": 1,000,0", "{\"n\":1000}"),
            ("{\"n\": 1,0", "{\"n\":1}"),
            ("[1,000]", "[1,\"000\"]"),
        ] {
            assert_eq!(
                super::repair(text, &Options::default()).unwrap().json,
                json,
                "{text}"
            );
        }
    }

    #[test]
    fn latin1_reading_counts_characters_as_utf8_does() {
        // A chat-template token's look-ahead is 64 bytes of UTF-8: `Â` takes two there, one in Latin-1.
        for n in 28..34 {
            let token = format!("<|{}|>", "Â".repeat(n));
            for text in [
                format!("{{\"a\": 1 {token} }}"),
                format!("{token}{{\"a\": 1}}"),
                format!("[1, {token}]"),
            ] {
                same_reading(&text, &Options::default()).unwrap();
            }
        }
        // Characters beyond ASCII where the parser skips or copies one character.
        for text in [
            "{\"a\": 1 é}",
            "{é: 1}",
            "[1 ÿ]",
            "{\"a\" ï 1}",
            "{\"k\": âïÂ}",
            "[\"é\" é]",
            "{:é}",
        ] {
            same_reading(text, &Options::default()).unwrap();
        }
        // A character in U+0080..U+00BF declines: its UTF-8 form has bytes a Latin-1 text never has.
        assert!(repair_latin1(&latin1_bytes("{a: '°'}").unwrap(), &Options::default()).is_none());
        assert!(repair_latin1(&latin1_bytes("{a: 'é'}").unwrap(), &Options::default()).is_some());
    }

    #[test]
    fn valid_json_that_a_repair_would_read_differently_is_valid() {
        // A typographic quote the repair would take as a closer, reasoning and fence markers and
        // escaped JSON inside strings, a string that holds brackets.
        for text in [
            r#"["”, "]"#,
            r#"{"a": "x” , ", "b": 1}"#,
            r#"{"a": "</think>"}"#,
            "[\"```json\", {\"b\": 1}]",
            r#""{\"a\": 1}""#,
            r#""[1, 2]""#,
        ] {
            let out = repair_bytes(text, &Options::default()).unwrap();
            assert_eq!(out.status, Status::Valid, "{text}");
            assert_eq!(out.json, text.as_bytes());
        }
    }

    #[test]
    fn valid_input_is_valid_even_when_assumed_invalid() {
        let options = Options {
            assume_invalid: true,
            ..Options::default()
        };
        let out = repair_bytes(" {\"a\": [1, 2]}\n", &options).unwrap();
        assert_eq!((out.status, out.repairs.len()), (Status::Valid, 0));
        assert_eq!(
            (out.json.as_slice(), out.span),
            (&b"{\"a\": [1, 2]}"[..], 1..14)
        );
        let out = repair_bytes("{\"a\": [1, 2,]}", &options).unwrap();
        assert_eq!(out.status, Status::Repaired);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Repairing first and checking strictly only when the repairs leave it open decides validity
        /// exactly as the strict pass alone does.
        #[test]
        fn validity_is_decided_as_the_strict_pass_decides_it(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..24)
        ) {
            let text = pieces.concat();
            let status = repair_bytes(&text, &Options::default()).map(|r| r.status);
            let strict = strictly_valid(&text, DEFAULT_MAX_DEPTH).is_some();
            prop_assert_eq!(status.as_ref().ok() == Some(&Status::Valid), strict, "{:?}", text);
            // A caller that assumed the text invalid hears "valid" exactly when nothing was repaired,
            // and only for valid text.
            let assumed = repair_bytes(&text, &Options { assume_invalid: true, ..Options::default() });
            if let Ok(out) = assumed {
                prop_assert_eq!(out.status == Status::Valid, out.repairs.is_empty(), "{:?}", text);
                prop_assert!(out.status != Status::Valid || strict, "{:?}", text);
            }
        }

        /// Without a report only the parser's first repair is kept, and nothing else changes: the JSON, the
        /// status, the span and the errors are those of the repair that keeps every one.
        #[test]
        fn without_a_report_only_the_first_repair_is_kept(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..24),
            latin1 in proptest::collection::vec(proptest::sample::select(LATIN1_PIECES), 0..24),
            assume_invalid in proptest::bool::ANY,
        ) {
            for text in [pieces.concat(), latin1.concat()] {
                let options = Options { assume_invalid, ..Options::default() };
                let full = repair_bytes(&text, &options);
                let first = repair_bytes(&text, &Options { report: false, ..options });
                match (full, first) {
                    (Ok(full), Ok(first)) => {
                        prop_assert_eq!(&first.json, &full.json, "{:?}", text);
                        prop_assert_eq!(first.status, full.status, "{:?}", text);
                        prop_assert_eq!(&first.span, &full.span, "{:?}", text);
                        // The locator's repairs, then the parser's first.
                        prop_assert!(full.repairs.starts_with(&first.repairs), "{:?}", text);
                        prop_assert_eq!(first.repairs.is_empty(), full.repairs.is_empty(), "{:?}", text);
                    }
                    (Err(full), Err(first)) => {
                        prop_assert_eq!(first.to_string(), full.to_string(), "{:?}", text)
                    }
                    (full, first) => prop_assert!(
                        false,
                        "{:?}: {:?} against {:?}",
                        text,
                        full.map(|o| o.status),
                        first.map(|o| o.status)
                    ),
                }
            }
        }

        /// Reading the Latin-1 form of a text gives what repairing its UTF-8 form gives: the same status
        /// and repairs at the same character positions, and the JSON text in the Latin-1 narrow form.
        /// It declines (`None`) exactly when the text has a character in U+0080..U+00BF or the repair
        /// fails.
        #[test]
        fn latin1_reading_equals_the_utf8_repair(
            pieces in proptest::collection::vec(proptest::sample::select(LATIN1_PIECES), 0..30),
            assume_invalid in proptest::bool::ANY,
            forbid_some in proptest::bool::ANY,
        ) {
            let mut options = Options { assume_invalid, ..Options::default() };
            if forbid_some {
                options.forbid.insert_code("unexpected_character");
                options.forbid.insert_code("unquoted_string");
            }
            same_reading(&pieces.concat(), &options)?;
        }
    }
}
