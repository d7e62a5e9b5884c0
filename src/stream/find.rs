//! Finding the first of several tags in text that arrives in pieces.
//!
//! Tags match ASCII-case-insensitively (other characters must be equal). "First" means the earliest
//! start; at one start the tag listed first wins. While text is still arriving, a tag that could begin
//! at the end of what has been seen is reported as pending, so callers hold back only that tail.

use crate::prelude::*;
use crate::reasoning::is_at;
use crate::repair::chars::find_byte3_far;
/// The outcome of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A tag starts at this byte offset; `tag` is its index in the list.
    Match {
        /// Byte offset of the tag's first byte.
        start: usize,
        /// Index of the tag in the list it was found from.
        tag: usize,
    },
    /// No match can be decided yet: a tag may begin at this offset once more text arrives.
    Pending {
        /// Byte offset where the undecided candidate begins.
        start: usize,
    },
    /// No tag starts in the searched range.
    Nothing,
}

/// A list of non-empty tags with a table of the bytes they can start with.
#[derive(Debug, Clone)]
pub struct Tags {
    list: Vec<Box<[u8]>>,
    first: [bool; 256],
    /// The first three bytes of `first` (the last one repeated where there are fewer), and how many
    /// there are: with at most three (`<` alone for `<think>`) the search jumps between them, sixteen
    /// bytes a step in wasm, instead of reading every byte's entry. With no tag at all they are zeros:
    /// the search then stops at NUL bytes, where an empty list matches nothing.
    starts: [u8; 3],
    distinct: usize,
}

impl Tags {
    /// Builds the search for `tags`, none of which may be empty.
    #[cfg_attr(shipped, optimize(size))]
    pub fn new<'a>(tags: impl IntoIterator<Item = &'a str>) -> Tags {
        let mut out = Tags {
            list: Vec::new(),
            first: [false; 256],
            starts: [0; 3],
            distinct: 0,
        };
        for t in tags {
            out.add(t);
        }
        out
    }

    /// Adds `tag` to the search, unless it is empty. One copy of the code for every caller's iterator.
    #[inline(never)]
    fn add(&mut self, tag: &str) {
        if let Some(&b) = tag.as_bytes().first() {
            for x in [b.to_ascii_lowercase(), b.to_ascii_uppercase()] {
                if !core::mem::replace(&mut self.first[x as usize], true) {
                    // The rest of `starts` repeats the newest byte until another comes.
                    if let Some(rest) = self.starts.get_mut(self.distinct..) {
                        rest.fill(x);
                    }
                    self.distinct += 1;
                }
            }
            self.list.push(Box::from(tag.as_bytes()));
        }
    }

    /// Byte length of tag `i`.
    pub fn len_of(&self, i: usize) -> usize {
        self.list[i].len()
    }

    /// Finds the first tag starting at an offset in `from..limit` of `hay`.
    ///
    /// With `done` (no more text will come), a tag cut off by the end of `hay` is not a candidate.
    /// Offsets returned are always character boundaries of `hay` when `hay` is valid UTF-8, because every
    /// tag begins with a UTF-8 lead byte and only ASCII letters compare case-insensitively.
    pub fn find(&self, hay: &[u8], from: usize, limit: usize, done: bool) -> Found {
        let end = hay.len().min(limit);
        let mut next = from;
        while next < end {
            let s = if self.distinct <= 3 {
                let [a, b, c] = self.starts;
                match find_byte3_far(&hay[..end], next, a, b, c) {
                    Some(at) => at,
                    None => break,
                }
            } else if self.first[hay[next] as usize] {
                next
            } else {
                next += 1;
                continue;
            };
            next = s + 1;
            let rest = &hay[s..];
            let mut pending = false;
            for (i, tag) in self.list.iter().enumerate() {
                if rest.len() >= tag.len() {
                    if is_at(rest, 0, tag) {
                        // An earlier-listed tag still undecided at this start outranks this one.
                        return if pending {
                            Found::Pending { start: s }
                        } else {
                            Found::Match { start: s, tag: i }
                        };
                    }
                } else if !done && is_at(tag, 0, rest) {
                    pending = true;
                }
            }
            if pending {
                return Found::Pending { start: s };
            }
        }
        Found::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(tags: &[&str], hay: &str, done: bool) -> Found {
        Tags::new(tags.iter().copied()).find(hay.as_bytes(), 0, usize::MAX, done)
    }

    #[test]
    fn matches_ascii_case_insensitively_only() {
        assert_eq!(
            find(&["<think>"], "ab<ThInK>", false),
            Found::Match { start: 2, tag: 0 }
        );
        assert_eq!(find(&["<é>"], "<É>", true), Found::Nothing);
    }

    #[test]
    fn reports_a_tag_cut_off_at_the_end_as_pending_until_done() {
        assert_eq!(
            find(&["<think>"], "ab<thi", false),
            Found::Pending { start: 2 }
        );
        assert_eq!(find(&["<think>"], "ab<thi", true), Found::Nothing);
    }

    #[test]
    fn earliest_start_wins_over_earliest_end() {
        // "cd" is complete first, but "abcdef" may still start earlier.
        assert_eq!(
            find(&["cd", "abcdef"], "xabcd", false),
            Found::Pending { start: 1 }
        );
        assert_eq!(
            find(&["cd", "abcdef"], "xabcdef", false),
            Found::Match { start: 1, tag: 1 }
        );
        assert_eq!(
            find(&["cd", "abcdef"], "xabcdX", false),
            Found::Match { start: 3, tag: 0 }
        );
    }

    #[test]
    fn at_one_start_the_tag_listed_first_wins() {
        assert_eq!(
            find(&["<t>", "<t"], "<t>", false),
            Found::Match { start: 0, tag: 0 }
        );
        assert_eq!(
            find(&["<tx>", "<t"], "<t", false),
            Found::Pending { start: 0 }
        );
        assert_eq!(
            find(&["<tx>", "<t"], "<tq", false),
            Found::Match { start: 0, tag: 1 }
        );
    }

    #[test]
    fn limit_bounds_the_start_not_the_end() {
        let tags = Tags::new(["<think>"]);
        assert_eq!(
            tags.find(b"a<think>", 0, 2, false),
            Found::Match { start: 1, tag: 0 }
        );
        assert_eq!(tags.find(b"a<think>", 0, 1, false), Found::Nothing);
    }
}
