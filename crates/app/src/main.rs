use clap::Parser;
use shop_app::cli::{Cli, run};
use shop_app::telemetry;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    telemetry::init(cli.log_format);
    match run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // One clear line (plus the refused file's problems, one per line), no backtrace.
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
