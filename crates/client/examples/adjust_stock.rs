// crates/client/examples/adjust_stock.rs
//! One stock adjustment. The client sends an Idempotency-Key and reuses it on every retry, so
//! a retried adjustment is applied once.
#![expect(clippy::print_stdout, reason = "an example prints its result")]
use shop_api_client::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::new(std::env::var("SHOP_API")?, std::env::var("SHOP_API_KEY")?)?;
    let outcome = client
        .adjust_stock("demo_var_001_0", 5, "Delivery 2026-11-21")
        .await?;
    let adjustment = outcome.adjustment;
    println!(
        "{} -> {} (movement {}, key {})",
        adjustment.previous_stock,
        adjustment.new_stock,
        adjustment.movement_id,
        outcome.idempotency_key
    );
    Ok(())
}
