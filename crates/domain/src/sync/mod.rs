//! Incremental sync (`updatedSince` on orders, clients and stock): the order such a list is
//! walked in, its cursor, and the checkpoint each page hands back.
//!
//! **The contract an integrator gets**: keep the first page's `syncedAt`, page to the end,
//! then ask `updatedSince` = that value next time; no change is ever missed, and a change can
//! be seen twice. Why it holds, with the bounds it rests on:
//!
//! - every write stamps `updatedAt` from its instance's clock, and commits within
//!   [`MAX_WRITE_SPAN_MS`] of that stamp (writers enforce it: the import stamps its rows again
//!   right before committing, and a short write that overran rolls back);
//! - the instances' clocks disagree by at most [`CLOCK_SKEW_ALLOWANCE_MS`] (NTP keeps them
//!   within milliseconds);
//! - a page's checkpoint is the time its read started minus [`CHECKPOINT_OVERLAP_MS`], which
//!   covers both. A change the read could not see (it committed after the read started) was
//!   stamped no earlier than `read start − write span − skew`, so at or after the checkpoint.
//!
//! The property test below plays random interleavings of writes and page reads against these
//! rules.

// Written in `checkpoint.rs`, which `pagination` uses too (every page carries a checkpoint),
// so that `pagination` needs nothing of this module.
pub use crate::checkpoint::{
    CHECKPOINT_OVERLAP_MS, CLOCK_SKEW_ALLOWANCE_MS, MAX_WRITE_SPAN_MS, checkpoint,
};

use crate::Timestamp;
use crate::day::{parse_day, start_of};
use crate::pagination::{Cursor, CursorKind, InvalidCursor};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected an RFC 3339 instant (2026-11-21T09:30:00Z) or a date (2026-11-21)")]
pub struct InvalidUpdatedSince;

/// `updatedSince`: an RFC 3339 instant, or a `YYYY-MM-DD` date meaning its first instant (UTC).
pub fn parse_updated_since(text: &str) -> Result<Timestamp, InvalidUpdatedSince> {
    match parse_day(text) {
        Some(date) => Ok(start_of(date)),
        None => Timestamp::parse_rfc3339(text).map_err(|_| InvalidUpdatedSince),
    }
}

/// A list walked since a time: rows with `updatedAt >= since`, by `(updatedAt, id)`
/// ascending, so that a row changed while a client pages moves behind the cursor and is read
/// again later in the same walk rather than skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedSince<Id> {
    pub since: Timestamp,
    /// Only rows strictly after this `(updatedAt, id)` position.
    pub after: Option<(Timestamp, Id)>,
}

impl<Id> ChangedSince<Id> {
    pub fn new(since: Timestamp) -> Self {
        Self { since, after: None }
    }
}

/// The cursor of a page walked by [`ChangedSince`]. Its `kind` is the list's `…Changed` one,
/// so that it cannot be mistaken for a cursor of the list's usual order.
pub fn changed_cursor(kind: CursorKind, updated_at: Timestamp, id: &str) -> Cursor {
    Cursor::new(kind, vec![updated_at.millis().to_string(), id.to_owned()])
}

/// The `(updatedAt, id)` position a [`changed_cursor`] of `kind` points after.
pub fn changed_cursor_position<Id>(
    text: &str,
    kind: CursorKind,
    parse_id: impl Fn(&str) -> Option<Id>,
) -> Result<(Timestamp, Id), InvalidCursor> {
    let cursor = Cursor::decode(text, kind)?;
    match cursor.parts() {
        [millis, id] => {
            let millis: i64 = millis.parse().map_err(|_| InvalidCursor)?;
            let id = parse_id(id).ok_or(InvalidCursor)?;
            Ok((Timestamp::from_millis(millis), id))
        }
        _ => Err(InvalidCursor),
    }
}

#[cfg(test)]
mod tests;
