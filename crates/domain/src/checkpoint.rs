//! The checkpoint an API list page hands back (`syncedAt`), and the bounds it rests on: what
//! `updatedSince` needs so that a sync misses no change (`sync` states the contract).
//! Every page carries one (`pagination::Page::read_at`), walked by changes or not.

use crate::Timestamp;

/// The longest a write may take from stamping `updatedAt` to its commit.
pub const MAX_WRITE_SPAN_MS: i64 = 30_000;

/// How far the clocks of two instances (or of an instance and the import's command line) may
/// disagree without a sync missing a change.
pub const CLOCK_SKEW_ALLOWANCE_MS: i64 = 30_000;

/// How far behind the read a checkpoint is set.
pub const CHECKPOINT_OVERLAP_MS: i64 = MAX_WRITE_SPAN_MS + CLOCK_SKEW_ALLOWANCE_MS;

/// The checkpoint of a page whose read started at `read_started`: pass it as `updatedSince`
/// on the next sync.
pub const fn checkpoint(read_started: Timestamp) -> Timestamp {
    read_started.plus_millis(-CHECKPOINT_OVERLAP_MS)
}
