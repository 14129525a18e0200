// crates/client/examples/sync_mirror.rs
//! One sync run of a mirror of orders, clients and stock: what changed since the checkpoint in
//! the file $SYNC_CHECKPOINT_FILE (everything, when the file does not exist yet), then the new
//! checkpoint, written only once all three lists were read to the end.
#![expect(clippy::print_stdout, reason = "an example prints its result")]
use std::io::ErrorKind;

use serde::de::DeserializeOwned;
use shop_api_client::{ApiError, Checkpoint, Client, ClientQuery, OrderQuery, StockQuery, SyncRun};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::new(std::env::var("SHOP_API")?, std::env::var("SHOP_API_KEY")?)?;
    let path = std::env::var("SYNC_CHECKPOINT_FILE")?;
    let since = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text.parse::<Checkpoint>()?),
        Err(error) if error.kind() == ErrorKind::NotFound => None,
        Err(error) => return Err(error.into()),
    };

    let (orders, after_orders) = apply(client.sync_orders(OrderQuery::default(), since)).await?;
    let (clients, after_clients) =
        apply(client.sync_clients(ClientQuery::default(), since)).await?;
    // Untracked variants too, or a switch of tracking off would never reach the mirror.
    let all_variants = StockQuery {
        tracked_only: Some(false),
        ..StockQuery::default()
    };
    let (stock, after_stock) = apply(client.sync_stock(all_variants, since)).await?;
    println!("changed: {orders} orders, {clients} clients, {stock} stock entries");

    // One file for three lists: the earliest of their checkpoints misses nothing in any.
    let next = [after_orders, after_clients, after_stock]
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .and_then(|checkpoints| checkpoints.into_iter().min());
    match next {
        Some(next) => {
            // Through a rename, so that a crash mid-write leaves the old checkpoint whole.
            let partial = format!("{path}.partial");
            std::fs::write(&partial, next.to_string())?;
            std::fs::rename(&partial, &path)?;
            println!("next checkpoint: {next}");
        }
        None => println!("the server sent no syncedAt: checkpoint left as it was"),
    }
    Ok(())
}

/// Reads a run to its end; returns how many items changed and the run's checkpoint.
async fn apply<T: DeserializeOwned>(
    mut run: SyncRun<T>,
) -> Result<(usize, Option<Checkpoint>), ApiError> {
    let mut changed = 0;
    while let Some(items) = run.next_page().await? {
        // A real mirror upserts each item here, by id, in the order received.
        changed += items.len();
    }
    Ok((changed, run.checkpoint()))
}
