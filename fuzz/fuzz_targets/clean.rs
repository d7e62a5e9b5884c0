//! The cleaner on arbitrary text, options and chunking: never panics, and every chunking gives exactly
//! the one-shot text and reasoning.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llm_response_sanitizer::{clean_detailed, CleanOptions, Cleaner, ThinkTag};

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (head, rest) = data.split_at(3);
    let flags = head[0];
    let options = CleanOptions {
        think_tags: match flags & 3 {
            0 => vec![ThinkTag::new("<think>", "</think>")],
            1 => vec![ThinkTag::new("<t>", "</t>"), ThinkTag::new("<", ">")],
            2 => vec![ThinkTag::new("ab", "ba"), ThinkTag::new("abcab", "b")],
            _ => Vec::new(),
        },
        opening_tag_grace_period: (head[1] & 63) as usize % 40,
        grace_includes_leading_whitespace: head[1] & 64 != 0,
        expect_only_closing_think_tag: flags & 4 != 0,
        keep_text_without_closing_tag: head[2] & 1 != 0,
        response_start_text_to_remove: if flags & 8 != 0 {
            vec!["A".into(), "As".into(), String::new()]
        } else {
            vec![]
        },
        response_start_text_to_remove_endpoint_wide: if head[1] & 128 != 0 {
            vec![" s ".into(), "\u{3000}A".into()]
        } else {
            vec![]
        },
        remove_timestamp_prefix: flags & 16 != 0,
        remove_assistant_prefix: flags & 32 != 0,
        trim: flags & 64 != 0,
        think_only: flags & 128 != 0,
    };
    let text = String::from_utf8_lossy(rest);
    let whole = clean_detailed(&text, &options);
    // Chunk lengths in characters, cycling through the seed byte's bits.
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut cleaner = Cleaner::new(&options);
    let mut out = String::new();
    let (mut i, mut k) = (0usize, 0u32);
    while i < chars.len() {
        let n = 1 + ((head[2].rotate_left(k) as usize) % 5);
        let end = chars.get(i + n).map_or(text.len(), |c| c.0);
        out.push_str(&cleaner.push(&text[chars[i].0..end]));
        out.push_str(&cleaner.push(""));
        i += n;
        k += 1;
    }
    out.push_str(&cleaner.finish());
    assert_eq!(out, whole.text, "chunked differs for {text:?}");
    assert_eq!(cleaner.reasoning(), whole.reasoning.as_deref());
});
