//! `updatedSince` walks and the writes that move `updatedAt`, on both backends: the stock
//! entry's own stamp (adjustment, switch, import), a ticket's client, and the import's restamp.

use shop_domain::Timestamp;
use shop_domain::id::{ClientId, OrderId, VariantId};
use shop_domain::import::ShopImport;
use shop_domain::order::OrderListQuery;
use shop_domain::pagination::PageLimit;
use shop_domain::stock::StockListQuery;
use shop_domain::sync::ChangedSince;
use shop_ports::port::ReadFrom;
use shop_ports::port::{
    CatalogueRepository, ClientRepository, ImportRepository, OrderRepository, StockRepository,
};

use super::fixtures::{
    adjustment, at, client, imported, imported_client, imported_event, imported_order, order,
    product, store, ticket, two_shops, variant,
};
use super::test_databases;
use super::tracking::{owned_shops, switch};
use crate::database::with_conn;
use crate::import::restamp::Restamp;

/// Clients `c1`, `c2` and orders `o1`, `o2`, updated at 1000 and 2000.
fn sales() -> ShopImport {
    ShopImport {
        clients: vec![
            imported_client(client("c1", "Ana"), 1_000, Default::default()),
            imported_client(client("c2", "Zoé"), 2_000, Default::default()),
        ],
        orders: vec![
            imported_order(order("o1", 1_000), Default::default()),
            imported_order(order("o2", 2_000), Default::default()),
        ],
        ..ShopImport::default()
    }
}

fn stamps(entries: &[shop_domain::stock::StockEntry]) -> Vec<(&str, i64)> {
    entries
        .iter()
        .map(|e| (e.variant_id.as_str(), e.updated_at.millis()))
        .collect()
}

fn stock_since(since: i64, after: Option<(i64, &str)>, limit: i64) -> StockListQuery {
    StockListQuery {
        tracked_only: false,
        changed: Some(ChangedSince {
            since: at(since),
            after: after.map(|(millis, id)| (at(millis), VariantId::parse(id).unwrap())),
        }),
        limit: PageLimit::new(limit).unwrap(),
        ..StockListQuery::default()
    }
}

#[tokio::test]
async fn a_stock_entry_moves_with_its_movements_switches_and_changing_imports_only() {
    for t in test_databases().await {
        let (a, _) = owned_shops(&t).await;
        let mut p = product("p1");
        p.variants = vec![
            variant("p1-v0", 0),
            variant("p1-v1", 1),
            variant("p1-v2", 2),
        ];
        let data = |p: &shop_domain::catalogue::Product| ShopImport {
            products: vec![imported(p.clone())],
            ..ShopImport::default()
        };
        t.db.import(&a.id, data(&p), at(1_000)).await.unwrap();
        t.db.adjust_stock(&adjustment(&a, "p1-v0", 2, 2_000))
            .await
            .unwrap();
        t.db.switch_tracking(&switch(&a, "p1-v1", false, 3_000))
            .await
            .unwrap();
        let all =
            t.db.list_stock(&a.id, &stock_since(0, None, 10), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(
            stamps(&all),
            [("p1-v2", 1_000), ("p1-v0", 2_000), ("p1-v1", 3_000)],
            "{}: by updatedAt, then id",
            t.backend()
        );
        // A new price is not something a stock entry shows (nor is the stock the file gives,
        // already the stored one); a new label is. A variant the file leaves out is kept.
        let mut changed = p.clone();
        changed.variants[0].price = shop_domain::money::Cents(1);
        changed.variants[0].stock += 2;
        changed.variants[2].label = "Renamed".into();
        changed.variants.remove(1);
        t.db.import(&a.id, data(&changed), at(4_000)).await.unwrap();
        let all =
            t.db.list_stock(&a.id, &stock_since(0, None, 10), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(
            stamps(&all),
            [("p1-v0", 2_000), ("p1-v1", 3_000), ("p1-v2", 4_000)],
            "{}",
            t.backend()
        );
        // The same file again moves nothing.
        t.db.import(&a.id, data(&changed), at(5_000)).await.unwrap();
        let again =
            t.db.list_stock(&a.id, &stock_since(0, None, 10), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(stamps(&again), stamps(&all), "{}", t.backend());
        // Pages follow (updatedAt, id) from the cursor; `since` is inclusive; the adapter
        // reads one row past the page.
        let first =
            t.db.list_stock(&a.id, &stock_since(3_000, None, 1), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(stamps(&first), [("p1-v1", 3_000), ("p1-v2", 4_000)]);
        let next =
            t.db.list_stock(
                &a.id,
                &stock_since(3_000, Some((3_000, "p1-v1")), 1),
                ReadFrom::Primary,
            )
            .await
            .unwrap();
        assert_eq!(stamps(&next), [("p1-v2", 4_000)], "{}", t.backend());
    }
}

#[tokio::test]
async fn orders_and_clients_changed_since_in_update_order_within_their_shop() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        store(&t.db, &a, sales()).await;
        store(&t.db, &b, ShopImport::default()).await;
        // A later import changes one order and one client (the file's `updatedAt`, kept from
        // the first, is not what they get).
        let mut later = sales();
        later.orders[1].order.status = shop_domain::order::OrderStatus::Cancelled;
        later.clients[0].client.name = "Renamed".into();
        let (changed_order, changed_client) = (
            later.orders[1].order.id.clone(),
            later.clients[0].client.id.clone(),
        );
        t.db.import(&a.id, later, at(9_000)).await.unwrap();
        let orders = |since: i64| OrderListQuery {
            changed: Some(ChangedSince::<OrderId>::new(at(since))),
            ..OrderListQuery::default()
        };
        let listed =
            t.db.list_orders(&a.id, &orders(9_000), ReadFrom::Primary)
                .await
                .unwrap();
        let ids: Vec<_> = listed.iter().map(|o| o.id.clone()).collect();
        assert_eq!(ids, [changed_order], "{}", t.backend());
        let everything =
            t.db.list_orders(&a.id, &orders(0), ReadFrom::Primary)
                .await
                .unwrap();
        let times: Vec<Timestamp> = everything.iter().map(|o| o.updated_at).collect();
        assert!(times.is_sorted(), "{}: {times:?}", t.backend());
        assert_eq!(*times.last().unwrap(), at(9_000));
        assert!(
            t.db.list_orders(&b.id, &orders(0), ReadFrom::Primary)
                .await
                .unwrap()
                .is_empty(),
            "another shop's orders"
        );
        let clients = shop_domain::client::ClientListQuery {
            changed: Some(ChangedSince::<ClientId>::new(at(9_000))),
            ..shop_domain::client::ClientListQuery::default()
        };
        let listed =
            t.db.list_clients(&a.id, &clients, ReadFrom::Primary)
                .await
                .unwrap();
        let ids: Vec<_> = listed.iter().map(|c| c.id.clone()).collect();
        assert_eq!(ids, [changed_client], "{}", t.backend());
    }
}

#[tokio::test]
async fn a_ticket_written_moves_its_client() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        store(&t.db, &a, sales()).await;
        let client = sales().clients[1].client.id.clone();
        let data = ShopImport {
            lottery_tickets: vec![imported_event(ticket("t-new", client.as_str(), 1), 1)],
            ..ShopImport::default()
        };
        t.db.import(&a.id, data, at(7_000)).await.unwrap();
        let found =
            t.db.find_client(&a.id, &client, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(found.updated_at, at(7_000), "{}", t.backend());
    }
}

#[tokio::test]
async fn a_restamp_moves_exactly_the_rows_of_that_instant() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        store(&t.db, &a, sales()).await;
        let mut p = product("p1");
        p.variants = vec![variant("p1-v0", 0)];
        let products = ShopImport {
            products: vec![imported(p)],
            ..ShopImport::default()
        };
        t.db.import(&a.id, products.clone(), at(6_000))
            .await
            .unwrap();
        t.db.import(&b.id, ShopImport::default(), at(6_000))
            .await
            .unwrap();
        let moved: Result<(), crate::error::DbError> = with_conn!(&t.db, |conn| {
            conn.restamp(&a.id, at(6_000), at(8_000)).await
        });
        moved.unwrap();
        let stock =
            t.db.list_stock(&a.id, &stock_since(0, None, 10), ReadFrom::Primary)
                .await
                .unwrap();
        let product_stamps: Vec<_> = stamps(&stock)
            .into_iter()
            .filter(|(id, _)| *id == "p1-v0")
            .collect();
        assert_eq!(product_stamps, [("p1-v0", 8_000)], "{}", t.backend());
        let found =
            t.db.find_product(
                &a.id,
                &shop_domain::id::ProductId::parse("p1").unwrap(),
                ReadFrom::Primary,
            )
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.updated_at, at(8_000));
        // The sales rows, written at 5000, stay.
        let orders =
            t.db.list_orders(&a.id, &OrderListQuery::default(), ReadFrom::Primary)
                .await
                .unwrap();
        assert!(orders.iter().all(|o| o.updated_at != at(8_000)));
    }
}
