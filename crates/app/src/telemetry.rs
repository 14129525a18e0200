//! Logs go to stderr, so that stdout carries only what a command prints for scripts (the key
//! of `key create`).
//!
//! The server writes one line per request (target `access`, see `shop_http`'s `observe`
//! middleware) plus warnings and errors. `RUST_LOG` filters as usual (default `info`; e.g.
//! `RUST_LOG=info,access=warn` silences the request lines). The ERROR line actix-http writes
//! for each connection a client broke (a malformed request head, a reset) is counted in the
//! metrics instead (`shop_http::connection_errors`): any client could flood the log with them.

mod batched_writer;

use std::io::IsTerminal as _;

use clap::ValueEnum;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{LevelFilter, filter_fn};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, MakeWriter};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;

use batched_writer::BatchedWriter;
pub use batched_writer::FlushGuard;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// Logs to stderr; colours only when stderr is a terminal, so that a log file stays plain.
///
/// Lines are written by a dedicated thread, in batches (see `telemetry/batched_writer.rs`): the request's
/// thread only hands its formatted line over, and a busy server writes many lines per
/// `write(2)` instead of one each. A line appears at most `batched_writer::GATHER` after it
/// was logged. No line is dropped: a request waits when `LINES_PENDING` lines are pending.
/// The returned guard writes what is left when dropped; keep it until the process ends.
pub fn init(format: LogFormat) -> std::io::Result<FlushGuard> {
    let ansi = std::io::stderr().is_terminal();
    let (writer, guard) = BatchedWriter::spawn(std::io::stderr(), LINES_PENDING)?;
    try_init_with_writer(format, writer, ansi);
    Ok(guard)
}

/// Each pending line holds a copy of itself (about 200 bytes for an access line) and a channel
/// slot: 64 Ki lines, the bound before, could keep 17 MB when the writer fell behind. 4 Ki lines
/// (about 1 MB) hold 4 batches of [`batched_writer::GATHER`] at 50,000 requests a second.
const LINES_PENDING: usize = 4 * 1024;

/// Logs to `writer` (tests capture the server's lines this way). Returns `false` when a
/// subscriber was already installed: a second init (tests starting several servers) is
/// harmless, the first subscriber stays.
pub fn try_init_with_writer<W>(format: LogFormat, writer: W, ansi: bool) -> bool
where
    W: for<'writer> MakeWriter<'writer> + Send + Sync + 'static,
{
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    subscriber(format, writer, ansi, filter).try_init().is_ok()
}

/// The log lines, filtered by `filter` (`RUST_LOG`) and without actix-http's stream errors,
/// beside the count of those errors, which `filter` does not reach: `RUST_LOG=actix_http=off`
/// silences actix-http, not the metrics.
fn subscriber<W>(
    format: LogFormat,
    writer: W,
    ansi: bool,
    filter: EnvFilter,
) -> impl Subscriber + for<'span> LookupSpan<'span> + Send + Sync
where
    W: for<'writer> MakeWriter<'writer> + Send + Sync + 'static,
{
    let lines = tracing_subscriber::fmt::layer()
        .with_ansi(ansi)
        .with_writer(writer);
    let lines = match format {
        LogFormat::Text => lines
            .map_event_format(WithoutClientStreamErrors)
            .with_filter(filter)
            .boxed(),
        LogFormat::Json => lines
            .json()
            .map_event_format(WithoutClientStreamErrors)
            .with_filter(filter)
            .boxed(),
    };
    // Only the dispatcher's ERROR events reach the count: every other callsite stays as
    // disabled as `filter` leaves it.
    let counted = CountClientStreamErrors
        .with_filter(filter_fn(is_dispatcher_error).with_max_level_hint(LevelFilter::ERROR));
    tracing_subscriber::registry().with(lines).with(counted)
}

/// An ERROR of actix-http's dispatcher: maybe one of its `stream error: ...` lines.
fn is_dispatcher_error(metadata: &Metadata<'_>) -> bool {
    *metadata.level() == Level::ERROR
        && metadata.target() == shop_http::connection_errors::DISPATCHER_TARGET
}

/// The message of `event` when it may be one of actix-http's `stream error: ...` lines.
fn dispatcher_error_message(event: &Event<'_>) -> Option<String> {
    if !is_dispatcher_error(event.metadata()) {
        return None;
    }
    let mut message = Message::default();
    event.record(&mut message);
    Some(message.0)
}

/// Counts actix-http's `stream error: ...` lines (see `shop_http::connection_errors`).
struct CountClientStreamErrors;

impl<S: Subscriber> Layer<S> for CountClientStreamErrors {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if let Some(message) = dispatcher_error_message(event) {
            shop_http::connection_errors::note_stream_error(&message);
        }
    }
}

/// A line format that writes nothing for actix-http's `stream error: ...` lines (they are
/// counted instead) and `Inner`'s line for every other event. Dropping them here rather than in
/// a per-layer filter's `event_enabled` keeps the lines' filter a plain `RUST_LOG` one:
/// tracing-subscriber 0.3 leaves its per-layer filter state dirty when one layer's
/// `event_enabled` refuses an event that another layer takes (a debug assertion fails).
struct WithoutClientStreamErrors<Inner>(Inner);

impl<S, N, Inner> FormatEvent<S, N> for WithoutClientStreamErrors<Inner>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
    N: for<'writer> FormatFields<'writer> + 'static,
    Inner: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        context: &FmtContext<'_, S, N>,
        writer: Writer<'_>,
        event: &Event<'_>,
    ) -> std::fmt::Result {
        let counted = dispatcher_error_message(event)
            .is_some_and(|message| shop_http::connection_errors::is_stream_error(&message));
        if counted {
            return Ok(());
        }
        self.0.format_event(context, writer, event)
    }
}

/// The `message` field of an event, as written.
#[derive(Default)]
struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            value.clone_into(&mut self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use shop_http::connection_errors::{DISPATCHER_TARGET, counts};

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The lines written while `log` runs under `RUST_LOG=directives`.
    fn written(directives: &str, log: impl FnOnce()) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = subscriber(
            LogFormat::Text,
            move || writer.clone(),
            false,
            EnvFilter::new(directives),
        );
        tracing::subscriber::with_default(subscriber, log);
        String::from_utf8(captured.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn stream_errors_are_counted_not_written_whatever_the_filter() {
        for directives in ["info", "info,actix_http=off"] {
            let (heads, others) = counts();
            let lines = written(directives, || {
                tracing::error!(
                    target: DISPATCHER_TARGET,
                    "stream error: request parse error: invalid Header provided"
                );
                tracing::error!(target: DISPATCHER_TARGET, "stream error: I/O error: reset");
            });
            assert_eq!(lines, "", "{directives}");
            let (heads_after, others_after) = counts();
            assert!(heads_after > heads && others_after > others, "{directives}");
        }
    }

    #[test]
    fn other_lines_follow_the_filter() {
        let lines = written("info", || {
            tracing::error!(target: DISPATCHER_TARGET, "write zero; closing");
            tracing::info!(target: "access", "served");
            tracing::debug!(target: "access", "detail");
        });
        assert!(lines.contains("write zero; closing"), "{lines}");
        assert!(
            lines.contains("served") && !lines.contains("detail"),
            "{lines}"
        );
        let lines = written("info,actix_http=off", || {
            tracing::error!(target: DISPATCHER_TARGET, "write zero; closing");
        });
        assert_eq!(lines, "");
    }

    /// The `log` records bridged to tracing are cut at the filter's level, as before the
    /// count had a layer of its own.
    #[test]
    fn the_most_verbose_level_is_the_filters() {
        let subscriber = subscriber(LogFormat::Json, io::sink, false, EnvFilter::new("info"));
        assert_eq!(subscriber.max_level_hint(), Some(LevelFilter::INFO));
    }
}
