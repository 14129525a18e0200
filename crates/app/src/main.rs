use clap::Parser;
use shop_app::cli::{Cli, run};
use shop_app::telemetry;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let log_writer = telemetry::init(cli.log_format);
    let outcome = run(cli).await;
    // The last log lines are out before the error line, and before the exit.
    drop(log_writer);
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // One clear line (plus the refused file's problems, one per line), no backtrace.
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
