//! `webhook-sink --bind ADDR [--threads N] [--status S] [--delay-ms D] [--out FILE]`: a webhook
//! receiver that answers every delivery with S (204) after D ms (0) and records it (see
//! `shop_bench::webhook_sink`). Prints `listening on http://ADDR` (port 0 picks a free port)
//! on stdout, then serves until SIGINT/SIGTERM; with `--out`, writes its records there as JSON
//! lines when it stops.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use hyper::StatusCode;
use shop_bench::webhook_sink::{self, Sink};
use tokio::signal::unix::{SignalKind, signal};

#[derive(Debug, Parser)]
#[command(
    name = "webhook-sink",
    about = "a webhook receiver that records what it is sent"
)]
struct Args {
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: SocketAddr,
    /// Threads of the runtime. One takes tens of thousands of deliveries a second and leaves
    /// the other core to the server under test.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// The status every delivery is answered with (`POST /_sink/answer?status=` changes it).
    #[arg(long, default_value_t = 204, value_parser = clap::value_parser!(u16).range(100..1000))]
    status: u16,
    /// Milliseconds to wait before answering (after recording the arrival).
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
    /// Where to write every record (JSON lines) on SIGINT/SIGTERM.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(run(args))
}

async fn run(args: Args) -> std::io::Result<()> {
    let status = StatusCode::from_u16(args.status)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let sink = Sink::new(status, Duration::from_millis(args.delay_ms));
    let listener = tokio::net::TcpListener::bind(args.bind).await?;
    let addr = listener.local_addr()?;
    // The one stdout line, read by the scripts to learn the port.
    writeln!(std::io::stdout(), "listening on http://{addr}")?;
    std::io::stdout().flush()?;
    let mut terminate = signal(SignalKind::terminate())?;
    tokio::select! {
        served = webhook_sink::serve(listener, sink.clone()) => served?,
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    if let Some(out) = args.out {
        std::fs::write(out, sink.records_json_lines(0))?;
    }
    Ok(())
}
