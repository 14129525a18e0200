//! SIGTERM or SIGINT: how a supervisor (systemd, Kubernetes, a terminal) asks a process to stop.

use anyhow::Context;

/// Returns when SIGTERM or SIGINT arrives; an error if the process cannot listen for them.
pub async fn requested() -> anyhow::Result<()> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot listen for SIGTERM")?;
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => interrupted.context("cannot listen for SIGINT"),
        _ = terminate.recv() => Ok(()),
    }
}
