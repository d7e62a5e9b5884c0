//! The cleaner (SPEC §4): the corpus, a plain one-shot transcription of the spec to compare against,
//! chunking parity as a property, and the hold-back bound.
#![allow(clippy::string_slice)] // a test may panic: it then fails

mod common;

use common::{check_clean_case, clean_cases, clean_chunked};
use llm_response_sanitizer::{
    clean, clean_detailed, is_js_whitespace, CleanOptions, Cleaner, ThinkTag,
};
use proptest::prelude::*;

#[test]
fn every_clean_case() {
    let cases = clean_cases();
    assert!(cases.len() >= 70);
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check_clean_case(c).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_clean_case_agrees_with_the_spec_transcription() {
    for c in clean_cases() {
        assert_eq!(spec_clean(&c.input, &c.options), c.expected, "{}", c.name);
    }
}

/// SPEC §4 read literally, on whole strings, with none of the engine's machinery.
fn spec_clean(text: &str, o: &CleanOptions) -> String {
    let pairs: Vec<&ThinkTag> = o
        .think_tags
        .iter()
        .filter(|t| !t.start.is_empty() && !t.end.is_empty())
        .collect();
    // ASCII lowercasing keeps byte offsets, so positions found in `lower` index `text`.
    let lower = text.to_ascii_lowercase();
    let first = |from: usize, tags: &[&str]| -> Option<(usize, usize)> {
        tags.iter()
            .enumerate()
            .filter_map(|(k, t)| {
                lower[from..]
                    .find(&t.to_ascii_lowercase())
                    .map(|i| (from + i, k))
            })
            .min()
    };
    let mut t = text.to_owned();
    if !pairs.is_empty() {
        if o.expect_only_closing_think_tag {
            let ends: Vec<&str> = pairs.iter().map(|p| p.end.as_str()).collect();
            t = match first(0, &ends) {
                Some((i, k)) => text[i + ends[k].len()..].to_owned(),
                None if o.keep_text_without_closing_tag => text.to_owned(),
                None => String::new(),
            };
        } else {
            let starts: Vec<&str> = pairs.iter().map(|p| p.start.as_str()).collect();
            if let Some((i, k)) = first(0, &starts) {
                let ws = if o.grace_includes_leading_whitespace {
                    0
                } else {
                    text.len() - text.trim_start_matches(is_js_whitespace).len()
                };
                let between = if i > ws {
                    text[ws..i].chars().count()
                } else {
                    0
                };
                let after = i + starts[k].len();
                if between <= o.opening_tag_grace_period {
                    if let Some((j, _)) = first(after, &[pairs[k].end.as_str()]) {
                        t = format!("{}{}", &text[..i], &text[j + pairs[k].end.len()..]);
                    }
                }
            }
        }
    }
    if o.think_only {
        return t;
    }
    let lstrip = |s: &str| s.trim_start_matches(is_js_whitespace).to_owned();
    t = lstrip(&t);
    if let Some(p) = o
        .response_start_text_to_remove
        .iter()
        .find(|p| !p.is_empty() && t.starts_with(p.as_str()))
    {
        t = lstrip(&t[p.len()..]);
    }
    if let Some(p) = o
        .response_start_text_to_remove_endpoint_wide
        .iter()
        .map(|p| p.trim_matches(is_js_whitespace))
        .find(|p| !p.is_empty() && t.starts_with(p))
    {
        t = lstrip(&t[p.len()..]);
    }
    if o.remove_timestamp_prefix {
        if let Some(rest) = t.strip_prefix("[Sent ") {
            // `[^\]\r\n]{0,200} ago\]` (bytes): any " ago]" whose run before it has no `]` or line break.
            let hit = rest
                .match_indices(" ago]")
                .map(|(k, _)| k)
                .find(|&k| k <= 200 && !rest[..k].contains([']', '\r', '\n']));
            if let Some(k) = hit {
                t = lstrip(&rest[k + " ago]".len()..]);
            }
        }
    }
    if o.remove_assistant_prefix && t.starts_with("Assistant:") {
        t = lstrip(&t["Assistant:".len()..]);
    }
    if o.trim {
        t = t.trim_end_matches(is_js_whitespace).to_owned();
    }
    t
}

fn options_strategy() -> impl Strategy<Value = CleanOptions> {
    let tags = prop_oneof![
        4 => Just(vec![ThinkTag::new("<think>", "</think>")]),
        1 => Just(vec![ThinkTag::new("[THINK]", "[/THINK]")]),
        1 => Just(vec![
            ThinkTag::new("<thinking>", "</thinking>"),
            ThinkTag::new("<think>", "</think>"),
            ThinkTag::new("<reasoning>", "</reasoning>"),
        ]),
        1 => Just(vec![ThinkTag::new("cd", "x"), ThinkTag::new("abcdef", "xyz")]),
        1 => Just(Vec::new()),
    ];
    let list =
        |choices: Vec<&'static str>| prop::collection::vec(prop::sample::select(choices), 0..3);
    let prefixes = list(vec![
        "Narrator:",
        "Narr",
        "Bot",
        "Bot:",
        "😀",
        "",
        "Assistant",
    ]);
    let endpoint = list(vec![
        " Bot: ",
        "Narr",
        "\u{3000}😀",
        "  ",
        "analysis<|message|>",
    ]);
    (
        tags,
        prop_oneof![
            Just(0usize),
            Just(1),
            Just(3),
            Just(10),
            Just(100),
            0usize..200
        ],
        any::<bool>(),
        prefixes,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        endpoint,
        // Think-only, grace counted from the start, text kept without a closing tag: rarer than the rest.
        prop::bool::weighted(0.2),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                think_tags,
                grace,
                only_closing,
                prefixes,
                ts,
                asst,
                trim,
                endpoint,
                think_only,
                from_start,
                keep,
            )| CleanOptions {
                think_tags,
                opening_tag_grace_period: grace,
                grace_includes_leading_whitespace: from_start,
                expect_only_closing_think_tag: only_closing,
                keep_text_without_closing_tag: keep,
                response_start_text_to_remove: prefixes.into_iter().map(str::to_owned).collect(),
                response_start_text_to_remove_endpoint_wide: endpoint
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
                remove_timestamp_prefix: ts,
                remove_assistant_prefix: asst,
                trim,
                think_only,
            },
        )
}

/// Text built from the pieces that make cleaning hard: tags whole and in halves, in any case;
/// prefixes; whitespace of every kind; emoji; runs long enough to cross the grace boundary.
fn text_strategy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "<think>",
            "</think>",
            "<THINK>",
            "</Think>",
            "<thi",
            "nk>",
            "</th",
            "<thinking>",
            "</thinking>",
            "<reasoning>",
            "</reasoning>",
            "[THINK]",
            "[/THINK]",
            "abcdef",
            "cd",
            "x",
            "xyz",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\t",
            "\u{3000}",
            "\u{FEFF}",
            "\u{85}",
            "😀",
            "é",
            "a",
            "Hello, traveller. ",
            "Assistant:",
            "Assistant",
            "[Sent ",
            " ago]",
            "5 minutes",
            "]",
            "Narrator:",
            "Narr",
            "Bot:",
            "{\"a\":1}",
        ])
        .prop_map(str::to_owned),
        (1usize..130).prop_map(|n| "y".repeat(n)),
        "[ -~]{0,8}",
    ];
    // Heads that put removable things where the rules look for them.
    let head = prop::collection::vec(
        prop::sample::select(vec![
            "",
            "<think>r</think>",
            "<THINK>",
            "Assistant: ",
            "Assistant:",
            "[Sent 5 minutes ago] ",
            "[Sent  ago]",
            "Narrator: ",
            "Bot",
            " \n",
            "\u{3000}",
        ]),
        0..4,
    );
    (head, prop::collection::vec(piece, 0..14)).prop_map(|(h, v)| h.concat() + &v.concat())
}

/// Splits `text` at the given fractions of its character boundaries, empty chunks included.
fn split_at_fractions<'a>(text: &'a str, cuts: &[f64]) -> Vec<&'a str> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|f| bounds[((bounds.len() - 1) as f64 * f) as usize])
        .collect();
    at.sort_unstable();
    let mut chunks = Vec::new();
    let mut prev = 0;
    for a in at {
        chunks.push(&text[prev..a]);
        prev = a;
    }
    chunks.push(&text[prev..]);
    chunks
}

proptest! {
    #[test]
    fn clean_matches_the_spec_transcription(text in text_strategy(), options in options_strategy()) {
        prop_assert_eq!(clean(&text, &options), spec_clean(&text, &options));
    }

    #[test]
    fn every_chunking_equals_one_shot(
        text in text_strategy(),
        options in options_strategy(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..12),
    ) {
        let whole = clean_detailed(&text, &options);
        let chunks = split_at_fractions(&text, &cuts);
        let (out, reasoning) = clean_chunked(&chunks, &options);
        prop_assert_eq!(out, whole.text);
        prop_assert_eq!(reasoning, whole.reasoning);
    }

    /// A cleaner reset after any part of one text, finished or not, cleans the next as a new one does.
    #[test]
    fn a_reset_cleaner_is_a_new_one(
        first in text_strategy(),
        stop in 0.0f64..1.0,
        finish in any::<bool>(),
        text in text_strategy(),
        options in options_strategy(),
    ) {
        let mut cleaner = Cleaner::new(&options);
        let mut cut = (first.len() as f64 * stop) as usize;
        while !first.is_char_boundary(cut) {
            cut -= 1;
        }
        cleaner.push(&first[..cut]);
        if finish {
            cleaner.finish();
        }
        cleaner.reset();
        let new = Cleaner::new(&options);
        prop_assert_eq!(cleaner.pending_reasoning(), new.pending_reasoning());
        let out = cleaner.push(&text) + &cleaner.finish();
        let whole = clean_detailed(&text, &options);
        prop_assert_eq!(out, whole.text);
        prop_assert_eq!(cleaner.reasoning(), whole.reasoning.as_deref());
    }

    /// The reasoning's span, after a whole text or any chunking of it (after a reset too), is where the
    /// reasoning is in the text.
    #[test]
    fn the_reasoning_span_is_where_the_reasoning_is(
        first in text_strategy(),
        text in text_strategy(),
        options in options_strategy(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..12),
    ) {
        let mut cleaner = Cleaner::new(&options);
        cleaner.clean_whole(&first);
        let whole = clean_detailed(&text, &options);
        cleaner.clean_whole(&text);
        let span = cleaner.reasoning_span();
        prop_assert_eq!(span.clone().and_then(|r| text.get(r)), whole.reasoning.as_deref());
        prop_assert_eq!(span.is_some(), whole.reasoning.is_some());
        let mut streamed = Cleaner::new(&options);
        for chunk in split_at_fractions(&text, &cuts) {
            streamed.push(chunk);
        }
        streamed.finish();
        prop_assert_eq!(streamed.reasoning_span(), span);
    }

    #[test]
    fn one_character_chunks_equal_one_shot(text in text_strategy(), options in options_strategy()) {
        let pieces: Vec<String> = text.chars().map(String::from).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        prop_assert_eq!(clean_chunked(&refs, &options).0, clean(&text, &options));
    }

    /// Without prefixes to look for, `flush` between any chunks changes nothing.
    #[test]
    fn flush_without_prefixes_changes_nothing(
        text in text_strategy(),
        options in options_strategy(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..12),
    ) {
        let options = CleanOptions {
            response_start_text_to_remove: Vec::new(),
            response_start_text_to_remove_endpoint_wide: Vec::new(),
            remove_timestamp_prefix: false,
            remove_assistant_prefix: false,
            ..options
        };
        let mut cleaner = Cleaner::new(&options);
        let mut out = String::new();
        for chunk in split_at_fractions(&text, &cuts) {
            out.push_str(&cleaner.push(chunk));
            out.push_str(&cleaner.flush());
        }
        out.push_str(&cleaner.finish());
        prop_assert_eq!(out, clean(&text, &options));
    }

    /// `flush` after a chunk gives what the prefix stage held, cleaned as if the text ended there, and
    /// the rest of the text then passes through the body unchanged.
    #[test]
    fn flush_decides_the_prefixes_on_what_has_arrived(
        text in text_strategy(),
        options in options_strategy(),
        cut in 0.0f64..1.0,
    ) {
        let options = CleanOptions { think_tags: Vec::new(), trim: false, ..options };
        let chunks = split_at_fractions(&text, &[cut]);
        let mut cleaner = Cleaner::new(&options);
        let mut out = cleaner.push(chunks[0]);
        out.push_str(&cleaner.flush());
        let first = clean(chunks[0], &options);
        if !first.is_empty() {
            prop_assert_eq!(&out, &first);
            out.push_str(&cleaner.push(chunks[1]));
            out.push_str(&cleaner.finish());
            prop_assert_eq!(out, format!("{first}{}", chunks[1]));
        }
    }

    /// With nothing to remove, everything but trailing whitespace is released as soon as it arrives.
    #[test]
    fn plain_text_is_released_at_once(text in "[a-z ,.\n😀]{0,300}", cuts in prop::collection::vec(0.0f64..1.0, 0..10)) {
        let mut cleaner = Cleaner::new(&CleanOptions::default());
        let mut out = String::new();
        let mut pushed = String::new();
        for chunk in split_at_fractions(&text, &cuts) {
            out.push_str(&cleaner.push(chunk));
            pushed.push_str(chunk);
            prop_assert_eq!(&out, pushed.trim_start_matches(is_js_whitespace).trim_end_matches(is_js_whitespace));
        }
    }

    /// Arbitrary text never panics, and the output is never longer than the input.
    #[test]
    fn arbitrary_text_is_safe(text in any::<String>(), options in options_strategy()) {
        let out = clean(&text, &options);
        prop_assert!(out.len() <= text.len());
    }
}

/// Pushes `text` one character at a time and returns the largest hold-back seen.
fn max_held(text: &str, options: &CleanOptions) -> usize {
    let mut cleaner = Cleaner::new(options);
    let mut buf = [0u8; 4];
    text.chars()
        .map(|c| {
            cleaner.push(c.encode_utf8(&mut buf));
            cleaner.held_len()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn hold_back_before_a_tag_is_at_most_a_partial_tag() {
    // Words with single spaces: the only thing held is a tag that may be arriving (or one space).
    let text = "I think <th that <thin maybe <think not <thinking yes. ".repeat(20);
    let options = CleanOptions {
        opening_tag_grace_period: 10_000,
        ..CleanOptions::default()
    };
    assert!(max_held(&text, &options) <= "<think>".len());
}

#[test]
fn hold_back_for_prefixes_is_at_most_the_longest_prefix() {
    let options = CleanOptions {
        response_start_text_to_remove: vec!["Narrator says:".into(), "Nar".into()],
        remove_assistant_prefix: true,
        ..CleanOptions::default()
    };
    let text = "Narrator sa ...and then the story goes on without pause. ".repeat(5);
    assert!(max_held(&text, &options) <= "Narrator says:".len());
}

#[test]
fn hold_back_while_trimming_is_the_trailing_whitespace() {
    let text = "The end.\n\n\n\n";
    let mut cleaner = Cleaner::new(&CleanOptions::default());
    assert_eq!(cleaner.push(text), "The end.");
    assert_eq!(cleaner.held_len(), 4);
    assert_eq!(cleaner.push(" More."), "\n\n\n\n More.");
    assert_eq!(cleaner.held_len(), 0);
}

#[test]
fn after_the_grace_period_text_passes_straight_through() {
    let mut cleaner = Cleaner::new(&CleanOptions {
        opening_tag_grace_period: 5,
        ..CleanOptions::default()
    });
    assert_eq!(cleaner.push("Hello world"), "Hello world");
    // A tag this late is ordinary text, released at once.
    assert_eq!(cleaner.push(" <think>"), " <think>");
    assert_eq!(cleaner.held_len(), 0);
}

#[test]
fn inside_a_block_the_reasoning_is_visible_but_provisional() {
    let mut cleaner = Cleaner::new(&CleanOptions::default());
    assert_eq!(cleaner.push("<think>The door is locked.</th"), "");
    assert_eq!(cleaner.pending_reasoning(), Some("The door is locked."));
    assert_eq!(cleaner.reasoning(), None);
    assert_eq!(cleaner.push("ink>Try the window."), "Try the window.");
    assert_eq!(cleaner.reasoning(), Some("The door is locked."));
    assert_eq!(cleaner.pending_reasoning(), None);
}

#[test]
fn unterminated_block_comes_back_at_finish() {
    let mut cleaner = Cleaner::new(&CleanOptions::default());
    assert_eq!(cleaner.push("<think>never closed "), "");
    assert_eq!(cleaner.finish(), "<think>never closed");
    assert_eq!(cleaner.reasoning(), None);
}

/// The span counts the text released before the block in earlier chunks, and a tag split between chunks.
#[test]
fn the_reasoning_span_counts_what_earlier_chunks_released() {
    let text = "Sure. <think>Hm.</think> One.";
    for cut in [3, 6, 9, 14] {
        let mut cleaner = Cleaner::new(&CleanOptions::default());
        let out = cleaner.push(&text[..cut]) + &cleaner.push(&text[cut..]) + &cleaner.finish();
        assert_eq!(out, "Sure.  One.");
        assert_eq!(cleaner.reasoning_span(), Some(13..16), "cut at {cut}");
    }
    let only_closing = CleanOptions {
        expect_only_closing_think_tag: true,
        ..CleanOptions::default()
    };
    let mut cleaner = Cleaner::new(&only_closing);
    assert_eq!(cleaner.clean_whole("Hm.</think> One."), "One.");
    assert_eq!(cleaner.reasoning_span(), Some(0..3));
}

#[test]
fn reset_drops_what_was_held() {
    let options = CleanOptions {
        remove_assistant_prefix: true,
        ..CleanOptions::default()
    };
    let mut cleaner = Cleaner::new(&options);
    // Trailing whitespace held for trimming, then a prefix still arriving, then an open block.
    for held in ["Hello  \n", "Assist", "<think>plan"] {
        cleaner.reset();
        cleaner.push(held);
        assert!(cleaner.held_len() > 0, "{held:?}");
        cleaner.reset();
        assert_eq!(cleaner.held_len(), 0);
        assert_eq!(cleaner.push("x") + &cleaner.finish(), "x", "after {held:?}");
    }
}

#[test]
fn finish_is_final() {
    let mut cleaner = Cleaner::new(&CleanOptions::default());
    assert_eq!(cleaner.push("a "), "a");
    assert_eq!(cleaner.finish(), "");
    assert_eq!(cleaner.push("b"), "");
    assert_eq!(cleaner.finish(), "");
}

#[test]
fn long_runs_of_partial_tags_pass_through_unchanged() {
    // Shapes that would make a naive rescan quadratic: partial tags over and over, inside and outside a
    // block. Their work is counted in the growth stage (`examples/work.rs` under valgrind); here, the text.
    let partial = "<thin".repeat(200_000);
    let options = CleanOptions {
        opening_tag_grace_period: usize::MAX,
        ..CleanOptions::default()
    };
    assert_eq!(
        clean_chunked(&[&partial[..500_000], &partial[500_000..]], &options).0,
        partial
    );
    let inside = format!("<think>{}", "</thin".repeat(200_000));
    let pieces: Vec<&str> = (0..inside.len())
        .step_by(7)
        .map(|i| &inside[i..(i + 7).min(inside.len())])
        .collect();
    assert_eq!(clean_chunked(&pieces, &CleanOptions::default()).0, inside);
}
