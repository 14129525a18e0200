//! Connections that actix-http's codec closed because of the client, before any request
//! reached the App: a request head that cannot be read, or another stream error (a reset, a
//! connection that stopped half-way).
//!
//! actix-http writes one ERROR line for each. They are the client's doing, any client can
//! cause thousands a second, and no middleware sees them: the log subscriber (`shop-app`'s
//! telemetry) hands them here instead of writing them, and `/metrics` counts them.
//! Process-wide counters, because those lines come from the codec of every server of the
//! process, before any App state exists.

use std::sync::atomic::{AtomicU64, Ordering};

static MALFORMED_HEADS: AtomicU64 = AtomicU64::new(0);
static OTHER_STREAM_ERRORS: AtomicU64 = AtomicU64::new(0);

/// The target of actix-http's HTTP/1 dispatcher, which logs the stream errors.
pub const DISPATCHER_TARGET: &str = "actix_http::h1::dispatcher";

/// How actix-http's stream error lines start.
const STREAM_ERROR: &str = "stream error: ";
/// What follows [`STREAM_ERROR`] for a request head that cannot be read.
const PARSE_ERROR: &str = "request parse error";

/// Whether `message` is one of actix-http's `stream error: ...` lines; counts nothing.
pub fn is_stream_error(message: &str) -> bool {
    message.starts_with(STREAM_ERROR)
}

/// Counts one of actix-http's `stream error: ...` lines, by what its message says; `false`
/// when the message is not one of them (the line is then written as usual).
pub fn note_stream_error(message: &str) -> bool {
    let Some(error) = message.strip_prefix(STREAM_ERROR) else {
        return false;
    };
    let counter = if error
        .get(..PARSE_ERROR.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(PARSE_ERROR))
    {
        &MALFORMED_HEADS
    } else {
        &OTHER_STREAM_ERRORS
    };
    counter.fetch_add(1, Ordering::Relaxed);
    true
}

/// (malformed heads, other stream errors) counted so far.
pub fn counts() -> (u64, u64) {
    (
        MALFORMED_HEADS.load(Ordering::Relaxed),
        OTHER_STREAM_ERRORS.load(Ordering::Relaxed),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_stream_errors_are_taken_and_parse_errors_counted_apart() {
        let (heads, others) = counts();
        // As actix-http 3.20 writes it.
        assert!(note_stream_error(
            "stream error: request parse error: invalid Header provided"
        ));
        assert!(note_stream_error(
            "stream error: I/O error: Connection reset by peer"
        ));
        assert!(!note_stream_error("write zero; closing"));
        assert!(is_stream_error(
            "stream error: request parse error: too large"
        ));
        assert!(!is_stream_error("write zero; closing"));
        let (heads_after, others_after) = counts();
        assert!(heads_after > heads && others_after > others);
    }
}
