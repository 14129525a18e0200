//! Sync runs against the scripted server: what they ask, how far they page, and which
//! checkpoint they hand back.

use std::time::{Duration, Instant};

use super::{FakeServer, Reply, error, ok, page, product, rate_limited, recording_client};
use crate::models::OrderStatus;
use crate::{
    ActiveFilter, Checkpoint, ClientQuery, ErrorCode, OrderQuery, ProductQuery, RetryReason,
    StockQuery, SyncRun,
};

fn order(id: &str) -> String {
    format!(
        r#"{{"id":"{id}","orderNumber":1,"source":"pos","status":"completed","paymentStatus":"paid",
        "subtotalCents":900,"discountAmountCents":0,"taxAmountCents":150,"totalCents":900,
        "paymentMethod":"card","paidAt":"2026-11-25T10:00:00.000Z","customer":null,"clientId":null,
        "items":[],"createdAt":"2026-11-20T09:00:00.000Z","updatedAt":"2026-11-25T10:30:00.000Z"}}"#
    )
}

fn client(id: &str) -> String {
    format!(
        r#"{{"id":"{id}","name":"Marie","displayName":null,"phone":null,"email":null,
        "billing":{{"company":null,"vatNumber":null,"address":null,"city":null,"postalCode":null,"country":"FR"}},
        "birthDate":null,"loyalty":{{"points":1,"expiresAt":null,"pointsLifetime":2,"pointsAllTime":3,
        "tierAchievedAt":null}},"receiptByEmail":false,"tags":[],
        "createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-11-25T10:30:00.000Z"}}"#
    )
}

fn stock_entry(variant_id: &str) -> String {
    format!(
        r#"{{"variantId":"{variant_id}","productId":"p1","productName":"Bougie","variantLabel":"Figue",
        "sku":null,"barcode":null,"tracked":true,"stock":3,"lowStockThreshold":2,"isLowStock":false,
        "isOutOfStock":false,"active":true,"updatedAt":"2026-11-25T10:30:00.000Z"}}"#
    )
}

/// A page of the new contract: `pageInfo.syncedAt` set.
fn synced_page(items: &[String], next: Option<&str>, synced_at: &str) -> Reply {
    let next = next.map_or("null".to_owned(), |cursor| format!("\"{cursor}\""));
    ok(&format!(
        r#"{{"data":[{}],"pageInfo":{{"hasMore":{},"nextCursor":{next},"limit":100,"syncedAt":"{synced_at}"}}}}"#,
        items.join(","),
        next != "null"
    ))
}

fn checkpoint(text: &str) -> Checkpoint {
    text.parse().unwrap()
}

fn targets(server: &FakeServer) -> Vec<String> {
    server.seen().into_iter().map(|seen| seen.target).collect()
}

/// Every page of a run, by the ids a key function picks, checking on the way that no
/// checkpoint is offered before the run is over.
async fn drain<T: serde::de::DeserializeOwned>(
    run: &mut SyncRun<T>,
    id: impl Fn(&T) -> String,
) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    while let Some(items) = run.next_page().await.unwrap() {
        assert_eq!(run.checkpoint(), None, "offered before the end of the run");
        pages.push(items.iter().map(&id).collect());
    }
    pages
}

#[tokio::test]
async fn a_run_sends_the_checkpoint_pages_to_the_end_and_keeps_the_first_synced_at() {
    let server = FakeServer::start(vec![
        synced_page(
            &[order("o1"), order("o2")],
            Some("c1"),
            "2026-11-25T11:00:00.000Z",
        ),
        synced_page(&[order("o3")], Some("c2"), "2026-11-25T11:00:01.000Z"),
        synced_page(&[order("o4")], None, "2026-11-25T11:00:02.500Z"),
    ])
    .await;
    let (api, _) = recording_client(&server);
    let query = OrderQuery {
        status: Some(OrderStatus::Completed),
        ..Default::default()
    };
    let mut run = api.sync_orders(query, Some(checkpoint("2026-11-25T10:00:00.000Z")));

    let pages = drain(&mut run, |order| order.id.clone()).await;

    assert_eq!(pages, [vec!["o1", "o2"], vec!["o3"], vec!["o4"]]);
    assert_eq!(
        targets(&server),
        [
            "/api/v1/orders?limit=100&status=completed&updatedSince=2026-11-25T10%3A00%3A00Z",
            "/api/v1/orders?limit=100&status=completed&updatedSince=2026-11-25T10%3A00%3A00Z&cursor=c1",
            "/api/v1/orders?limit=100&status=completed&updatedSince=2026-11-25T10%3A00%3A00Z&cursor=c2",
        ]
    );
    assert_eq!(
        run.checkpoint(),
        Some(checkpoint("2026-11-25T11:00:00.000Z")),
        "the first page's syncedAt, not a later page's"
    );
    assert!(run.next_page().await.unwrap().is_none());
    assert_eq!(server.seen().len(), 3, "a finished run asks nothing more");
}

#[tokio::test]
async fn a_first_run_sends_no_updated_since_and_still_yields_a_checkpoint() {
    let server = FakeServer::start(vec![
        synced_page(
            &[client("c1"), client("c2")],
            Some("k1"),
            "2026-11-25T09:00:00.000Z",
        ),
        synced_page(&[client("c3")], None, "2026-11-25T09:00:04.000Z"),
    ])
    .await;
    let (api, _) = recording_client(&server);
    let query = ClientQuery {
        limit: Some(2),
        ..Default::default()
    };
    let mut run = api.sync_clients(query, None);

    let pages = drain(&mut run, |client| client.id.clone()).await;

    assert_eq!(pages, [vec!["c1", "c2"], vec!["c3"]]);
    assert_eq!(
        targets(&server),
        [
            "/api/v1/clients?limit=2",
            "/api/v1/clients?limit=2&cursor=k1"
        ]
    );
    let next = run.checkpoint().unwrap();
    assert_eq!(next, checkpoint("2026-11-25T09:00:00.000Z"));
    assert_eq!(next.to_string().parse::<Checkpoint>().unwrap(), next);
}

#[tokio::test]
async fn a_429_mid_run_is_waited_out_and_the_same_page_asked_again() {
    let server = FakeServer::start(vec![
        synced_page(&[stock_entry("v1")], Some("s1"), "2026-11-25T12:00:00.000Z"),
        rate_limited(1),
        synced_page(&[stock_entry("v2")], None, "2026-11-25T12:00:01.000Z"),
    ])
    .await;
    let (api, events) = recording_client(&server);
    let query = StockQuery {
        tracked_only: Some(false),
        ..Default::default()
    };
    let mut run = api.sync_stock(query, Some(checkpoint("2026-11-25T11:00:00.000Z")));
    let started = Instant::now();

    let pages = drain(&mut run, |entry| entry.variant_id.clone()).await;

    assert_eq!(pages, [vec!["v1"], vec!["v2"]]);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was honoured"
    );
    let events = events.lock().unwrap().clone();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].reason, RetryReason::RateLimited);
    assert_eq!(events[0].wait, Duration::from_secs(1));
    let targets = targets(&server);
    assert_eq!(
        targets[1],
        "/api/v1/stock?limit=100&trackedOnly=false&updatedSince=2026-11-25T11%3A00%3A00Z&cursor=s1"
    );
    assert_eq!(targets[2], targets[1], "the refused page, asked again");
    assert_eq!(
        run.checkpoint(),
        Some(checkpoint("2026-11-25T12:00:00.000Z"))
    );
}

#[tokio::test]
async fn a_failed_page_gives_no_checkpoint_and_the_run_resumes_at_that_page() {
    let server = FakeServer::start(vec![
        synced_page(&[product("p1")], Some("c1"), "2026-11-25T08:00:00.000Z"),
        error(500, "INTERNAL_ERROR", vec![]),
        synced_page(&[product("p2")], None, "2026-11-25T08:05:00.000Z"),
    ])
    .await;
    let (api, _) = recording_client(&server);
    let query = ProductQuery {
        active: Some(ActiveFilter::All),
        limit: Some(50),
        ..Default::default()
    };
    let mut run = api.sync_products(query, Some(checkpoint("2026-11-24T08:00:00.000Z")));

    assert_eq!(run.next_page().await.unwrap().unwrap()[0].id, "p1");
    let failed = run.next_page().await.unwrap_err();
    assert_eq!(failed.code(), Some(&ErrorCode::InternalError));
    assert_eq!(run.checkpoint(), None, "nothing to store after a failure");

    assert_eq!(run.next_page().await.unwrap().unwrap()[0].id, "p2");
    assert!(run.next_page().await.unwrap().is_none());
    let targets = targets(&server);
    assert_eq!(
        targets[2],
        "/api/v1/products?limit=50&active=all&updatedSince=2026-11-24T08%3A00%3A00Z&cursor=c1"
    );
    assert_eq!(targets[2], targets[1]);
    assert_eq!(
        run.checkpoint(),
        Some(checkpoint("2026-11-25T08:00:00.000Z"))
    );
}

#[tokio::test]
async fn a_server_without_synced_at_gives_no_checkpoint_to_store() {
    let server = FakeServer::start(vec![page(&["a"], None)]).await;
    let (api, _) = recording_client(&server);
    let mut run = api.sync_products(ProductQuery::default(), None);

    let pages = drain(&mut run, |product| product.id.clone()).await;

    assert_eq!(pages, [vec!["a"]]);
    assert_eq!(run.checkpoint(), None);
}
