//! The binding layer: converts arguments and results between JavaScript and the core, nothing more.
//!
//! Results cross as one string so that the host's `JSON.parse` builds every object (prototype-safe and
//! fast): `R<header>\n<json>` on success, `E<error>` on failure, where `<header>` and `<error>` are JSON
//! objects on one line, in ASCII. Repair results are left in an output buffer that the host decodes in
//! place; a report's repairs follow the text there as numbers (see `push_repairs`). Positions are
//! converted here from byte offsets to UTF-16 indices with 1-based line and column (see
//! [`crate::position`]).

use crate::encoding::{
    latin1_to_utf8_in_place, push_narrow_json, push_utf16, utf16_to_utf8_in_place,
};
use crate::position::{locate_all, Location};
use crate::prelude::*;
use crate::repair::{json_string, repair_bytes, repair_latin1, repair_transcoded};
use crate::schema::{self, CompileOptions, Draft, ExtractOptions, RuleSet, Schema, SharedSchema};
use crate::stream::Quick;
use crate::wire::{
    extracted_json, push_ascii, push_changes, push_in_form, schema_error_json, validation_json,
    Form, CLEAN_ASSISTANT, CLEAN_GRACE_FROM_START, CLEAN_KEEP_UNCLOSED, CLEAN_ONLY_CLOSING,
    CLEAN_THINK_ONLY, CLEAN_TIMESTAMP, CLEAN_TRIM, REPORT_MAX, TEXT_AS_UTF8,
};
use crate::{
    CleanOptions, Cleaner, Error, ErrorKind, PartialJson, Repair, RepairOptions, RepairSet,
    Repaired, Status, ThinkTag,
};
use alloc::borrow::Cow;
use core::ops::Range;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use llm_response_sanitizer_schema::cat_into;
use wasm_bindgen::prelude::*;

/// The allocator: talc's, which grows linear memory on demand like the default dlmalloc but is smaller
/// and faster in wasm.
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Input text, written here by the host before each call that reads it: UTF-8 with
/// `TextEncoder.encodeInto`, or in Node a string as V8 stores it, Latin-1 or UTF-16, after the first
/// `len` bytes (see [`input_utf8`]). Several times faster than the per-character copy the generated glue
/// uses for `&str`.
static INPUT: Buffer = Buffer::new(Vec::new());
/// The [`Form`] the host writes the input in, by its code (see [`input_form`]).
static INPUT_FORM: AtomicU8 = AtomicU8::new(0);
/// A repair result, decoded by the host in place from [`output_address`] (`TextDecoder`, or Node's
/// `Buffer` for the Latin-1 and UTF-16 forms): the parser's bytes are copied here as they are, with no
/// UTF-8 check and no allocation per call.
static OUTPUT: Buffer = Buffer::new(Vec::new());

/// A panic traps, and the door turns the trap into a typed error and a new instance (ts/door.ts). The
/// standard library's handler would format a message no one reads here: leaving it out, with the
/// formatting and the panic locations it brings, makes the module about 2 KB smaller gzipped. The
/// `std` feature links the standard library and its handler instead (the wasm test harness needs it).
/// The shipped module goes further (`scripts/build.sh`): built with the standard crates' panics trapping
/// where they happen, it carries none of their messages or locations and never reaches this handler.
#[cfg(not(any(test, feature = "std")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

/// A buffer the binding keeps between calls. The crate is `no_std` (no `thread_local!`), so a static
/// needs a `Sync` cell; a lock is one that asks no `unsafe` here.
type Buffer = spin::Mutex<Vec<u8>>;

/// Runs `f` on `buffer`. The host calls in one at a time and nothing here calls back out, so the lock is
/// always free; were it not, that would be a bug, and it traps (as a `RefCell` would) rather than spin.
fn with<R>(buffer: &Buffer, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    match buffer.try_lock() {
        Some(mut b) => f(&mut b),
        None => core::arch::wasm32::unreachable(),
    }
}

/// Where the last result written to the output buffer starts in linear memory (see [`repair_text`]).
#[wasm_bindgen(js_name = outputAddress)]
pub fn output_address() -> usize {
    with(&OUTPUT, |b| b.as_ptr() as usize)
}

/// Replaces the output buffer's contents with what `write` appends and returns their length.
fn write_output(write: impl FnOnce(&mut Vec<u8>)) -> usize {
    with(&OUTPUT, |b| {
        b.clear();
        write(b);
        if b.capacity() > b.len().saturating_mul(8).max(1 << 20) {
            // Give back a large buffer once results are small again (the host asks for the address after).
            b.shrink_to(b.len().max(1 << 20));
        }
        b.len()
    })
}

/// Leaves `text` in the output buffer and returns its length in bytes, or [`NO_TEXT`] for none: through
/// the output buffer rather than a returned `String`, whose glue costs the wasm a shim per export. As
/// UTF-8, or as UTF-16 while the host writes its input so (its strings hold characters beyond Latin-1)
/// without [`TEXT_AS_UTF8`]: the host then makes the string with one copy, where Node 20's UTF-8 decoder
/// took half the time of cleaning a response written in Chinese. The host reads by the same rule.
fn output_text(text: Option<&str>) -> u32 {
    text.map_or(NO_TEXT, |t| write_output(|b| push_text(b, t)) as u32)
}

/// Appends `text` as [`output_text`] writes it.
fn push_text(b: &mut Vec<u8>, text: &str) {
    if input_form_now() == Form::Utf16 && INPUT_FORM.load(Ordering::Relaxed) & TEXT_AS_UTF8 == 0 {
        push_utf16(b, text.as_bytes());
    } else {
        b.extend_from_slice(text.as_bytes());
    }
}

/// What [`output_text`] returns for no text (a length the 4 GiB memory cannot hold with its input).
const NO_TEXT: u32 = u32::MAX;

/// Makes room for `capacity` bytes of input and returns their address in linear memory.
#[wasm_bindgen(js_name = inputBuffer)]
pub fn input_buffer(capacity: usize) -> usize {
    with(&INPUT, |b| {
        if b.len() < capacity || b.len() > capacity.saturating_mul(8).max(1 << 20) {
            // Grow to fit, or give back a large buffer once inputs are small again.
            *b = vec![0; capacity];
        }
        b.as_mut_ptr() as usize
    })
}

/// Says how the host writes the input from now on, by a [`Form`]'s code: as UTF-8 (`TextEncoder`), or as
/// V8 stores the string, Latin-1 (every character fits in a byte) or UTF-16 (see [`crate::encoding`]);
/// with [`TEXT_AS_UTF8`] set, text results stay UTF-8 whatever the input's form.
#[wasm_bindgen(js_name = inputForm)]
pub fn input_form(form: u8) {
    INPUT_FORM.store(form, Ordering::Relaxed);
}

/// The form the input comes in: UTF-8 unless the host said Latin-1 or UTF-16.
fn input_form_now() -> Form {
    match Form::from_code(INPUT_FORM.load(Ordering::Relaxed) & !TEXT_AS_UTF8) {
        form @ (Form::Latin1 | Form::Utf16) => form,
        Form::Utf8 | Form::Ascii | Form::Narrow | Form::NarrowAscii | Form::Text => Form::Utf8,
    }
}

/// Runs `f` on the input as text (see [`input_utf8`] and [`with_text`]).
fn with_input<R>(len: usize, f: impl FnOnce(&str) -> R) -> R {
    let form = input_form_now();
    with_text(input_utf8(len), form, f)
}

/// Runs `f` on the first `len` bytes of input, after [`input_utf8`] of input that came in `form` (see
/// [`as_text`]).
fn with_text<R>(len: usize, form: Form, f: impl FnOnce(&str) -> R) -> R {
    with(&INPUT, |b| f(&as_text(&b[..len.min(b.len())], form)))
}

/// Input bytes as text: checked when the host wrote them as UTF-8 (never trusted blindly, and read
/// lossily if they are not), taken as they are when they were transcoded here ([`transcoded`]). Out of
/// line, so that each closure given to [`with_text`] calls it from one place.
#[inline(never)]
fn as_text(bytes: &[u8], form: Form) -> Cow<'_, str> {
    if form != Form::Utf8 {
        return Cow::Borrowed(transcoded(bytes));
    }
    match core::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(llm_response_sanitizer_schema::text::lossy(bytes)),
    }
}

/// The text that [`latin1_to_utf8_in_place`] or [`utf16_to_utf8_in_place`] left at the start of the input
/// buffer, as `str` without the standard library's check. They write whole UTF-8 sequences only, whatever
/// bytes the host gave them (a lone surrogate becomes U+FFFD): their tests hold them to the standard
/// library's lossy decoding, natively (`src/encoding.rs`, `tests/properties.rs`) and with wasm's vector
/// steps (`tests/wasm_cases`). The check could find nothing to reject, and it took 15% of `clean()`'s time
/// on 50 KB of English reasoning, 31% with typographic punctuation and 51% in Chinese (Node 20).
#[allow(unsafe_code)]
fn transcoded(bytes: &[u8]) -> &str {
    debug_assert!(core::str::from_utf8(bytes).is_ok());
    // SAFETY: the bytes are whole UTF-8 sequences, written by the transcoders above (see the doc comment).
    unsafe { core::str::from_utf8_unchecked(bytes) }
}

/// Makes the input UTF-8 at the start of the buffer and returns its length: the first `len` bytes when
/// the host wrote UTF-8, else the `len` characters (Latin-1) or code units (UTF-16) it wrote after them,
/// transcoded in place. Sets [`LONE`].
fn input_utf8(len: usize) -> usize {
    let form = input_form_now();
    let (len, lone) = with(&INPUT, |b| {
        let size = b.len();
        match form {
            Form::Latin1 => (latin1_to_utf8_in_place(b, len.min(size / 2)), false),
            Form::Utf16 => utf16_to_utf8_in_place(b, len.min(size / 3)),
            Form::Utf8 | Form::Ascii | Form::Narrow | Form::NarrowAscii | Form::Text => {
                (len, false)
            }
        }
    });
    LONE.store(lone, Ordering::Relaxed);
    len
}

/// Whether the last input, written as UTF-16, held a lone surrogate (the text has U+FFFD for it).
static LONE: AtomicBool = AtomicBool::new(false);

/// Appends `s` as a JSON string literal. Out of line: five sites, on errors and headers.
#[inline(never)]
#[cfg_attr(shipped, optimize(size))]
fn push_json_str(out: &mut String, s: &str) {
    out.push_str(&json_string(s));
}

fn push_location(out: &mut String, l: Location) {
    cat_into!(
        out,
        "\"position\":",
        l.index,
        ",\"line\":",
        l.line,
        ",\"column\":",
        l.column
    );
}

#[cfg_attr(shipped, optimize(size))]
fn error_string(e: &Error) -> String {
    let mut out = String::from("E{\"kind\":");
    push_json_str(&mut out, e.kind().code());
    // The message (the detail and the place) is composed on the TypeScript side, and so is the name of a
    // forbidden repair, sent as its place in the vocabulary: no kind's code is in the wasm.
    out.push_str(",\"detail\":");
    push_json_str(&mut out, &e.kind().summary());
    out.push(',');
    push_location(&mut out, e.location());
    match e.kind() {
        ErrorKind::RepairForbidden { repair } => {
            cat_into!(&mut out, ",\"repair\":", repair as u8);
        }
        ErrorKind::DepthLimitExceeded { limit } | ErrorKind::InputLimitExceeded { limit } => {
            cat_into!(&mut out, ",\"limit\":", limit);
        }
        _ => {}
    }
    out.push('}');
    out
}

/// Locates and repairs the JSON in the input (`len` as [`input_utf8`] reads it).
///
/// `forbid` holds the forbidden repair kinds as bits, by their place in the vocabulary (the caller validated
/// the codes and computed it);
/// `max_input_length` < 0 means no limit. With `report`, the header carries status and span, and the
/// repairs follow the text ([`push_repairs`]).
/// `form` is the [`Form`] of the JSON text, by its code; the rest of the result is ASCII, or UTF-16 too
/// in that form ([`Form::of_headers`]). A valid input is answered with `V` alone. The result is left in
/// the output buffer; its length in bytes is returned.
#[wasm_bindgen(js_name = repairText)]
pub fn repair_text(
    len: usize,
    max_depth: u32,
    max_input_length: f64,
    forbid: f64,
    assume_invalid: bool,
    report: bool,
    form: u8,
) -> usize {
    let form = Form::from_code(form);
    let options = RepairOptions {
        report,
        ..repair_options(max_depth, max_input_length, forbid, assume_invalid)
    };
    let input = input_form_now();
    #[cfg(feature = "panic-probe")]
    panic_probe(len, input);
    // Only the value is wanted, in the Latin-1 form, and the input came as Latin-1: it may be read
    // as it is (see `repair_latin1`); anything else, and an error, go the general way.
    if form == Form::Latin1 && !report && input == Form::Latin1 {
        let done = with(&INPUT, |b| {
            let len = len.min(b.len() / 2);
            repair_latin1(&b[len..2 * len], &options)
        });
        if let Some(out) = done {
            // Its JSON is in the Latin-1 form already: written as it is, no report, no text.
            return write_output(|b| {
                write_repair(b, "", Ok(out), false, Form::Utf8, assume_invalid)
            });
        }
    }
    let len = input_utf8(len);
    // Only the value is wanted and the input came as UTF-16 (transcoded here, it is UTF-8 by construction)
    // or as UTF-8: read without a check (see `repair_transcoded`).
    if !report && input != Form::Latin1 {
        let done = with(&INPUT, |b| {
            repair_transcoded(&b[..len.min(b.len())], &options)
        });
        if let Some(out) = done {
            return write_output(|b| write_repair(b, "", Ok(out), false, form, assume_invalid));
        }
    }
    with_text(len, input, |text| {
        write_output(|b| {
            write_repair(
                b,
                text,
                repair_bytes(text, &options),
                report,
                form,
                assume_invalid,
            )
        })
    })
}

/// The input on which the `panic-probe` build panics (see `Cargo.toml`).
#[cfg(feature = "panic-probe")]
const PANIC_PROBE: &[u8] = b"llm-response-sanitizer: panic probe";

/// Panics when the input is [`PANIC_PROBE`], which the host writes one byte per character (Latin-1) or,
/// with `TextEncoder`, as UTF-8. Only in the `panic-probe` build, never in the shipped one: it stands for a
/// bug in the core, whatever input would trigger it.
#[cfg(feature = "panic-probe")]
fn panic_probe(len: usize, input: Form) {
    let probed = with(&INPUT, |b| match input {
        Form::Latin1 => b.get(len..2 * len) == Some(PANIC_PROBE),
        Form::Utf8 | Form::Ascii | Form::Narrow | Form::NarrowAscii | Form::Text => {
            b.get(..len) == Some(PANIC_PROBE)
        }
        Form::Utf16 => false,
    });
    assert!(!probed, "the panic probe");
}

/// The pieces of `list` before each ASCII `separator` and after the last one, if not empty (as
/// `split_terminator`). Written out: `str::split` with a character brought in a searcher of about a
/// kilobyte.
#[cfg_attr(shipped, optimize(size))]
fn pieces(list: &str, separator: u8) -> impl Iterator<Item = &str> {
    let mut rest = list;
    core::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .bytes()
            .position(|b| b == separator)
            .unwrap_or(rest.len());
        // Both ends are at an ASCII byte or the end: always character boundaries.
        let piece = rest.get(..end).unwrap_or("");
        rest = rest.get(end + 1..).unwrap_or("");
        Some(piece)
    })
}

/// Repair options from the arguments the TypeScript side validated (see [`repair_text`]).
fn repair_options(
    max_depth: u32,
    max_input_length: f64,
    forbid: f64,
    assume_invalid: bool,
) -> RepairOptions {
    RepairOptions {
        max_depth: max_depth as usize,
        max_input_length: (max_input_length >= 0.0).then_some(max_input_length as usize),
        // The kinds as bits (see `RepairSet::from_bits`): at most 53 of them, exact in a double.
        forbid: RepairSet::from_bits(forbid as u64),
        assume_invalid,
        report: true,
    }
}

/// Appends a one-shot repair's result: `V` alone for valid input (the host then parses its own string,
/// exactly as `JSON.parse` would, lone surrogates too), otherwise as [`write_result`]. When the host
/// said its strict parser had failed (`host_failed`), valid input is answered in full, status `valid`:
/// the host never parses a string of its own that it could not parse.
fn write_repair<J: AsRef<[u8]>>(
    b: &mut Vec<u8>,
    text: &str,
    result: Result<Repaired<J>, Error>,
    report: bool,
    form: Form,
    host_failed: bool,
) {
    match result {
        Ok(out) if out.status == Status::Valid && !host_failed => {
            push_ascii(b, b"V", form.for_json(b""))
        }
        result => write_result(b, text, result, report, form),
    }
}

/// Appends a repair result as `R<header>\n<json>` or `E<error>` (see the module documentation), in
/// `form` as its JSON text decides ([`Form::for_json`]).
fn write_result<J: AsRef<[u8]>>(
    b: &mut Vec<u8>,
    text: &str,
    result: Result<Repaired<J>, Error>,
    report: bool,
    form: Form,
) {
    let form = form.for_json(result.as_ref().map_or(&[][..], |out| out.json.as_ref()));
    match result {
        Ok(out) => write_repaired(
            b,
            text,
            out.json.as_ref(),
            out.status,
            &out.repairs,
            &out.span,
            report,
            form,
        ),
        Err(e) => push_in_form(b, error_string(&e).as_bytes(), form.of_headers()),
    }
}

/// [`write_result`] of a repair, once for every kind of JSON text (one copy in the wasm).
#[allow(clippy::too_many_arguments)]
fn write_repaired(
    b: &mut Vec<u8>,
    text: &str,
    json: &[u8],
    status: Status,
    repairs: &[Repair],
    span: &Range<usize>,
    report: bool,
    form: Form,
) {
    b.reserve(json.len() + 4);
    push_ascii(b, b"R{", form);
    let mut numbers = Vec::new();
    if report {
        let mut s = String::from("\"status\":");
        push_json_str(&mut s, status.code());
        s.push(',');
        numbers = push_report(&mut s, text, repairs, span);
        push_in_form(b, s.as_bytes(), form.of_headers());
    }
    push_ascii(b, b"}\n", form);
    push_in_form(b, json, form);
    if report {
        push_repairs(b, &numbers);
    }
}

/// Appends `"span":{…}` with UTF-16 positions, and `"omittedRepairs":N` when more than [`REPORT_MAX`]
/// repairs were made; returns the repairs as four numbers each, its kind's index in
/// [`crate::RepairKind::ALL`] (the vocabulary's order), its position, and its 1-based line and column, for
/// [`push_repairs`]. The host builds the records.
#[cfg_attr(shipped, optimize(size))]
fn push_report(s: &mut String, text: &str, all: &[Repair], span: &Range<usize>) -> Vec<u32> {
    let repairs = &all[..all.len().min(REPORT_MAX)];
    // In the order they mostly come in (repairs before the span, as a fence's, break it): then
    // `locate_all` finds them sorted and need not sort.
    let mut offsets = Vec::with_capacity(repairs.len() + 2);
    offsets.push(span.start);
    offsets.extend(repairs.iter().map(|r| r.offset));
    offsets.push(span.end);
    let locs = locate_all(text, &offsets);
    let n = repairs.len();
    cat_into!(
        s,
        "\"span\":{\"start\":",
        locs[0].index,
        ",\"end\":",
        locs[n + 1].index,
        "}"
    );
    if all.len() > n {
        cat_into!(s, ",\"omittedRepairs\":", all.len() - n);
    }
    // The message is composed on the TypeScript side, from the kind's description.
    let number = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    repairs
        .iter()
        .zip(&locs[1..])
        .flat_map(|(r, l)| {
            [
                r.kind as u32,
                number(l.index),
                number(l.line),
                number(l.column),
            ]
        })
        .collect()
}

/// Appends a report's repairs after the result's text: `numbers` ([`push_report`]'s, four per repair) as
/// little-endian 32-bit words, then their count of repairs. The host reads them where they lie (the
/// count from the result's last four bytes), with no text to decode or parse: as JSON numbers, writing
/// and parsing them took a fifth of `parseDetailed`'s time.
fn push_repairs(b: &mut Vec<u8>, numbers: &[u32]) {
    b.reserve(4 * numbers.len() + 4);
    for &x in numbers {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&((numbers.len() / 4) as u32).to_le_bytes());
}

/// Builds cleaner options from the arguments the TypeScript side validated: `items` holds, each
/// followed by a NUL, the start and end tags alternately (`tags` of them), then the response prefixes
/// (`prefixes` of them), then the endpoint-wide prefixes; `grace` may be `Infinity`; `flags` holds the
/// `CLEAN_*` bits. (One string rather than three arrays of strings: their glue costs more wasm.)
#[cfg_attr(shipped, optimize(size))]
fn clean_options(
    items: &str,
    tags: usize,
    prefixes: usize,
    grace: f64,
    flags: u32,
) -> CleanOptions {
    let on = |bit: u32| flags & bit != 0;
    let mut lists: [Vec<String>; 3] = Default::default();
    for (i, item) in pieces(items, 0).enumerate() {
        let list = usize::from(i >= tags) + usize::from(i >= tags + prefixes);
        lists[list].push(item.to_owned());
    }
    let [tags, prefixes, endpoint_prefixes] = lists;
    CleanOptions {
        think_tags: tags
            .chunks_exact(2)
            .map(|p| ThinkTag::new(&p[0], &p[1]))
            .collect(),
        // `as` saturates: Infinity becomes usize::MAX.
        opening_tag_grace_period: grace as usize,
        grace_includes_leading_whitespace: on(CLEAN_GRACE_FROM_START),
        expect_only_closing_think_tag: on(CLEAN_ONLY_CLOSING),
        keep_text_without_closing_tag: on(CLEAN_KEEP_UNCLOSED),
        response_start_text_to_remove: prefixes,
        response_start_text_to_remove_endpoint_wide: endpoint_prefixes,
        remove_timestamp_prefix: on(CLEAN_TIMESTAMP),
        remove_assistant_prefix: on(CLEAN_ASSISTANT),
        trim: on(CLEAN_TRIM),
        think_only: on(CLEAN_THINK_ONLY),
    }
}

/// The byte range `r` of `text` in UTF-16 code units, the start and the end; `units` is the text's length in
/// them where the host's form tells it (Latin-1, UTF-16): ASCII when its UTF-8 is as long, and the offsets
/// are the same.
fn utf16_span(text: &str, r: Range<usize>, units: Option<usize>) -> [u32; 2] {
    if units == Some(text.len()) {
        return [r.start as u32, r.end as u32];
    }
    let at = locate_all(text, &[r.start, r.end]);
    [at[0].index as u32, at[1].index as u32]
}

/// The streaming cleaner, and where the reasoning of its last [`JsCleaner::once`] is (see
/// [`JsCleaner::reasoning_edge`]).
#[wasm_bindgen(js_name = Cleaner)]
pub struct JsCleaner(Cleaner, [u32; 2]);

#[wasm_bindgen(js_class = Cleaner)]
impl JsCleaner {
    /// A cleaner with the options the TypeScript side validated (see [`clean_options`]).
    #[wasm_bindgen(constructor)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn new(items: &str, tags: usize, prefixes: usize, grace: f64, flags: u32) -> JsCleaner {
        JsCleaner(
            Cleaner::new(&clean_options(items, tags, prefixes, grace, flags)),
            [NO_TEXT; 2],
        )
    }

    /// Cleans the next `len` bytes of input as a whole text ([`Cleaner::clean_whole`]). Leaves the text
    /// in the output buffer as [`output_text`] writes it, or with `latin1` (the host wrote Latin-1 and
    /// decodes it: nothing the cleaner keeps is beyond it) one byte per character, and returns its
    /// length; the removed reasoning is then [`JsCleaner::reasoning`]'s, and with `span` where it is in
    /// the text ([`JsCleaner::reasoning_edge`]): the host asks for it only where its string's units are
    /// the text's (after UTF-8 it wrote, a string without lone surrogates), and after UTF-16 with one
    /// ([`LONE`]) there is none. One call where a new cleaner took five, with its allocation and the
    /// host's finalizer.
    pub fn once(&mut self, len: usize, latin1: bool, span: bool) -> usize {
        // Text that came as Latin-1 or UTF-16 was `len` code units long.
        let units = (input_form_now() != Form::Utf8).then_some(len);
        let text = with_input(len, |t| {
            let out = self.0.clean_whole(t);
            self.1 = match self.0.reasoning_span() {
                Some(r) if span && !LONE.load(Ordering::Relaxed) => utf16_span(t, r, units),
                _ => [NO_TEXT; 2],
            };
            out
        });
        write_output(|b| {
            if latin1 {
                push_narrow_json(b, text.as_bytes(), true);
            } else {
                push_text(b, &text);
            }
        })
    }

    /// Releases what the prefix stage holds (see [`Cleaner::flush`]), as [`output_text`].
    pub fn flush(&mut self) -> u32 {
        output_text(Some(&self.0.flush()))
    }

    /// Takes the next `len` bytes of input as a chunk; leaves the text that is now final as
    /// [`output_text`].
    pub fn push(&mut self, len: usize) -> u32 {
        let text = with_input(len, |chunk| self.0.push(chunk));
        output_text(Some(&text))
    }

    /// Ends the text; leaves what was held back as [`output_text`].
    pub fn finish(&mut self) -> u32 {
        output_text(Some(&self.0.finish()))
    }

    /// Where the reasoning of the last [`JsCleaner::once`] with `span` starts in its text, or with `end`
    /// where it ends, in UTF-16 code units: the host slices its own string rather than decode a copy
    /// (50 KB of reasoning: a third of `cleanDetailed`'s time, half in Chinese). [`NO_TEXT`] when there is
    /// no reasoning, or when the host should read [`JsCleaner::reasoning`] instead.
    #[wasm_bindgen(js_name = reasoningEdge)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn reasoning_edge(&self, end: bool) -> u32 {
        self.1[usize::from(end)]
    }

    /// The removed reasoning, once known, as [`output_text`].
    #[cfg_attr(shipped, optimize(size))]
    pub fn reasoning(&self) -> u32 {
        output_text(self.0.reasoning())
    }

    /// The text of a reasoning block still open, as [`output_text`].
    #[wasm_bindgen(js_name = pendingReasoning)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn pending_reasoning(&self) -> u32 {
        output_text(self.0.pending_reasoning())
    }
}

/// The streaming JSON parser.
#[wasm_bindgen(js_name = PartialJson)]
pub struct JsPartialJson(PartialJson);

#[wasm_bindgen(js_class = PartialJson)]
impl JsPartialJson {
    /// A parser with the options the TypeScript side validated (see [`repair_text`]). With
    /// `valid_unbounded`, the strict check at the end has no depth limit (the host's `JSON.parse` has none);
    /// `reasoning_first` as [`PartialJson::with_reasoning_first`].
    #[wasm_bindgen(constructor)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn new(
        max_depth: u32,
        max_input_length: f64,
        forbid: f64,
        valid_unbounded: bool,
        reasoning_first: bool,
    ) -> JsPartialJson {
        let options = repair_options(max_depth, max_input_length, forbid, false);
        let p = PartialJson::new(&options).with_reasoning_first(reasoning_first);
        JsPartialJson(if valid_unbounded {
            p.with_valid_max_depth(usize::MAX)
        } else {
            p
        })
    }

    /// Shows the value by a compiled schema (see [`PartialJson::with_schema`]); `forbid_coercions` is a
    /// comma-separated list of coercion rule codes. A schema that did not compile changes nothing.
    #[wasm_bindgen(js_name = setSchema)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn set_schema(&mut self, schema: &JsSchema, forbid_coercions: &str) {
        if let Ok(schema) = &schema.0 {
            self.0
                .set_schema(schema.clone(), RuleSet::from_codes(forbid_coercions));
        }
    }

    /// Takes the next `len` bytes of input as a chunk. Leaves the changes of the partial value (see
    /// [`push_changes`]) in the output buffer, their text in the [`Form`] whose code is `form`, or
    /// `E<error>` when the input limit is exceeded; returns its length. Through the output buffer rather
    /// than a returned `String`: no allocation for the host to free, and in Node the Latin-1 form, which
    /// it decodes fastest.
    ///
    /// A push whose changes are a [`Quick`] returns it as a number instead (see [`quick_code`]): a length
    /// of output never reaches 2^31 bytes, which wasm32's memory could not hold with the input. One whose
    /// changes' texts all lie in the chunk and the one before leaves them [placed](PartialJson::placed) in
    /// the output buffer instead of written out, and returns bit 31, the complete flag in bit 30 and their
    /// count (1–255) in bits 0–7: the host slices the texts from its own copies of the chunks.
    pub fn push(&mut self, len: usize, form: u8) -> usize {
        let form = Form::from_code(form);
        with_input(len, |chunk| {
            let pushed = self
                .0
                .push_recorded(chunk, |changes, complete, quick, parser| {
                    if let Some(code) = quick.and_then(|q| quick_code(q, complete)) {
                        return code;
                    }
                    let mut placed = 0;
                    let len = write_output(|b| {
                        placed = parser.placed(b);
                        if placed == 0 {
                            push_changes(b, complete, changes.raw(), form);
                        }
                    });
                    if placed == 0 {
                        len
                    } else {
                        1 << 31 | usize::from(complete) << 30 | placed
                    }
                });
            pushed.unwrap_or_else(|e| {
                write_output(|b| push_in_form(b, error_string(&e).as_bytes(), form))
            })
        })
    }

    /// Ends the text: the result of the one-shot repair of all of it, in `repairText`'s format, left in
    /// the output buffer (its length is returned). With `shown`, the host keeps the value the pushes
    /// showed: where the result is that value completed (see `PartialJson::end`), the changes
    /// that complete it are left instead, as a push leaves them, their text in the form whose code is
    /// `shown`, and bit 31 is set.
    pub fn finish(&mut self, report: bool, form: u8, shown: Option<u8>) -> usize {
        let show = shown.filter(|_| !report);
        let (result, completed) = self.0.end(show.is_some());
        if let (true, Some(code)) = (completed, show) {
            let (changes, complete) = (self.0.recorded(), self.0.complete());
            let form = Form::from_code(code);
            return 1 << 31 | write_output(|b| push_changes(b, complete, changes.raw(), form));
        }
        let form = Form::from_code(form);
        write_output(|b| write_result(b, self.0.text(), result, report, form))
    }

    /// The error the parse stopped with so far, in `repairText`'s `E` format, if any, as [`output_text`].
    #[cfg_attr(shipped, optimize(size))]
    pub fn error(&self) -> u32 {
        output_text(self.0.error().map(error_string).as_deref())
    }

    /// All the text pushed so far, as [`output_text`]: the door keeps no copy of a stream's text unless it
    /// needs one, and takes this one when it starts to.
    #[cfg_attr(shipped, optimize(size))]
    pub fn text(&self) -> u32 {
        output_text(Some(self.0.text()))
    }
}

/// A [`Quick`] as one number, if its counts fit: bit 31 set; bit 30 the complete flag; bit 29 set for an
/// append, whose length is bits 0–13, its start (or the units held from the chunk before, with bit 28)
/// bits 14–27. The door (`ts/wasm.ts`) reads it.
fn quick_code(quick: Quick, complete: bool) -> Option<usize> {
    const FIELD: usize = 1 << 14;
    let flags = 1 << 31 | usize::from(complete) << 30;
    match quick {
        Quick::Nothing => Some(flags),
        Quick::Append { held, start, len } if held < FIELD && start < FIELD && len < FIELD => {
            let (from_before, at) = if held > 0 {
                (1 << 28, held)
            } else {
                (0, start)
            };
            Some(flags | 1 << 29 | from_before | at << 14 | len)
        }
        Quick::Append { .. } => None,
    }
}

#[wasm_bindgen(module = "/js/pattern.js")]
extern "C" {
    /// ECMAScript regular expressions (with the `u` flag when the pattern allows it) in time linear in the
    /// text (`js/pattern.js`): 1 for a match, 0 for none, -1 for a pattern that is not a regular
    /// expression, -2 for a test the host could not complete.
    #[wasm_bindgen(js_name = regexpTest)]
    fn regexp_test(pattern: &str, text: &str) -> i32;
}

/// The schema engine's regular expressions: ECMAScript's, in linear time (`js/pattern.js`).
fn host_regex(pattern: &str, text: &str) -> Option<bool> {
    match regexp_test(pattern, text) {
        1 => Some(true),
        0 => Some(false),
        _ => None,
    }
}

/// A compiled JSON Schema, or the reason it did not compile.
#[wasm_bindgen(js_name = Schema)]
pub struct JsSchema(Result<SharedSchema, String>);

#[wasm_bindgen(js_class = Schema)]
impl JsSchema {
    /// Compiles the schema whose JSON text is the first `len` bytes of input. `remotes` is a JSON
    /// object text of `{uri: schema}`; `draft` one of `Draft::from_name`'s names. Errors are kept for
    /// [`JsSchema::error`].
    #[wasm_bindgen(constructor)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn new(len: usize, draft: &str, remotes: &str, assert_format: bool) -> JsSchema {
        let options = CompileOptions {
            default_draft: Draft::from_name(draft).unwrap_or(Draft::Draft2020),
            assert_format,
            regex: Some(host_regex),
            ..CompileOptions::default()
        };
        let compiled = with_input(len, |text| Schema::compile_json(text, remotes, options));
        JsSchema(
            compiled
                .map(SharedSchema::new)
                .map_err(|e| schema_error_json(&e)),
        )
    }

    /// The compile error as JSON `{code, message, schemaPath}`, if the schema did not compile, as
    /// [`output_text`].
    #[cfg_attr(shipped, optimize(size))]
    pub fn error(&self) -> u32 {
        output_text(self.0.as_ref().err().map(String::as_str))
    }

    /// Validates the value whose JSON text is the first `len` bytes of input; leaves
    /// `{"valid":…,"issues":[…]}` as [`output_text`] (nothing for a schema that did not compile).
    #[cfg_attr(shipped, optimize(size))]
    pub fn validate(&self, len: usize) -> u32 {
        let Ok(schema) = &self.0 else {
            return 0;
        };
        let json = with_input(len, |text| {
            validation_json(&schema.validate_text(text, crate::DEFAULT_MAX_DEPTH))
        });
        output_text(Some(&json))
    }

    /// Extracts from the response in the first `len` bytes of input (repair options as for
    /// [`repair_text`]; `forbid_coercions` is a comma-separated list of coercion rule codes; candidates
    /// before `skip` are passed over).
    #[allow(clippy::too_many_arguments)]
    #[cfg_attr(shipped, optimize(size))]
    pub fn extract(
        &self,
        len: usize,
        max_depth: u32,
        max_input_length: f64,
        forbid: f64,
        forbid_coercions: &str,
        skip: usize,
    ) -> u32 {
        let Ok(schema) = &self.0 else {
            return 0;
        };
        let options = ExtractOptions {
            repair: repair_options(max_depth, max_input_length, forbid, false),
            forbid_coercions: RuleSet::from_codes(forbid_coercions),
            skip,
        };
        let (json, numbers) = with_input(len, |text| {
            // Where no candidate could be read, the first one's error goes to the host as `unread` (the
            // JSON of `repairText`'s `E` error, without the `E`), and the host writes the `parse` issue's
            // message from it, naming a forbidden repair as it does for `repairText`'s errors: no kind's
            // code is in the wasm.
            let mut unread = None;
            let out = schema::extract_with(text, schema, &options, |e| {
                unread = Some(error_string(e));
                String::new()
            });
            // Positions of repairs and span, converted to UTF-16 for the host.
            let mut report = String::new();
            let numbers = push_report(
                &mut report,
                text,
                &out.repairs,
                out.span.as_ref().unwrap_or(&(0..0)),
            );
            if let Some(e) = unread {
                cat_into!(
                    &mut report,
                    ",\"unread\":",
                    e.strip_prefix('E').unwrap_or(&e)
                );
            }
            (extracted_json(&out, &report), numbers)
        });
        // The JSON text as `output_text` writes it, then the repairs as a report's.
        write_output(|b| {
            push_text(b, &json);
            push_repairs(b, &numbers);
        }) as u32
    }
}
