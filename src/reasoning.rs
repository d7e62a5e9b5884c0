//! The reasoning formats models write before their answer, in one table.
//!
//! The locator skips these blocks when it looks for the JSON (SPEC §2.3); the TypeScript API offers the same
//! pairs as `COMMON_THINK_TAGS` for the cleaner (its build generates them from [`REASONING_TAGS`]), so the
//! two can never disagree about what counts as reasoning.

/// Opening and closing tags of the reasoning blocks models emit, matched ASCII-case-insensitively:
/// DeepSeek-R1 and Qwen (`<think>`), Claude-style prompts (`<thinking>`), other open models
/// (`<reasoning>`, `<reflection>`), Mistral's Magistral (`[THINK]`), gpt-oss's harmony format, whose
/// analysis channel is the reasoning and whose final channel is the answer, ByteDance's Seed-OSS
/// (`<seed:think>`), Gemma 4's thought channel and Cohere's Command A Reasoning, as a server that keeps
/// special tokens in the text writes them, and LG's EXAONE Deep (`<thought>`, which its chat template
/// writes, so the answer mostly holds only the closing tag), Moonshot's Kimi-VL Thinking (`◁think▷`, whose
/// tags start with U+25C1), the OpenThoughts format of OpenThinker, Sky-T1 and Bespoke-Stratos
/// (`<|begin_of_thought|>`, its answer then between `<|begin_of_solution|>` and `<|end_of_solution|>`,
/// which the locator passes over as chat-template tokens), IBM's Granite 3.2, which writes its thoughts
/// after one sentence and its answer after another, and ServiceNow's Apriel Thinker, whose reasoning
/// follows the sentence its chat template or the model writes first and ends at the marker of its final
/// response.
pub const REASONING_TAGS: [(&str, &str); 14] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<reflection>", "</reflection>"),
    ("[THINK]", "[/THINK]"),
    (
        "<|channel|>analysis<|message|>",
        "<|start|>assistant<|channel|>final<|message|>",
    ),
    ("<seed:think>", "</seed:think>"),
    ("<|channel>thought", "<channel|>"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    ("<thought>", "</thought>"),
    ("◁think▷", "◁/think▷"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("Here is my thought process:", "Here is my response:"),
    ("Here are my reasoning steps:", "[BEGIN FINAL RESPONSE]"),
];

/// The length of the longest closing tag: how far back a search resumed on a longer text must look.
pub const LONGEST_CLOSING_TAG: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < REASONING_TAGS.len() {
        if REASONING_TAGS[i].1.len() > max {
            max = REASONING_TAGS[i].1.len();
        }
        i += 1;
    }
    max
};

/// The first three bytes of a tag, ASCII-lowercased, as one number (every tag is longer).
const fn head(b: &[u8]) -> u32 {
    (b[0].to_ascii_lowercase() as u32)
        | (b[1].to_ascii_lowercase() as u32) << 8
        | (b[2].to_ascii_lowercase() as u32) << 16
}

/// The [`head`]s of the opening tags (`closing` false) or the closing ones, in table order.
const fn heads(closing: bool) -> [u32; REASONING_TAGS.len()] {
    let mut out = [0; REASONING_TAGS.len()];
    let mut i = 0;
    while i < out.len() {
        let pair = REASONING_TAGS[i];
        out[i] = head(if closing { pair.1 } else { pair.0 }.as_bytes());
        i += 1;
    }
    out
}

/// [`heads`] of both kinds, indexed by `closing`.
const HEADS: [[u32; REASONING_TAGS.len()]; 2] = [heads(false), heads(true)];

/// The reasoning tag at `s[i..]`, opening or (with `closing`) closing: its length and its index in
/// [`REASONING_TAGS`].
#[inline(never)]
pub(crate) fn tag_at(s: &[u8], i: usize, closing: bool) -> Option<(usize, usize)> {
    let first = s.get(i..i + 3)?;
    // Text with markup stops the locator's scans at every `<` (`<div>`, `</p>`) and arrays at every `[`:
    // three bytes answer for nearly all of them.
    if !HEADS[usize::from(closing)].contains(&head(first)) {
        return None;
    }
    whole_tag_at(s, i, closing)
}

/// The reasoning tag at `s[i..]` of either kind: its length, its index in [`REASONING_TAGS`] and whether it
/// closes. Some opening and closing tags start alike (Cohere's `<|START_THINKING|>` and gpt-oss's
/// `<|start|>assistant…`), so a head of both kinds is tried as both; no text is a tag of both kinds.
#[inline(never)]
pub(crate) fn any_tag_at(s: &[u8], i: usize) -> Option<(usize, usize, bool)> {
    let key = head(s.get(i..i + 3)?);
    let either = |closing: bool| {
        let found = HEADS[usize::from(closing)].contains(&key);
        found.then(|| whole_tag_at(s, i, closing)).flatten()
    };
    match either(false) {
        Some((len, n)) => Some((len, n, false)),
        None => either(true).map(|(len, n)| (len, n, true)),
    }
}

/// [`tag_at`] past its quick check.
fn whole_tag_at(s: &[u8], i: usize, closing: bool) -> Option<(usize, usize)> {
    REASONING_TAGS.iter().enumerate().find_map(|(n, pair)| {
        let tag = if closing { pair.1 } else { pair.0 }.as_bytes();
        is_at(s, i, tag).then_some((tag.len(), n))
    })
}

/// Whether `tag` is at `s[i..]`, in any ASCII case. Out of line: inlined, the search above was unrolled
/// into a comparison per tag (1.3 KB of module), and the locator's other comparisons use it too.
#[inline(never)]
pub(crate) fn is_at(s: &[u8], i: usize, tag: &[u8]) -> bool {
    s.get(i..i + tag.len())
        .is_some_and(|here| here.eq_ignore_ascii_case(tag))
}

/// Whether a reasoning tag that does not start with `<` (`[/THINK]`, `◁/think▷`) ends just before byte `end`
/// of `s`. Such a tag holds no `<`, so a stream that watches for `<` to decide when to look for reasoning
/// again watches for the last bytes of these too (`]`, and the last byte of `▷`).
#[inline(never)]
pub(crate) fn bare_tag_ends_at(s: &[u8], end: usize) -> bool {
    REASONING_TAGS
        .iter()
        .flat_map(|(open, close)| [open, close])
        .filter(|tag| !tag.starts_with('<'))
        .any(|tag| end >= tag.len() && is_at(s, end - tag.len(), tag.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_in_any_case_and_only_whole() {
        assert_eq!(tag_at(b"<THINK>x", 0, false), Some((7, 0)));
        assert_eq!(tag_at(b"<thinking>", 0, false), Some((10, 1)));
        assert_eq!(tag_at(b"<think", 0, false), None);
        assert_eq!(tag_at(b"[/think]", 0, true), Some((8, 4)));
        assert_eq!(tag_at(b"[/think]", 0, false), None);
        assert_eq!(tag_at(b"[1]", 0, false), None);
        assert!(bare_tag_ends_at(b"x[/Think]", 9) && bare_tag_ends_at(b"[THINK]", 7));
        assert!(!bare_tag_ends_at(b"[THINK]", 6) && !bare_tag_ends_at(b"[1]", 3));
        let kimi = "x◁/think▷".as_bytes();
        assert!(bare_tag_ends_at(kimi, kimi.len()) && !bare_tag_ends_at(kimi, kimi.len() - 1));
        assert!(!bare_tag_ends_at(b"x</think>", 9));
    }

    #[test]
    fn every_tag_is_found_in_any_case_and_markup_is_not() {
        for (n, (open, close)) in REASONING_TAGS.iter().enumerate() {
            for (tag, closing) in [(open, false), (close, true)] {
                let upper = tag.to_ascii_uppercase();
                for text in [tag.to_string(), upper, format!("x{tag}x")] {
                    let at = usize::from(text.starts_with('x'));
                    assert_eq!(tag_at(text.as_bytes(), at, closing), Some((tag.len(), n)));
                    assert_eq!(tag_at(text.as_bytes(), at, !closing), None, "{text}");
                    let either = any_tag_at(text.as_bytes(), at);
                    assert_eq!(either, Some((tag.len(), n, closing)), "{text}");
                }
            }
        }
        for markup in [
            "<div>",
            "</p>",
            "<a href=\"/\">",
            "</table>",
            "<t",
            "[1, 2]",
            "[/x]",
            "<|im_end|>",
        ] {
            let s = markup.as_bytes();
            assert_eq!(
                (tag_at(s, 0, false), tag_at(s, 0, true), any_tag_at(s, 0)),
                (None, None, None),
                "{markup}"
            );
        }
        // `any_tag_at` tries both kinds where the first three bytes allow both: no tag is also one of
        // the other kind, in any case.
        let all = REASONING_TAGS.iter().flat_map(|(o, c)| [o, c]);
        for (a, b) in all.clone().flat_map(|a| all.clone().map(move |b| (a, b))) {
            assert!(a == b || !a.eq_ignore_ascii_case(b), "{a} / {b}");
        }
        assert_eq!(any_tag_at(b"<|start_thinking|>", 0), Some((18, 8, false)));
        assert_eq!(
            any_tag_at(b"<|START|>assistant<|channel|>final<|message|>", 0),
            Some((45, 5, true))
        );
        // No closing tag is a prefix of another: where one matches, no other does (the locator's
        // `end_of_block` compares only its own).
        for (_, a) in REASONING_TAGS {
            for (_, b) in REASONING_TAGS.iter().filter(|(_, b)| b != &a) {
                assert!(
                    !a.to_ascii_lowercase().starts_with(&b.to_ascii_lowercase()),
                    "{b} / {a}"
                );
            }
        }
    }

    #[test]
    fn longest_closing_tag_is_measured() {
        assert_eq!(
            LONGEST_CLOSING_TAG,
            "<|start|>assistant<|channel|>final<|message|>".len()
        );
        // Every tag starts with what the scans for one stop at (`<`, `[`, or `◁`, found by its second
        // byte), but the sentences of Granite and Apriel: their opening sentence is a tag only where the
        // answer starts, and Granite's closing one only in its own block (`end_of_block` looks for the
        // closing tag's own first byte), never alone.
        for (open, close) in REASONING_TAGS {
            let stops = |t: &str| matches!(t.as_bytes()[0], b'<' | b'[' | 0xE2);
            let sentence = open.starts_with("Here ");
            assert!(sentence || stops(close) && stops(open), "{open}");
        }
    }
}
