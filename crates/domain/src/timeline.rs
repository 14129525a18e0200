//! The console's timelines: lists merged from two kinds of lines, shown newest first and paged
//! with an opaque cursor on `(time, id)` (the activity's stock changes, `stock::activity`, and
//! the writes made by API keys, `api_write`).
//!
//! Lines are ordered by time, then id, both descending. The ids of a timeline's two kinds are
//! unique across both (generated UUIDv7s behind distinct prefixes), so the order is total and a
//! cursor on the last line shown pages through both without a gap or a repeat.

use std::cmp::Ordering;
use std::marker::PhantomData;

use crate::Timestamp;
use crate::pagination::{Cursor, CursorKind, InvalidCursor, Page, PageLimit};

/// A line of a timeline.
pub trait TimelineLine: Sized {
    /// The kind of the timeline's cursors: one timeline's cursor is refused by another.
    const CURSOR: CursorKind;

    fn at(&self) -> Timestamp;

    fn id(&self) -> &str;

    /// Where a page ending on this line ends.
    fn position(&self) -> TimelinePosition<Self> {
        TimelinePosition::new(self.at(), self.id().to_owned())
    }
}

/// The timeline's order: newest first, then by descending id.
pub fn newest_first<L: TimelineLine>(a: &L, b: &L) -> Ordering {
    (b.at(), b.id()).cmp(&(a.at(), a.id()))
}

/// Merges two lists, each already newest first, into the first `count` lines of both.
pub fn merge_newest_first<L: TimelineLine>(first: Vec<L>, second: Vec<L>, count: usize) -> Vec<L> {
    let mut merged: Vec<L> = first.into_iter().chain(second).collect();
    merged.sort_by(newest_first);
    merged.truncate(count);
    merged
}

/// A page of a timeline from up to `limit + 1` lines newest first: the cursor names the last
/// line kept, and the next page starts strictly after it.
pub fn page<L: TimelineLine>(lines: Vec<L>, limit: PageLimit) -> Page<L> {
    Page::from_overfetch(lines, limit, |line| line.position().cursor())
}

/// A page request of a timeline of `L` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineQuery<L> {
    pub before: Option<TimelinePosition<L>>,
    pub limit: PageLimit,
}

impl<L: TimelineLine> TimelineQuery<L> {
    pub const DEFAULT_LIMIT: PageLimit = PageLimit::ORDERS_DEFAULT;

    /// The newest page.
    pub fn newest() -> Self {
        Self {
            before: None,
            limit: Self::DEFAULT_LIMIT,
        }
    }

    /// The page a link names by its `cursor` (none: the newest).
    pub fn from_link(cursor: Option<&str>) -> Result<Self, InvalidCursor> {
        Ok(Self {
            before: cursor.map(TimelinePosition::from_cursor).transpose()?,
            limit: Self::DEFAULT_LIMIT,
        })
    }
}

/// Where a page of a timeline of `L` lines ends: the next page holds what is strictly older.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelinePosition<L> {
    pub at: Timestamp,
    pub id: String,
    timeline: PhantomData<fn() -> L>,
}

impl<L: TimelineLine> TimelinePosition<L> {
    pub fn new(at: Timestamp, id: String) -> Self {
        Self {
            at,
            id,
            timeline: PhantomData,
        }
    }

    /// Whether a line at `(at, id)` comes after this position in the timeline.
    pub fn is_before(&self, at: Timestamp, id: &str) -> bool {
        (at, id) < (self.at, self.id.as_str())
    }

    pub fn cursor(&self) -> Cursor {
        Cursor::new(
            L::CURSOR,
            vec![self.at.millis().to_string(), self.id.clone()],
        )
    }

    pub fn from_cursor(text: &str) -> Result<Self, InvalidCursor> {
        let cursor = Cursor::decode(text, L::CURSOR)?;
        match cursor.parts() {
            [at, id] if crate::id::is_valid_id(id) => Ok(Self::new(
                Timestamp::from_millis(at.parse().map_err(|_| InvalidCursor)?),
                id.clone(),
            )),
            _ => Err(InvalidCursor),
        }
    }
}
