//! The console's activity list: movements and tracking switches interleaved newest first, with
//! their names, paged by `(time, id)` without a gap or a repeat, within the shop.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel_async::{AsyncConnection, AsyncPgConnection};
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::owner::OwnerEmail;
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_domain::stock::{ActivityPosition, ActivityQuery, StockActivity, VariantName};
use shop_ports::port::StockRepository;

use super::fixtures::{KEY_A2, adjustment, imported, product, store_products};
use super::tracking::{owned_shops, switch};
use super::{TestDb, cache_counter, test_databases};
use crate::DatabaseUrl;
use crate::database::SqliteConn;
use crate::stock::activity::ActivityQueries;
use shop_domain::timeline::TimelineLine;

async fn activity(
    t: &TestDb,
    shop: &Shop,
    before: Option<ActivityPosition>,
    limit: i64,
) -> Vec<StockActivity> {
    let query = ActivityQuery {
        before,
        limit: PageLimit::new(limit).unwrap(),
    };
    t.db.list_activity(&shop.id, &query).await.unwrap()
}

fn positions(lines: &[StockActivity]) -> Vec<(Timestamp, String)> {
    lines
        .iter()
        .map(|line| (line.at(), line.id().to_owned()))
        .collect()
}

fn name(product: &str, variant: &str) -> VariantName {
    VariantName {
        product_name: format!("Product {product}"),
        variant_label: format!("Variant {variant}"),
        sku: Some(format!("SKU-{variant}")),
    }
}

/// Shop a: movements at 1000, 3000 (twice, one with its second key) and switches at 2000,
/// 3000, 4000; shop b: one of each. Returns every position of shop a, newest first.
async fn history(t: &TestDb) -> (Shop, Shop, Vec<(Timestamp, String)>) {
    let (a, b) = owned_shops(t).await;
    store_products(
        &t.db,
        &a,
        vec![imported(product("p1")), imported(product("p2"))],
    )
    .await;
    store_products(&t.db, &b, vec![imported(product("pb"))]).await;
    let mut made = Vec::new();
    let mut second_key = adjustment(&a, "p1-v0", 1, 3_000);
    second_key.key_prefix = KeyPrefix::parse(KEY_A2).unwrap();
    for command in [
        adjustment(&a, "p1-v0", 1, 1_000),
        adjustment(&a, "p1-v0", -1, 3_000),
        second_key,
    ] {
        t.db.adjust_stock(&command).await.unwrap();
        made.push((command.at, command.movement_id.as_str().to_owned()));
    }
    for command in [
        switch(&a, "p2-v0", false, 2_000),
        switch(&a, "p2-v0", true, 3_000),
        switch(&a, "p2-v0", false, 4_000),
    ] {
        t.db.switch_tracking(&command).await.unwrap();
        made.push((command.at, command.switch_id.as_str().to_owned()));
    }
    t.db.adjust_stock(&adjustment(&b, "pb-v0", 1, 2_500))
        .await
        .unwrap();
    t.db.switch_tracking(&switch(&b, "pb-v0", false, 2_600))
        .await
        .unwrap();
    made.sort();
    made.reverse();
    (a, b, made)
}

#[tokio::test]
async fn movements_and_switches_interleave_newest_first_with_their_names() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _, expected) = history(&t).await;
        let lines = activity(&t, &a, None, 20).await;
        assert_eq!(positions(&lines), expected, "{backend}");

        let oldest = lines.last().unwrap();
        let StockActivity::Adjustment {
            movement,
            key_label,
            variant,
        } = oldest
        else {
            panic!("{backend}: the oldest line is the first adjustment: {oldest:?}");
        };
        assert_eq!(movement.delta, 1, "{backend}");
        assert_eq!(movement.created_at.millis(), 1_000, "{backend}");
        assert_eq!(key_label, "key 0a1b2c3d", "{backend}");
        assert_eq!(*variant, name("p1", "p1-v0"), "{backend}");

        let labels: Vec<&str> = lines
            .iter()
            .filter_map(|line| match line {
                StockActivity::Adjustment { key_label, .. } => Some(key_label.as_str()),
                StockActivity::TrackingSwitch { .. } => None,
            })
            .collect();
        assert!(labels.contains(&"key 1b2c3d4e"), "{backend}: {labels:?}");

        let StockActivity::TrackingSwitch {
            switch,
            owner,
            variant,
        } = &lines[0]
        else {
            panic!(
                "{backend}: the newest line is the last switch: {:?}",
                lines[0]
            );
        };
        assert_eq!(switch.at.millis(), 4_000, "{backend}");
        assert!(!switch.tracked, "{backend}");
        assert_eq!(switch.variant_id.as_str(), "p2-v0", "{backend}");
        assert_eq!(switch.product_id.as_str(), "p2", "{backend}");
        assert_eq!(switch.owner_id.as_str(), "owner_a", "{backend}");
        assert_eq!(*owner, OwnerEmail::parse("ana@a.fr").unwrap(), "{backend}");
        assert_eq!(*variant, name("p2", "p2-v0"), "{backend}");
    }
}

#[tokio::test]
async fn pages_follow_each_other_without_a_gap_or_a_repeat() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _, expected) = history(&t).await;
        for limit in 1..=4 {
            let mut seen = Vec::new();
            let mut before = None;
            loop {
                let lines = activity(&t, &a, before.clone(), limit).await;
                let limit = usize::try_from(limit).unwrap();
                assert!(
                    lines.len() <= limit + 1,
                    "{backend}: over-fetch by one at most"
                );
                let page = &lines[..lines.len().min(limit)];
                seen.extend(positions(page));
                if lines.len() <= limit {
                    break;
                }
                before = page.last().map(TimelineLine::position);
            }
            assert_eq!(seen, expected, "{backend}: limit {limit}");
        }
        // Past the oldest line: nothing.
        let (at, id) = expected.last().unwrap().clone();
        let oldest = ActivityPosition::new(at, id);
        assert!(
            activity(&t, &a, Some(oldest), 20).await.is_empty(),
            "{backend}"
        );
    }
}

#[tokio::test]
async fn another_shop_lines_never_appear() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, b, expected) = history(&t).await;
        let theirs = activity(&t, &b, None, 20).await;
        let times: Vec<i64> = theirs.iter().map(|line| line.at().millis()).collect();
        assert_eq!(times, [2_600, 2_500], "{backend}");
        assert!(
            theirs
                .iter()
                .all(|line| !expected.iter().any(|(_, id)| id == line.id())),
            "{backend}"
        );
        let StockActivity::TrackingSwitch { owner, .. } = &theirs[0] else {
            panic!("{backend}: {theirs:?}");
        };
        assert_eq!(owner.as_str(), "zoe@b.fr", "{backend}");
        // Their cursor read in shop a gives shop a's older lines only.
        let from_theirs = activity(&t, &a, Some(theirs[0].position()), 20).await;
        assert!(
            from_theirs
                .iter()
                .all(|line| expected.iter().any(|(_, id)| id == line.id())),
            "{backend}"
        );
    }
}

/// Reads a first page, then two pages after a cursor, on one connection; returns the prepared
/// statements the connection had cached after each.
macro_rules! cached_after_each_page {
    ($conn:expr, $shop:expr, $cursor:expr) => {{
        let conn = &mut $conn;
        let (cached, instrumentation) = cache_counter();
        conn.set_instrumentation(instrumentation);
        let mut after_each = Vec::new();
        for before in [None, Some($cursor.clone()), Some($cursor.clone())] {
            let query = ActivityQuery {
                before,
                limit: PageLimit::new(2).unwrap(),
            };
            conn.load_activity(&$shop.id, &query).await.unwrap();
            after_each.push(AtomicUsize::load(&cached, Ordering::SeqCst));
        }
        after_each
    }};
}

/// The two queries of a page, with and without a cursor, are prepared once per connection.
#[tokio::test]
async fn a_page_is_prepared_once_per_connection() {
    for t in test_databases().await {
        let (a, _, expected) = history(&t).await;
        let cursor = ActivityPosition::new(expected[2].0, expected[2].1.clone());
        let after_each = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
                cached_after_each_page!(conn, &a, cursor)
            }
            DatabaseUrl::Postgres(url) => {
                let mut conn = AsyncPgConnection::establish(url).await.unwrap();
                cached_after_each_page!(conn, &a, cursor)
            }
        };
        assert_eq!(after_each, [2, 4, 4], "{}", t.backend());
    }
}
