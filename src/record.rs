//! The repair record: what was changed, and where.
//!
//! Every site in the locator and the parser that deviates from strict JSON records one [`Repair`]. The
//! record feeds the `parseDetailed` report, the demo page's highlights, metrics and the tests.

/// Declares [`RepairKind`] with its code, class and description in one table, so the three never drift.
macro_rules! repair_kinds {
    ($($variant:ident => $code:literal, $class:ident, $describe:literal;)*) => {
        /// One kind of repair. [`code`](RepairKind::code) is the stable snake_case name shown to JavaScript.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum RepairKind {
            $(
                #[doc = $describe]
                $variant,
            )*
        }

        impl RepairKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [RepairKind] = &[$(RepairKind::$variant,)*];

            /// The stable snake_case code of this kind.
            pub fn code(self) -> &'static str {
                match self { $(RepairKind::$variant => $code,)* }
            }

            /// The class this kind belongs to (see [`RepairClass`]).
            pub fn class(self) -> RepairClass {
                match self { $(RepairKind::$variant => RepairClass::$class,)* }
            }

            /// A one-line description of what the repair does.
            pub fn describe(self) -> &'static str {
                match self { $(RepairKind::$variant => $describe,)* }
            }
        }
    };
}

repair_kinds! {
    // Locating the JSON in the response.
    ReasoningRemoved => "reasoning_removed", Extraction, "removed a reasoning block (think, reasoning or reflection tags, a THINK block, a gpt-oss analysis channel)";
    CodeFence => "code_fence", Extraction, "took the JSON out of a fenced code block";
    SurroundingText => "surrounding_text", Extraction, "removed text around the JSON value";
    Jsonp => "jsonp", Extraction, "removed a JSONP callback wrapper";
    InvisibleCharacter => "invisible_character", Extraction, "removed an invisible character (BOM, zero-width) outside strings";
    NonstandardWhitespace => "nonstandard_whitespace", Extraction, "treated a non-breaking or other Unicode space as whitespace";
    EscapedJson => "escaped_json", Extraction, "unescaped JSON that was escaped without outer quotes: with backslashes, with its quotes doubled as in CSV, or its line breaks only";
    // Punctuation and structure.
    TrailingComma => "trailing_comma", Syntax, "removed a trailing comma";
    RedundantComma => "redundant_comma", Syntax, "removed a redundant comma";
    MissingComma => "missing_comma", Syntax, "inserted a missing comma";
    MissingColon => "missing_colon", Syntax, "inserted a missing colon";
    FullwidthPunctuation => "fullwidth_punctuation", Syntax, "read a full-width colon or comma (：，) or an ideographic comma (、) outside strings as : or ,";
    MismatchedBracket => "mismatched_bracket", Syntax, "a closing bracket of the wrong kind closed the open container";
    MissingBracket => "missing_bracket", Syntax, "inserted a missing bracket: an object's } before the next item of its array, its { around a key written as an array's item, or the [ of a row written without it in an array of rows";
    SuperfluousBracket => "superfluous_bracket", Syntax, "skipped a closing bracket that closes nothing";
    UnexpectedCharacter => "unexpected_character", Syntax, "skipped a character that cannot appear here";
    MissingValue => "missing_value", Syntax, "dropped a member or element that has no value";
    MultipleValues => "multiple_values", Syntax, "wrapped top-level values in an array: comma-separated ones, or several where the schema wants an array";
    EarlyClose => "early_close", Syntax, "reopened an object or array that was closed before its last members or items";
    Comment => "comment", Syntax, "removed a comment";
    Ellipsis => "ellipsis", Syntax, "removed an ellipsis placeholder";
    FunctionCall => "function_call", Syntax, "replaced a call such as ObjectId(\"...\") by its argument, by the array of its arguments, or by the object of its keyword arguments";
    StringConcatenation => "string_concatenation", Syntax, "joined strings concatenated with +";
    // Quotes and strings.
    SingleQuotes => "single_quotes", Quotes, "replaced single quotes by double quotes";
    CurlyQuotes => "curly_quotes", Quotes, "replaced typographic quotes by double quotes";
    UnquotedKey => "unquoted_key", Quotes, "quoted an unquoted key";
    UnquotedString => "unquoted_string", Quotes, "quoted a bare word value";
    UnescapedQuote => "unescaped_quote", Quotes, "escaped a double quote inside a string";
    MissingQuote => "missing_quote", Quotes, "closed a string whose closing quote was missing";
    ControlCharacter => "control_character", Quotes, "escaped a raw control character (newline, tab, ...) inside a string";
    QuoteToken => "quote_token", Quotes, "read the text between two of a model's quote tokens (Gemma 4's <|\"|>, FunctionGemma's escape token), or a fenced code block written as a value, as a string";
    InvalidEscape => "invalid_escape", Quotes, "kept the backslash of an invalid escape sequence";
    // Literals and numbers.
    PythonLiteral => "python_literal", Literals, "replaced a Python literal (True, False, None, a tuple's parentheses, a triple-quoted string's quotes)";
    NonJsonLiteral => "non_json_literal", Literals, "replaced undefined, NaN or Infinity by null";
    NumberFormat => "number_format", Literals, "rewrote a number in JSON form (leading +, .5, 12., 1,000)";
    NumberAsString => "number_as_string", Literals, "kept a number-like token that is not a JSON number as a string (02134, 1.2.3, 12,50)";
    // Truncation.
    TruncatedString => "truncated_string", Truncation, "closed a string cut off by the end of the input";
    TruncatedNumber => "truncated_number", Truncation, "kept the longest valid prefix of a number cut off by the end of the input";
    TruncatedLiteral => "truncated_literal", Truncation, "completed a keyword cut off by the end of the input";
    TruncatedMember => "truncated_member", Truncation, "dropped a member or element cut off before its value";
    UnclosedContainer => "unclosed_container", Truncation, "closed a container left open at the end of the input";
}

/// Groups of repair kinds that options can forbid together.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RepairClass {
    /// Finding the JSON: reasoning blocks, fences, surrounding prose, invisible characters.
    Extraction,
    /// Punctuation and structure: commas, colons, brackets, comments, placeholders.
    Syntax,
    /// Quotes and string content.
    Quotes,
    /// Non-JSON literals and number formats.
    Literals,
    /// Completing input cut off at the end.
    Truncation,
}

impl RepairClass {
    /// Every class.
    pub const ALL: &'static [RepairClass] = &[
        RepairClass::Extraction,
        RepairClass::Syntax,
        RepairClass::Quotes,
        RepairClass::Literals,
        RepairClass::Truncation,
    ];

    /// The stable snake_case name of the class.
    pub fn code(self) -> &'static str {
        match self {
            RepairClass::Extraction => "extraction",
            RepairClass::Syntax => "syntax",
            RepairClass::Quotes => "quotes",
            RepairClass::Literals => "literals",
            RepairClass::Truncation => "truncation",
        }
    }
}

/// A set of [`RepairKind`]s, used to forbid repairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepairSet(u64);

impl RepairSet {
    /// No kinds.
    pub const NONE: RepairSet = RepairSet(0);
    /// Every kind: only strictly valid JSON is accepted.
    pub const ALL: RepairSet = RepairSet(u64::MAX);

    /// The set whose kinds are the bits of `bits` set, by their place in [`RepairKind::ALL`] (the wasm
    /// binding's form of the `forbid` option, which the TypeScript side computes from the codes).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) const fn from_bits(bits: u64) -> RepairSet {
        RepairSet(bits)
    }

    /// This set plus `kind`.
    pub fn with(self, kind: RepairKind) -> RepairSet {
        RepairSet(self.0 | 1 << kind as u8)
    }

    /// This set plus every kind of `class`.
    pub fn with_class(self, class: RepairClass) -> RepairSet {
        RepairKind::ALL
            .iter()
            .filter(|k| k.class() == class)
            .fold(self, |s, &k| s.with(k))
    }

    /// Adds a kind or a class named by its code (`"trailing_comma"`, `"truncation"`); false if unknown.
    pub fn insert_code(&mut self, code: &str) -> bool {
        if let Some(&k) = RepairKind::ALL.iter().find(|k| k.code() == code) {
            *self = self.with(k);
            true
        } else if let Some(&c) = RepairClass::ALL.iter().find(|c| c.code() == code) {
            *self = self.with_class(c);
            true
        } else {
            false
        }
    }

    /// Whether `kind` is in the set.
    pub fn contains(self, kind: RepairKind) -> bool {
        self.0 & (1 << kind as u8) != 0
    }
}

/// One repair: its kind and the byte offset in the input where it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// Byte offset into the caller's text (see [`crate::position`] for units).
    pub offset: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_snake_case() {
        let mut codes: Vec<&str> = RepairKind::ALL.iter().map(|k| k.code()).collect();
        assert!(codes
            .iter()
            .all(|c| c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n);
        assert!(n < 64, "RepairSet is a u64 bitmask");
    }

    #[test]
    fn sets_take_kinds_and_classes_by_code() {
        let mut s = RepairSet::NONE;
        assert!(s.insert_code("truncation"));
        assert!(s.insert_code("trailing_comma"));
        assert!(!s.insert_code("no_such_thing"));
        assert!(s.contains(RepairKind::TruncatedString));
        assert!(s.contains(RepairKind::TrailingComma));
        assert!(!s.contains(RepairKind::MissingComma));
    }
}
