//! proptest strategies shared by the native property tests (tests/properties.rs, tests/partial.rs).
#![allow(dead_code)]

use proptest::prelude::*;
use serde_json::Value;

/// Tokens that exercise every branch of the locator and the parser when glued together at random.
pub const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "'",
    "\\",
    "\\\"",
    "\\u00",
    "\\n",
    " ",
    "\n",
    "\t",
    "1",
    "-",
    "+",
    ".",
    "0",
    "12.5e",
    "02",
    "1.2.3",
    "000",
    "1,000",
    "1_000",
    "k\":",
    "\"k:\"",
    "true",
    "tr",
    "True",
    "None",
    "nul",
    "NaN",
    "-Infinity",
    "undefined",
    "abc",
    "team-b",
    "key",
    "\"k\":",
    "'v'",
    "“",
    "”",
    "‘",
    "’",
    "…",
    "...",
    "//",
    "/*",
    "*/",
    "#",
    "```",
    "```json\n",
    "~~~",
    "<think>",
    "</think>",
    "<|im_end|>",
    "ObjectId(",
    ")",
    "+ \"x\"",
    "\u{FEFF}",
    "\u{A0}",
    "\u{200B}",
    "é",
    "😀",
    "：",
    "，",
    "名前",
    "__proto__",
    "cb(",
    ");",
    "\\d",
    "Sure: ",
    "{\\\"a\\\": 1}",
    "(",
    "(1, ",
    ",)",
    "{'a', ",
    // A member as one string with its colon inside, a closing fence with no opening one, a call among
    // bare words.
    "\"k:v\"",
    "}```",
    "\"```\n",
    "F(3)",
    // Template strings.
    "`",
    "`a b`",
    "\\`",
    // Quote tokens (Gemma 4's, FunctionGemma's) and what may stand beside them.
    "<|\"|>",
    "<escape>",
    "<|",
    "<",
    "call:f{",
];

/// Up to `max` tokens glued together.
pub fn token_soup(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..max).prop_map(|v| v.concat())
}

/// Arbitrary JSON values with strings full of characters that look like syntax.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        "[a-zA-Z0-9 \"\\\\/\n\té😀{}\\[\\],:'：，、]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z_$]{1,6}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
