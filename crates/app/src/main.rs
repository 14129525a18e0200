use clap::Parser;
use shop_app::cli::terminal_text::lines_for_terminal;
use shop_app::cli::{Cli, Refused, run};
use shop_app::telemetry;

// jemalloc, not glibc's malloc, for Rust's allocations and SQLite's (the unprefixed feature):
// less CPU per list page, and freed memory goes back to the system after a few seconds where
// glibc's per-thread arenas kept their peak (see docs/performance-log.md, "Full runs", 2 and 5).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let log_writer = match telemetry::init(cli.log_format) {
        Ok(guard) => guard,
        Err(error) => {
            eprintln!("error: cannot start the log writer thread: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let outcome = run(cli).await;
    // The last log lines are out before the error line, and before the exit.
    drop(log_writer);
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // One clear line (plus the refused file's problems, one per line), no backtrace.
            // Its text may quote the refused file or stored values: escaped for the terminal.
            eprintln!("error: {}", lines_for_terminal(&format!("{error:#}")));
            if error.downcast_ref::<Refused>().is_some() {
                // What the command was given was refused, as clap refuses a usage error.
                std::process::ExitCode::from(2)
            } else {
                std::process::ExitCode::FAILURE
            }
        }
    }
}
