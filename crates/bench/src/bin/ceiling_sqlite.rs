//! `ceiling-sqlite --database FILE --shop ID [--connections N] [--warm-up S] [--seconds S]`
//! and either `--page products|orders --statement FILE` (a page's statement) or
//! `--write FILE --ids FILE [--value NAME=TEXT|NAME=@FILE]...` (an API write's transaction):
//! ceiling B for SQLite (see `shop_bench::sqlite_ceiling`). Prints one JSON line: for a page,
//! pages, seconds, pages_per_second, rows_per_page, connections; for a write, transactions,
//! seconds, transactions_per_second, statements, targets, connections.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use shop_bench::sqlite_ceiling::{self, PageKind, PageStatement, WriteScript};

// The API's allocator, as for the framework ceiling.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Debug, Parser)]
#[command(
    name = "ceiling-sqlite",
    about = "a page's statement, or a write's transaction, on SQLite, from a thread per connection"
)]
struct Args {
    /// The benchmarked SQLite database file.
    #[arg(long)]
    database: PathBuf,
    #[arg(long, value_enum, requires = "statement", conflicts_with = "write")]
    page: Option<PageKind>,
    /// A page's statement file of scripts/bench/sql/sqlite/.
    #[arg(long, requires = "page")]
    statement: Option<PathBuf>,
    /// A write script of scripts/bench/sql/sqlite/ (product_patch.sql, loyalty_credit.sql).
    #[arg(long, requires = "ids")]
    write: Option<PathBuf>,
    /// The write's target ids, one a line: thread t takes every line i with i % N == t.
    #[arg(long, requires = "write")]
    ids: Option<PathBuf>,
    /// A write script's `:NAME` (`NAME=@FILE`: the file's content, a trailing newline cut).
    #[arg(long = "value", value_name = "NAME=TEXT")]
    values: Vec<String>,
    /// The shop whose page is read, or which is written (`:shop_id`).
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
    let line = match (&args.page, &args.statement, &args.write, &args.ids) {
        (Some(page), Some(statement), None, None) => run_page(&args, *page, statement),
        (None, None, Some(write), Some(ids)) => run_write(&args, write, ids),
        _ => Err("give --page with --statement, or --write with --ids".to_owned()),
    };
    match line {
        Ok(line) => {
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

fn durations(args: &Args) -> (Duration, Duration) {
    (
        Duration::from_secs_f64(args.warm_up),
        Duration::from_secs_f64(args.seconds),
    )
}

fn run_page(args: &Args, page: PageKind, path: &PathBuf) -> Result<String, String> {
    let statement = std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|file| PageStatement::parse(&file, &args.shop).map_err(|e| e.to_string()))
        .map_err(|error| format!("{}: {error}", path.display()))?;
    let (warm_up, seconds) = durations(args);
    let measured = sqlite_ceiling::run(
        &args.database,
        page,
        &statement,
        args.connections,
        warm_up,
        seconds,
    )
    .map_err(|error| error.to_string())?;
    Ok(format!(
        "{{\"pages\": {}, \"seconds\": {}, \"pages_per_second\": {:.1}, \
         \"rows_per_page\": {}, \"connections\": {}}}",
        measured.pages,
        measured.seconds,
        measured.pages_per_second(),
        measured.rows_per_page,
        args.connections
    ))
}

fn run_write(args: &Args, path: &PathBuf, ids: &PathBuf) -> Result<String, String> {
    let script = std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|file| WriteScript::parse(&file).map_err(|e| e.to_string()))
        .map_err(|error| format!("{}: {error}", path.display()))?;
    let ids: Vec<String> = std::fs::read_to_string(ids)
        .map_err(|error| format!("{}: {error}", ids.display()))?
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    let mut values = HashMap::new();
    for given in &args.values {
        let (name, value) = given
            .split_once('=')
            .ok_or_else(|| format!("--value {given}: expected NAME=TEXT or NAME=@FILE"))?;
        let value = match value.strip_prefix('@') {
            Some(file) => std::fs::read_to_string(file)
                .map_err(|error| format!("--value {name}=@{file}: {error}"))?
                .trim_end_matches('\n')
                .to_owned(),
            None => value.to_owned(),
        };
        values.insert(name.to_owned(), value);
    }
    let measured = sqlite_ceiling::run_writes(
        &args.database,
        &script,
        &args.shop,
        &ids,
        &values,
        args.connections,
        durations(args),
    )
    .map_err(|error| error.to_string())?;
    Ok(format!(
        "{{\"transactions\": {}, \"seconds\": {}, \"transactions_per_second\": {:.1}, \
         \"statements\": {}, \"targets\": {}, \"connections\": {}}}",
        measured.transactions,
        measured.seconds,
        measured.transactions_per_second(),
        measured.statements,
        measured.targets,
        args.connections
    ))
}
