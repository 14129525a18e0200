//! A resource's `updatedAt` strictly increases from one change to the next, whichever write
//! made it: a second change in the same millisecond, or one stamped before the last (it waited
//! for a concurrent change, or the clock stepped back), is stamped a millisecond after the
//! last. Its events carry the same stamps, so a receiver comparing `updatedAt` tells any two
//! states apart (docs/api-decisions.md, the sync contract).

use shop_domain::id::{ClientId, ProductId, ShopId};
use shop_domain::webhook::EventType;
use shop_ports::port::{CatalogueRepository, ClientRepository, ReadFrom, StockRepository};

use super::api_writes::{adjust_points, create_client, new_address, patch_client, rename_product};
use super::fixtures::{
    KEY_A, adjustment, imported, keyed_shops, product, store_products, with_outbox,
};
use super::stock_adjust::stock_entry;
use super::test_databases;
use super::tracking::{owned_shops, switch};
use super::webhooks::events_of;
use crate::Database;

/// The stamps of the shop's events of `kind` after `after` ms (the fixtures' import comes
/// first, at its own time), in the log's order.
async fn stamps_after(db: &Database, shop: &ShopId, kind: EventType, after: i64) -> Vec<i64> {
    events_of(db, shop, vec![kind])
        .await
        .iter()
        .map(|event| event.created_at.millis())
        .filter(|&stamp| stamp > after)
        .collect()
}

#[tokio::test]
async fn a_clients_changes_in_one_millisecond_or_earlier_are_stamped_one_after_the_other() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, _) = owned_shops(&t).await;
        let client: ClientId = create_client(&db, &a, KEY_A, 1, 5_000).await;
        patch_client(&db, &a, &client, "wrt_shop_a_c1_2", new_address(), 5_000).await;
        adjust_points(&db, &a, &client, 120, 5_000).await;
        // Stamped before the last, as a request that waited for the one before it.
        let earlier =
            shop_domain::client::ClientPatch::try_from(shop_domain::client::ClientInput {
                name: Some("Client 1 bis".into()),
                ..Default::default()
            })
            .unwrap();
        patch_client(&db, &a, &client, "wrt_shop_a_c1_3", earlier, 4_000).await;

        let stored = db
            .find_client(&a.id, &client, ReadFrom::Primary)
            .await
            .unwrap()
            .expect("the client");
        assert_eq!(stored.updated_at.millis(), 5_003, "{}", t.backend());
        assert_eq!(
            stamps_after(&db, &a.id, EventType::ClientCreated, 0).await,
            vec![5_000],
            "{}",
            t.backend()
        );
        assert_eq!(
            stamps_after(&db, &a.id, EventType::ClientUpdated, 0).await,
            vec![5_001, 5_002, 5_003],
            "the patch, the points, the earlier patch: {}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn a_products_and_its_stock_entrys_changes_in_one_millisecond_are_stamped_one_after_the_other()
 {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, _) = owned_shops(&t).await;
        store_products(&db, &a, vec![imported(product("p1"))]).await;
        rename_product(&db, &a, "wrt_shop_a_p1_1", "Mug bleu", 9_000).await;
        rename_product(&db, &a, "wrt_shop_a_p1_2", "Mug vert", 9_000).await;
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 9_000))
            .await
            .unwrap();
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 9_000))
            .await
            .unwrap();
        // The switch's own stamp is before the stock entry's last: it moves past it too.
        db.switch_tracking(&switch(&a, "p1-v0", false, 8_000))
            .await
            .unwrap();

        let product_id = ProductId::parse("p1").unwrap();
        let stored = db
            .find_product(&a.id, &product_id, ReadFrom::Primary)
            .await
            .unwrap()
            .expect("the product");
        assert_eq!(stored.updated_at.millis(), 9_004, "{}", t.backend());
        assert_eq!(
            stamps_after(&db, &a.id, EventType::ProductUpdated, 5_000).await,
            vec![9_000, 9_001, 9_002, 9_003, 9_004],
            "two renames, two adjustments, a switch: {}",
            t.backend()
        );
        // A rename changes the entry's `productName`: the entry moves with its product.
        assert_eq!(
            stamps_after(&db, &a.id, EventType::StockUpdated, 5_000).await,
            vec![9_000, 9_001, 9_002, 9_003, 9_004],
            "two renames, two adjustments, a switch: {}",
            t.backend()
        );
        let entry = stock_entry(&db, &a.id, "p1-v0")
            .await
            .expect("the variant's entry");
        assert_eq!(entry.updated_at.millis(), 9_004, "{}", t.backend());
    }
}

#[tokio::test]
async fn an_adjustment_stamped_before_its_variants_last_change_is_stamped_after_it() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, _) = keyed_shops(&db).await;
        store_products(&db, &a, vec![imported(product("p1"))]).await;
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 9_000))
            .await
            .unwrap();
        // A request stamped when it arrived, before the one above, that committed after it
        // (it waited for its product's row lock, or for the write turn).
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 6_000))
            .await
            .unwrap();

        let stamps = stamps_after(&db, &a.id, EventType::StockUpdated, 0).await;
        // The import logged the first, at its own time.
        assert_eq!(stamps, vec![5_000, 9_000, 9_001], "{}", t.backend());
        let entry = stock_entry(&db, &a.id, "p1-v0")
            .await
            .expect("the variant's entry");
        assert_eq!(
            (entry.stock, entry.updated_at.millis()),
            (6, 9_001),
            "{}",
            t.backend()
        );
    }
}
