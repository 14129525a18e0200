// crates/client/examples/sync_products.rs
//! Pages through every product, 100 at a time; the client waits on 429 by itself.
#![expect(clippy::print_stdout, reason = "an example prints its result")]
use futures::TryStreamExt;
use shop_api_client::{Client, ProductQuery};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::new(std::env::var("SHOP_API")?, std::env::var("SHOP_API_KEY")?)?;
    let query = ProductQuery {
        limit: Some(100),
        ..ProductQuery::default()
    };
    let products: Vec<_> = client.products_stream(query).try_collect().await?;
    println!("{} active products", products.len());
    Ok(())
}
