//! Streaming engines: explicit state machines that take text in chunks and give the same result for
//! every chunking as for the whole text at once.

mod cleaner;
mod find;
mod partial;
mod view;

/// String cutting without a panic path (see its documentation); the schema engine shares it.
pub(crate) use llm_response_sanitizer_schema::sub;

pub use cleaner::{
    clean, clean_detailed, is_js_whitespace, CleanOptions, Cleaned, Cleaner, ThinkTag,
    DEFAULT_END_THINK_TAG, DEFAULT_OPENING_TAG_GRACE_PERIOD, DEFAULT_START_THINK_TAG,
};
// The binding's, and the tests'.
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
pub(crate) use partial::Quick;
pub use partial::{PartialJson, Update};
pub(crate) use view::Code;
pub use view::{Change, Changes};
