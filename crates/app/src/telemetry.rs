//! Logs go to stderr, so that stdout carries only what a command prints for scripts (the key
//! of `key create`).
//!
//! The server writes one line per request (target `access`, see `shop_http`'s `observe`
//! middleware) plus warnings and errors. `RUST_LOG` filters as usual (default `info`; e.g.
//! `RUST_LOG=info,access=warn` silences the request lines).

mod batched_writer;

use std::io::IsTerminal as _;

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

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
/// Lines are written by a dedicated thread, in batches (see [`batched_writer`]): the request's
/// thread only hands its formatted line over, and a busy server writes many lines per
/// `write(2)` instead of one each. A line appears at most [`batched_writer::GATHER`] after it
/// was logged. No line is dropped: a request waits when [`LINES_PENDING`] lines are pending.
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
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer);
    match format {
        LogFormat::Text => builder.try_init().is_ok(),
        LogFormat::Json => builder.json().try_init().is_ok(),
    }
}
