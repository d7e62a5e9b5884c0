//! The reasoning formats models write before their answer, in one table.
//!
//! The locator skips these blocks when it looks for the JSON (SPEC §2.3); the TypeScript API offers the same
//! pairs as `COMMON_THINK_TAGS` for the cleaner (its build generates them from [`REASONING_TAGS`]), so the
//! two can never disagree about what counts as reasoning.

/// Opening and closing tags of the reasoning blocks models emit, matched ASCII-case-insensitively:
/// DeepSeek-R1 and Qwen (`<think>`), Claude-style prompts (`<thinking>`), other open models
/// (`<reasoning>`, `<reflection>`), Mistral's Magistral (`[THINK]`) and gpt-oss's harmony format, whose
/// analysis channel is the reasoning and whose final channel is the answer.
pub const REASONING_TAGS: [(&str, &str); 6] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<reflection>", "</reflection>"),
    ("[THINK]", "[/THINK]"),
    (
        "<|channel|>analysis<|message|>",
        "<|start|>assistant<|channel|>final<|message|>",
    ),
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

/// Whether a tag can start with byte `b`: the locator's scans stop only at these.
#[inline]
pub(crate) fn may_start_tag(b: u8) -> bool {
    b == b'<' || b == b'['
}

/// The reasoning tag at `s[i..]`, opening or (with `closing`) closing: its length and its index in
/// [`REASONING_TAGS`].
#[inline(never)]
pub(crate) fn tag_at(s: &[u8], i: usize, closing: bool) -> Option<(usize, usize)> {
    if !s.get(i).is_some_and(|&b| may_start_tag(b)) {
        return None;
    }
    REASONING_TAGS.iter().enumerate().find_map(|(n, pair)| {
        let tag = if closing { pair.1 } else { pair.0 }.as_bytes();
        let here = s.get(i..i + tag.len())?;
        here.eq_ignore_ascii_case(tag).then_some((tag.len(), n))
    })
}

/// Whether a reasoning tag that starts with `[` ends just before byte `end` of `s`. Such a tag holds no `<`,
/// so a stream that watches for `<` to decide when to look for reasoning again watches for these too.
pub(crate) fn bracket_tag_ends_at(s: &[u8], end: usize) -> bool {
    REASONING_TAGS
        .iter()
        .flat_map(|(open, close)| [open, close])
        .filter(|tag| tag.starts_with('['))
        .any(|tag| {
            end >= tag.len()
                && s.get(end - tag.len()..end)
                    .is_some_and(|t| t.eq_ignore_ascii_case(tag.as_bytes()))
        })
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
        assert!(bracket_tag_ends_at(b"x[/Think]", 9) && bracket_tag_ends_at(b"[THINK]", 7));
        assert!(!bracket_tag_ends_at(b"[THINK]", 6) && !bracket_tag_ends_at(b"[1]", 3));
    }

    #[test]
    fn longest_closing_tag_is_measured() {
        assert_eq!(
            LONGEST_CLOSING_TAG,
            "<|start|>assistant<|channel|>final<|message|>".len()
        );
        // Every tag starts with a byte the scans stop at.
        for (open, close) in REASONING_TAGS {
            assert!(may_start_tag(open.as_bytes()[0]) && may_start_tag(close.as_bytes()[0]));
        }
    }
}
