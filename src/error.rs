//! The one error type of the crate.
//!
//! An [`Error`] is opaque: callers read its [`ErrorKind`] (a stable snake_case [`code`](ErrorKind::code)),
//! where it happened, and a message. Every message is produced by [`ErrorKind::describe`], so each
//! message identifies the branch that raised it.

use crate::position::{locate, Location};
use crate::prelude::*;
use crate::record::RepairKind;
use core::fmt;

/// What went wrong.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text holds no JSON object or array and is not itself valid JSON.
    NoJson,
    /// Containers nest deeper than the configured `max_depth`.
    DepthLimitExceeded {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The text is longer than the configured `max_input_length` (UTF-16 code units).
    InputLimitExceeded {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The text needs a repair that the caller's options forbid.
    RepairForbidden {
        /// The repair that would have been made.
        repair: RepairKind,
    },
}

impl ErrorKind {
    /// A stable snake_case code for this kind (`no_json`, `depth_limit`, `input_too_long`, `repair_forbidden`).
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::NoJson => "no_json",
            ErrorKind::DepthLimitExceeded { .. } => "depth_limit",
            ErrorKind::InputLimitExceeded { .. } => "input_too_long",
            ErrorKind::RepairForbidden { .. } => "repair_forbidden",
        }
    }

    /// What went wrong, without the position.
    pub fn describe(&self) -> String {
        let summary = self.summary();
        match self {
            ErrorKind::RepairForbidden { repair } => cat!(summary, ": ", repair.code()),
            _ => summary,
        }
    }

    /// [`Self::describe`] without the code of a forbidden repair, which the wasm binding sends as a
    /// number: the TypeScript side names it (and describes it), so no kind's code is in the wasm.
    #[cfg_attr(shipped, optimize(size))]
    pub(crate) fn summary(&self) -> String {
        match self {
            ErrorKind::NoJson => {
                "no JSON object or array found, and the text is not valid JSON".to_string()
            }
            ErrorKind::DepthLimitExceeded { limit } => {
                cat!(
                    "containers nest deeper than the limit of ",
                    limit,
                    " levels"
                )
            }
            ErrorKind::InputLimitExceeded { limit } => {
                cat!(
                    "input is longer than the limit of ",
                    limit,
                    " UTF-16 code units"
                )
            }
            ErrorKind::RepairForbidden { .. } => {
                "the text needs a repair the options forbid".to_string()
            }
        }
    }
}

/// An error from locating or repairing JSON, with its position in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    location: Location,
}

impl Error {
    /// Builds an error at byte `offset` of `text`.
    #[cfg_attr(shipped, optimize(size))]
    pub(crate) fn at(kind: ErrorKind, text: &str, offset: usize) -> Error {
        Error {
            kind,
            offset,
            location: locate(text, offset),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Byte offset into the input where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The same position in JavaScript units (UTF-16 index, 1-based line and column).
    pub fn location(&self) -> Location {
        self.location
    }

    /// What went wrong and where, as [`Display`](fmt::Display) writes it (composed without
    /// `core::fmt`, which the wasm build leaves out).
    pub fn message(&self) -> String {
        let l = self.location;
        cat!(
            self.kind.describe(),
            " (at line ",
            l.line,
            ", column ",
            l.column,
            ", index ",
            l.index,
            ")"
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl core::error::Error for Error {}
