//! `ceiling --bind ADDR [--workers N] --body NAME=PATH...`: prints `listening on http://ADDR`
//! (port 0 picks a free port) on stdout, then serves until SIGINT/SIGTERM.

use std::io::Write;
use std::net::{SocketAddr, TcpListener};

use clap::Parser;
use shop_bench::FixedBody;
use shop_http::ServerOptions;

// The API's allocator (crates/app/src/main.rs), so that the ceiling differs from the API only
// by the work the API does.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Debug, Parser)]
#[command(
    name = "ceiling",
    about = "actix-web with the API's server options, answering fixed bodies"
)]
struct Args {
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: SocketAddr,
    /// Worker threads (default: the API's default, one per core).
    #[arg(long)]
    workers: Option<usize>,
    /// `NAME=PATH`: the file's bytes at `GET /NAME` (200) and `POST /NAME` (201). Repeatable.
    #[arg(long = "body", required = true, value_parser = FixedBody::from_arg)]
    bodies: Vec<FixedBody>,
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let listener = TcpListener::bind(args.bind)?;
    let mut options = ServerOptions::default();
    if let Some(workers) = args.workers {
        options.workers = workers;
    }
    let addr = listener.local_addr()?;
    let server = shop_bench::serve(listener, args.bodies, options)?;
    // The one stdout line, read by the benchmark script to learn the port.
    writeln!(std::io::stdout(), "listening on http://{addr}")?;
    server.await
}
