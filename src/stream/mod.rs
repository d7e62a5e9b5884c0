//! Streaming engines: explicit state machines that take text in chunks and give the same result for
//! every chunking as for the whole text at once.

mod cleaner;
mod find;
mod partial;
mod view;

/// `&s[range]`, or `""` if the range is off a character boundary, which the callers rule out: they cut
/// at offsets of ASCII bytes they found. Indexing with `[]` would bring its panic message into the wasm,
/// and with it `char`'s `Debug` formatting and Unicode tables (about 3 KB gzipped).
#[inline]
pub(crate) fn sub<R: std::slice::SliceIndex<str, Output = str>>(s: &str, range: R) -> &str {
    s.get(range).unwrap_or_default()
}

pub use cleaner::{
    clean, clean_detailed, is_js_whitespace, CleanOptions, Cleaned, Cleaner, ThinkTag,
    DEFAULT_END_THINK_TAG, DEFAULT_OPENING_TAG_GRACE_PERIOD, DEFAULT_START_THINK_TAG,
};
pub use partial::{PartialJson, Update};
