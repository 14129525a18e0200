use shop_ports::port::ReadFrom;
use std::sync::atomic::Ordering;

use diesel_async::{AsyncConnection, AsyncPgConnection};
use shop_domain::client::ClientConfidential;
use shop_domain::id::{ClientId, OrderId};
use shop_domain::import::ShopImport;
use shop_domain::order::{
    Order, OrderConfidential, OrderListQuery, OrderSource, OrderStatus, PaymentStatus,
};
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_ports::port::OrderRepository;

use super::fixtures::{
    at, client, imported, imported_client, imported_order, item, order, product, store, two_shops,
};
use super::{TestDb, counter, test_databases};
use crate::DatabaseUrl;
use crate::database::SqliteConn;
use crate::orders::{OrderQueries, OrderSelection};

fn ids(orders: &[Order]) -> Vec<&str> {
    orders.iter().map(|o| o.id.as_str()).collect()
}

/// Stores the orders with what they refer to: products `p1` and `p2`, clients `c1` and `c2`.
async fn store_orders(t: &TestDb, shop: &Shop, orders: Vec<Order>) {
    let data = ShopImport {
        products: vec![imported(product("p1")), imported(product("p2"))],
        clients: ["c1", "c2"]
            .into_iter()
            .map(|id| imported_client(client(id, "Client"), 1, ClientConfidential::default()))
            .collect(),
        orders: orders
            .into_iter()
            .map(|o| imported_order(o, OrderConfidential::default()))
            .collect(),
        ..ShopImport::default()
    };
    store(&t.db, shop, data).await;
}

async fn list(t: &TestDb, shop: &Shop, query: &OrderListQuery) -> Vec<Order> {
    t.db.list_orders(&shop.id, query, ReadFrom::Primary)
        .await
        .unwrap()
}

#[tokio::test]
async fn pages_are_newest_first_and_ties_on_time_follow_the_id_backwards() {
    // Byte order of ids breaks ties: `a` > `Z` > `B`, and `a_b` > `a-b`.
    let expected = ["late", "a_b", "a-b", "a", "Z", "B", "early"];
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut orders = vec![order("early", 100), order("late", 300)];
        orders.extend(["B", "Z", "a", "a-b", "a_b"].map(|id| order(id, 200)));
        store_orders(&t, &a, orders).await;

        let mut seen = Vec::new();
        let mut page = OrderListQuery {
            limit: PageLimit::new(2).unwrap(),
            ..OrderListQuery::default()
        };
        loop {
            let rows = list(&t, &a, &page).await;
            assert!(rows.len() <= 3, "{}: overfetch is limit + 1", t.backend());
            let has_more = rows.len() == 3;
            let kept: Vec<Order> = rows.into_iter().take(2).collect();
            page.before = kept.last().map(|o| (o.created_at, o.id.clone()));
            seen.extend(kept.into_iter().map(|o| o.id.into_string()));
            if !has_more {
                break;
            }
        }
        assert_eq!(seen, expected, "{}", t.backend());
    }
}

#[tokio::test]
async fn each_filter_narrows_the_list() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut online = order("o-online", 1_000);
        online.source = OrderSource::Online;
        online.status = OrderStatus::Pending;
        online.payment_status = PaymentStatus::Pending;
        online.client_id = Some(ClientId::parse("c1").unwrap());
        let mut click = order("o-click", 2_000);
        click.source = OrderSource::ClickCollect;
        click.status = OrderStatus::Ready;
        click.client_id = Some(ClientId::parse("c2").unwrap());
        let mut refunded = order("o-refunded", 3_000);
        refunded.payment_status = PaymentStatus::Refunded;
        refunded.status = OrderStatus::Cancelled;
        refunded.client_id = Some(ClientId::parse("c1").unwrap());
        let pos = order("o-pos", 4_000);
        store_orders(&t, &a, vec![online, click, refunded, pos]).await;
        let backend = t.backend();
        let all = OrderListQuery::default;

        let by_status = OrderListQuery {
            status: Some(OrderStatus::Ready),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &by_status).await),
            ["o-click"],
            "{backend}"
        );
        let by_payment = OrderListQuery {
            payment_status: Some(PaymentStatus::Paid),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &by_payment).await),
            ["o-pos", "o-click"],
            "{backend}"
        );
        let by_source = OrderListQuery {
            source: Some(OrderSource::Online),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &by_source).await),
            ["o-online"],
            "{backend}"
        );
        let by_client = OrderListQuery {
            client_id: Some(ClientId::parse("c1").unwrap()),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &by_client).await),
            ["o-refunded", "o-online"],
            "{backend}"
        );
        // Both bounds are inclusive, to the millisecond.
        let between = OrderListQuery {
            created_from: Some(at(2_000)),
            created_to: Some(at(3_000)),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &between).await),
            ["o-refunded", "o-click"],
            "{backend}"
        );
        let narrower = OrderListQuery {
            created_from: Some(at(2_001)),
            created_to: Some(at(2_999)),
            ..all()
        };
        assert!(list(&t, &a, &narrower).await.is_empty(), "{backend}");
        let from_only = OrderListQuery {
            created_from: Some(at(3_000)),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &from_only).await),
            ["o-pos", "o-refunded"],
            "{backend}"
        );
        let to_only = OrderListQuery {
            created_to: Some(at(1_000)),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &to_only).await),
            ["o-online"],
            "{backend}"
        );
        let combined = OrderListQuery {
            client_id: Some(ClientId::parse("c1").unwrap()),
            payment_status: Some(PaymentStatus::Pending),
            ..all()
        };
        assert_eq!(
            ids(&list(&t, &a, &combined).await),
            ["o-online"],
            "{backend}"
        );
        let unknown_client = OrderListQuery {
            client_id: Some(ClientId::parse("nobody").unwrap()),
            ..all()
        };
        assert!(list(&t, &a, &unknown_client).await.is_empty(), "{backend}");
    }
}

#[tokio::test]
async fn another_shops_orders_are_invisible() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        store_orders(&t, &a, vec![order("oa", 1_000)]).await;
        let mut theirs = order("ob", 2_000);
        theirs.items = vec![item("ob-1", "pb")];
        let data = ShopImport {
            products: vec![imported(product("pb"))],
            orders: vec![imported_order(theirs, OrderConfidential::default())],
            ..ShopImport::default()
        };
        store(&t.db, &b, data).await;

        let listed = list(&t, &a, &OrderListQuery::default()).await;
        assert_eq!(ids(&listed), ["oa"], "{}", t.backend());
        let other = OrderId::parse("ob").unwrap();
        assert_eq!(
            t.db.find_order(&a.id, &other, ReadFrom::Primary)
                .await
                .unwrap(),
            None
        );
        let found =
            t.db.find_order(&b.id, &other, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(found.items.len(), 1, "{}", t.backend());
    }
}

#[tokio::test]
async fn find_order_has_its_items_in_the_files_order() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut stored = order("o1", 1_000);
        stored.client_id = Some(ClientId::parse("c2").unwrap());
        stored.paid_at = None;
        stored.payment_method = None;
        stored.updated_at = at(1_500);
        // Not in id order: the list order is kept by position.
        stored.items = vec![item("i-c", "p2"), item("i-a", "p1"), item("i-b", "p1")];
        stored.items[1].quantity = 5;
        store_orders(&t, &a, vec![stored.clone()]).await;

        let found =
            t.db.find_order(&a.id, &stored.id, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(found, Some(stored), "{}", t.backend());
        let missing = OrderId::parse("nope").unwrap();
        assert_eq!(
            t.db.find_order(&a.id, &missing, ReadFrom::Primary)
                .await
                .unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn a_page_of_100_orders_costs_one_statement_whatever_their_items() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let many = (0..105)
            .map(|n| {
                let mut o = order(&format!("o{n:03}"), 1_000 + n);
                o.items = (0..4)
                    .map(|i| {
                        item(
                            &format!("o{n:03}-{i}"),
                            if i % 2 == 0 { "p1" } else { "p2" },
                        )
                    })
                    .collect();
                o
            })
            .collect();
        store_orders(&t, &a, many).await;
        let page = OrderListQuery {
            limit: PageLimit::new(100).unwrap(),
            ..OrderListQuery::default()
        };
        let (count, instrumentation) = counter();
        let loaded = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
                conn.set_instrumentation(instrumentation);
                conn.load_orders(&a.id, OrderSelection::Page(&page))
                    .await
                    .unwrap()
            }
            DatabaseUrl::Postgres(url) => {
                let mut conn = AsyncPgConnection::establish(url).await.unwrap();
                conn.set_instrumentation(instrumentation);
                conn.load_orders(&a.id, OrderSelection::Page(&page))
                    .await
                    .unwrap()
            }
        };
        assert_eq!(loaded.len(), 101, "{}", t.backend());
        assert_eq!(loaded[0].id.as_str(), "o104");
        assert!(loaded.iter().all(|o| o.items.len() == 4));
        assert!(
            loaded
                .iter()
                .all(|o| o.items[3].id.as_str() == format!("{}-3", o.id))
        );
        assert_eq!(count.load(Ordering::SeqCst), 1, "{}", t.backend());
    }
}

#[tokio::test]
async fn deep_pages_over_ties_have_no_duplicate_and_no_gap() {
    // Four orders per millisecond, ids unrelated to time, every fifth one ready.
    let orders: Vec<Order> = (0..160_i64)
        .map(|n| {
            let mut o = order(&format!("o{:03}", (n * 37) % 160), 1_000 + n / 4);
            if n % 5 == 0 {
                o.status = OrderStatus::Ready;
            }
            o
        })
        .collect();
    let mut newest_first: Vec<&Order> = orders.iter().collect();
    newest_first.sort_by(|x, y| (y.created_at, &y.id).cmp(&(x.created_at, &x.id)));
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        store_orders(&t, &a, orders.clone()).await;
        for status in [None, Some(OrderStatus::Ready)] {
            let expected: Vec<&str> = newest_first
                .iter()
                .filter(|o| status.is_none_or(|s| o.status == s))
                .map(|o| o.id.as_str())
                .collect();
            let mut page = OrderListQuery {
                status,
                limit: PageLimit::new(7).unwrap(),
                ..OrderListQuery::default()
            };
            let mut seen = Vec::new();
            loop {
                let rows = list(&t, &a, &page).await;
                let has_more = rows.len() == 8;
                let kept: Vec<Order> = rows.into_iter().take(7).collect();
                page.before = kept.last().map(|o| (o.created_at, o.id.clone()));
                seen.extend(kept.into_iter().map(|o| o.id.into_string()));
                if !has_more {
                    break;
                }
            }
            assert_eq!(seen, expected, "{} {status:?}", t.backend());
        }
    }
}
