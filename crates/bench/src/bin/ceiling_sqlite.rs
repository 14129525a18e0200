//! `ceiling-sqlite --database FILE --page products|orders --statement FILE --shop ID
//! [--connections N] [--warm-up S] [--seconds S]`: ceiling B for SQLite (see
//! `shop_bench::sqlite_ceiling`). Prints one JSON line: pages, seconds, pages_per_second,
//! rows_per_page, connections.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use shop_bench::sqlite_ceiling::{self, PageKind, PageStatement};

// The API's allocator, as for the framework ceiling.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Debug, Parser)]
#[command(
    name = "ceiling-sqlite",
    about = "one page statement on SQLite, from a thread per connection"
)]
struct Args {
    /// The benchmarked SQLite database file.
    #[arg(long)]
    database: PathBuf,
    #[arg(long, value_enum)]
    page: PageKind,
    /// A statement file of scripts/bench/sql/sqlite/.
    #[arg(long)]
    statement: PathBuf,
    /// The shop whose page is read (`:shop_id` in the file).
    #[arg(long)]
    shop: String,
    /// Threads, each with its own connection: the API's pool size (its default: 8).
    #[arg(long, default_value_t = 8)]
    connections: usize,
    #[arg(long, default_value_t = 2.0)]
    warm_up: f64,
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let statement = match std::fs::read_to_string(&args.statement)
        .map_err(|error| error.to_string())
        .and_then(|file| PageStatement::parse(&file, &args.shop).map_err(|e| e.to_string()))
    {
        Ok(statement) => statement,
        Err(error) => {
            eprintln!("ceiling-sqlite: {}: {error}", args.statement.display());
            return ExitCode::from(2);
        }
    };
    let measured = sqlite_ceiling::run(
        &args.database,
        args.page,
        &statement,
        args.connections,
        Duration::from_secs_f64(args.warm_up),
        Duration::from_secs_f64(args.seconds),
    );
    match measured {
        Ok(measured) => {
            let line = format!(
                "{{\"pages\": {}, \"seconds\": {}, \"pages_per_second\": {:.1}, \
                 \"rows_per_page\": {}, \"connections\": {}}}",
                measured.pages,
                measured.seconds,
                measured.pages_per_second(),
                measured.rows_per_page,
                args.connections
            );
            if writeln!(std::io::stdout(), "{line}").is_err() {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ceiling-sqlite: {error}");
            ExitCode::FAILURE
        }
    }
}
