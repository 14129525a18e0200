use std::collections::HashSet;

use crate::fixtures::{bare_product, products};
use crate::support::{TestApp, on_both_databases};

on_both_databases!(paging_while_products_are_inserted_never_repeats_or_skips);

/// Pages through 300 products, 7 at a time, while products are inserted both before and
/// after the cursor position between every two pages.
async fn paging_while_products_are_inserted_never_repeats_or_skips(app: TestApp) {
    app.create_shop("atelier").await;
    let original: Vec<String> = (0..300).map(|n| format!("p_{:04}", n * 10)).collect();
    let data = products(original.iter().map(|id| bare_product(id, id)).collect());
    app.import("atelier", &data).await;
    let key = app.create_key("atelier", "products:read").await;

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for round in 0.. {
        let path = match &cursor {
            Some(cursor) => format!("/api/v1/products?limit=7&cursor={cursor}"),
            None => "/api/v1/products?limit=7".to_owned(),
        };
        let reply = app.get(&path, &key).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        let page = reply.json();
        assert_eq!(page["pageInfo"]["limit"], 7);
        let items = page["data"].as_array().unwrap();
        assert!(items.len() <= 7);
        seen.extend(items.iter().map(|p| p["id"].as_str().unwrap().to_owned()));

        // New rows on both sides of the position reached so far.
        let behind = format!("p_{:04}x{round}", (round * 70) % 3000);
        let ahead = format!("p_{:04}y{round}", (round * 70 + 1500) % 3000);
        app.import(
            "atelier",
            &products(vec![
                bare_product(&behind, "new"),
                bare_product(&ahead, "new"),
            ]),
        )
        .await;

        match page["pageInfo"]["nextCursor"].as_str() {
            Some(next) => {
                assert_eq!(page["pageInfo"]["hasMore"], true);
                cursor = Some(next.to_owned());
            }
            None => {
                assert_eq!(page["pageInfo"]["hasMore"], false);
                break;
            }
        }
        assert!(round < 200, "paging does not end");
    }

    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a product was served twice");
    let missing: Vec<_> = original.iter().filter(|id| !unique.contains(id)).collect();
    assert!(
        missing.is_empty(),
        "products that existed from the start were skipped: {missing:?}"
    );
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "pages follow one order");
}
