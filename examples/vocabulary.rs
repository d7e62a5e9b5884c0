//! Prints the core's vocabulary as JSON, for `scripts/vocabulary.mjs` (run by the build).
fn main() {
    println!("{}", llm_response_sanitizer::vocabulary());
}
