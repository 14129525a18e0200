//! Logs go to stderr, so that stdout carries only what a command prints for scripts (the key
//! of `key create`).
//!
//! The server writes one line per request (target `access`, see `shop_http`'s `observe`
//! middleware) plus warnings and errors. `RUST_LOG` filters as usual (default `info`; e.g.
//! `RUST_LOG=info,access=warn` silences the request lines).

use std::io::IsTerminal as _;

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// Logs to stderr; colours only when stderr is a terminal, so that a log file stays plain.
pub fn init(format: LogFormat) {
    let ansi = std::io::stderr().is_terminal();
    try_init_with_writer(format, std::io::stderr, ansi);
}

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
