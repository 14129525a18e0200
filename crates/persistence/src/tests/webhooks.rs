//! Webhooks' tables: the outbox written in the change's transaction, the fan-out to the
//! endpoints that receive each type (and only the shop's own), the claims that send only the
//! newest pending event of a resource, and the endpoints' limit.

use std::time::Duration;

use shop_domain::id::{ShopId, WebhookEndpointId};
use shop_domain::import::ShopImport;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::Shop;
use shop_domain::webhook::{
    DeliveryStatus, EndpointUrl, EventData, EventSelection, EventType, MAX_ENDPOINTS_PER_SHOP,
    NetworkPolicy, WebhookSecret, received_types,
};
use shop_ports::port::{
    AttemptRecord, ClaimRoom, DeliveryNext, DeliveryQuery, DeliveryQueue, DueWork, EndpointChange,
    EndpointCreation, EventLog, EventQuery, ImportRepository, LoggedEvent, NewEndpoint,
    StockRepository, TrackingOutcome, WebhookEndpointStore,
};

use super::fixtures::{
    adjustment, at, imported, keyed_shops, product, store_products, with_outbox,
};
use super::test_databases;
use crate::Database;
use crate::database::in_transaction;
use crate::error::DbError;
use crate::webhooks::outbox::{self, OutboxWrite};

fn new_endpoint(shop: &Shop, id: &str, events: &[&str]) -> NewEndpoint {
    let scopes = ScopeSet::all();
    let events = EventSelection::parse(events.iter().copied()).unwrap();
    NewEndpoint {
        id: WebhookEndpointId::parse(id).unwrap(),
        shop: shop.id.clone(),
        url: EndpointUrl::parse("https://hooks.example.com/in", NetworkPolicy::PublicOnly).unwrap(),
        receives: received_types(&events, scopes),
        events,
        creator_scopes: scopes,
        description: String::new(),
        secret: WebhookSecret::from_random_bytes([7; 32]),
        at: at(1_000),
    }
}

async fn create(db: &Database, new: NewEndpoint) {
    let created = db.create_endpoint(&new).await.unwrap();
    assert!(matches!(created, EndpointCreation::Created(_)));
}

/// A turn of `instance` with room for everything due: what it claimed.
async fn claim_due(
    db: &Database,
    instance: &str,
    now: shop_domain::Timestamp,
    until: shop_domain::Timestamp,
) -> Result<Vec<shop_ports::port::ClaimedDelivery>, shop_ports::StoreError> {
    Ok(db
        .turn(&[], &room_for_all(), instance, now, until)
        .await?
        .claimed)
}

/// Room for everything the tests queue.
fn room_for_all() -> ClaimRoom {
    ClaimRoom {
        total: 100,
        per_endpoint: 100,
        ..ClaimRoom::default()
    }
}

/// A shop with product `p1` and one endpoint of `events`.
async fn one_product_and_endpoint(db: &Database, endpoint: &str, events: &[&str]) -> Shop {
    let (a, _) = keyed_shops(db).await;
    store_products(db, &a, vec![imported(product("p1"))]).await;
    create(db, new_endpoint(&a, endpoint, events)).await;
    a
}

/// [`one_product_and_endpoint`], with `p1-v0`'s stock adjusted once, at 7 s.
async fn one_adjusted_product(db: &Database, endpoint: &str, events: &[&str]) -> Shop {
    let a = one_product_and_endpoint(db, endpoint, events).await;
    db.adjust_stock(&adjustment(&a, "p1-v0", 1, 7_000))
        .await
        .unwrap();
    a
}

/// A turn of `instance` with room for everything due (other pairs are claimed too): the
/// newest pending delivery of `work`'s resource, if this instance got it.
async fn claim_one(
    db: &Database,
    work: &DueWork,
    instance: &str,
    now: shop_domain::Timestamp,
    until: shop_domain::Timestamp,
) -> Result<Option<shop_ports::port::ClaimedDelivery>, shop_ports::StoreError> {
    Ok(claim_due(db, instance, now, until)
        .await?
        .into_iter()
        .find(|c| c.endpoint_id == work.endpoint_id && c.resource == work.resource))
}

/// A turn that records `attempts` and claims nothing.
async fn record(db: &Database, attempts: &[AttemptRecord], instance: &str) {
    let turn = db
        .turn(attempts, &ClaimRoom::none(), instance, at(0), at(0))
        .await
        .unwrap();
    assert!(turn.claimed.is_empty());
}

/// A shop with products `p1` and `p2` and two endpoints of `stock.updated`.
async fn two_products_and_endpoints(db: &Database, endpoints: [&str; 2]) -> Shop {
    let (a, _) = keyed_shops(db).await;
    store_products(
        db,
        &a,
        vec![imported(product("p1")), imported(product("p2"))],
    )
    .await;
    for endpoint in endpoints {
        create(db, new_endpoint(&a, endpoint, &["stock.updated"])).await;
    }
    a
}

async fn due_at(db: &Database, now: shop_domain::Timestamp) -> Vec<DueWork> {
    db.due_pairs(now).await.unwrap()
}

fn pair(endpoint: &str, resource: &str) -> DueWork {
    DueWork {
        endpoint_id: WebhookEndpointId::parse(endpoint).unwrap(),
        resource: resource.to_owned(),
    }
}

async fn deliveries(
    db: &Database,
    shop: &ShopId,
    endpoint: &str,
) -> Vec<(DeliveryStatus, Option<u32>)> {
    let query = DeliveryQuery {
        status: None,
        before: None,
        limit: 100,
    };
    db.list_deliveries(shop, &WebhookEndpointId::parse(endpoint).unwrap(), &query)
        .await
        .unwrap()
        .expect("the endpoint exists")
        .into_iter()
        .map(|line| (line.status, line.attempt))
        .collect()
}

fn success(claimed: &shop_ports::port::ClaimedDelivery, at_ms: i64) -> AttemptRecord {
    AttemptRecord {
        attempt_id: format!("att_{}", claimed.delivery_id),
        delivery_id: claimed.delivery_id.clone(),
        endpoint_id: claimed.endpoint_id.clone(),
        resource: claimed.resource.clone(),
        attempt: claimed.attempt,
        succeeded: true,
        response_status: Some(204),
        duration: Duration::from_millis(3),
        error: None,
        response_excerpt: String::new(),
        at: at(at_ms),
        next: DeliveryNext::Succeeded,
        disable: None,
    }
}

#[tokio::test]
async fn an_adjustment_is_queued_for_the_shops_endpoints_that_receive_its_types_only() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, b) = keyed_shops(&db).await;
        store_products(&db, &a, vec![imported(product("p1"))]).await;
        create(&db, new_endpoint(&a, "we_stock", &["stock.updated"])).await;
        create(&db, new_endpoint(&a, "we_orders", &["order.created"])).await;
        create(&db, new_endpoint(&b, "we_other_shop", &["*"])).await;

        db.adjust_stock(&adjustment(&a, "p1-v0", 2, 7_000))
            .await
            .unwrap();

        let due = due_at(&db, at(7_000)).await;
        assert_eq!(
            due,
            vec![pair("we_stock", "stock:p1-v0")],
            "{}",
            t.backend()
        );
        // A refused adjustment (an unknown variant) changes nothing and has no event.
        db.adjust_stock(&adjustment(&a, "nope", 1, 7_500))
            .await
            .unwrap();
        let claimed = claim_one(&db, &due[0], "test", at(8_000), at(60_000))
            .await
            .unwrap()
            .expect("claimed");
        assert!(
            claimed.body.contains(r#""type":"stock.updated""#),
            "{}",
            claimed.body
        );
        assert_eq!(claimed.attempt, 1);
        assert_eq!(deliveries(&db, &b.id, "we_other_shop").await, vec![]);
        // Another shop naming this endpoint deletes nothing of it, its deliveries included.
        let theirs = WebhookEndpointId::parse("we_stock").unwrap();
        assert!(!db.delete_endpoint(&b.id, &theirs).await.unwrap());
        assert_eq!(
            deliveries(&db, &a.id, "we_stock").await,
            vec![(DeliveryStatus::Pending, None)],
            "{}",
            t.backend()
        );
        assert!(db.delete_endpoint(&a.id, &theirs).await.unwrap());
        assert!(db.get_endpoint(&a.id, &theirs).await.unwrap().is_none());
    }
}

/// Whether this process's workers were woken since the last look (a wake-up nobody waited
/// for is kept as a permit, which this takes).
async fn workers_woken(db: &Database) -> bool {
    tokio::time::timeout(Duration::from_millis(20), db.events_wake.notified())
        .await
        .is_ok()
}

#[tokio::test]
async fn a_write_wakes_the_workers_only_when_it_queued_a_delivery() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, _) = keyed_shops(&db).await;
        store_products(&db, &a, vec![imported(product("p1"))]).await;
        create(&db, new_endpoint(&a, "we_orders", &["order.created"])).await;
        workers_woken(&db).await;

        db.adjust_stock(&adjustment(&a, "p1-v0", 2, 7_000))
            .await
            .unwrap();
        assert!(
            !workers_woken(&db).await,
            "no endpoint receives an adjustment's events: nothing to wake for ({})",
            t.backend()
        );

        create(&db, new_endpoint(&a, "we_stock", &["stock.updated"])).await;
        workers_woken(&db).await;
        db.adjust_stock(&adjustment(&a, "p1-v0", 3, 8_000))
            .await
            .unwrap();
        assert!(workers_woken(&db).await, "{}", t.backend());
        assert_eq!(
            due_at(&db, at(8_000)).await,
            vec![pair("we_stock", "stock:p1-v0")],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn only_the_newest_pending_event_of_a_resource_is_sent_and_one_attempt_at_a_time() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let a = one_product_and_endpoint(&db, "we_1", &["stock.updated"]).await;
        for (n, at_ms) in [7_000, 7_001, 7_002].into_iter().enumerate() {
            db.adjust_stock(&adjustment(&a, "p1-v0", n as i64 + 1, at_ms))
                .await
                .unwrap();
        }
        let work = pair("we_1", "stock:p1-v0");
        let claimed = claim_one(&db, &work, "one", at(8_000), at(60_000))
            .await
            .unwrap()
            .unwrap();
        // The import logged two events (its stock entry, its product); each adjustment appends
        // a stock.updated, then a product.updated: the third one's stock.updated is the 7th.
        assert!(
            claimed.delivery_id.as_str().starts_with("dlv_7_"),
            "{}",
            claimed.delivery_id
        );
        let newest = claim_one(&db, &work, "two", at(8_000), at(60_000))
            .await
            .unwrap();
        assert!(
            newest.is_none(),
            "a second claim of a pair in flight: {}",
            t.backend()
        );
        assert!(due_at(&db, at(8_000)).await.is_empty());
        assert_eq!(
            deliveries(&db, &a.id, "we_1").await,
            vec![
                (DeliveryStatus::Pending, None),
                (DeliveryStatus::Superseded, None),
                (DeliveryStatus::Superseded, None),
            ],
            "{}",
            t.backend()
        );
        record(&db, &[success(&claimed, 8_100)], "one").await;
        let health = db
            .get_endpoint(&a.id, &WebhookEndpointId::parse("we_1").unwrap())
            .await
            .unwrap()
            .unwrap()
            .health;
        assert_eq!(health.failures_in_a_row, 0);
        assert_eq!(health.last_attempt, Some((at(8_100), true)));
        let after: Vec<_> = deliveries(&db, &a.id, "we_1").await;
        assert_eq!(
            after
                .iter()
                .filter(|(s, _)| *s == DeliveryStatus::Succeeded)
                .count(),
            1
        );
        assert!(due_at(&db, at(9_000)).await.is_empty());
        // The claim is released: a later change is due and claimable again.
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 9_000))
            .await
            .unwrap();
        assert_eq!(due_at(&db, at(9_000)).await, vec![work.clone()]);
        assert!(
            claim_one(&db, &work, "two", at(9_000), at(60_000))
                .await
                .unwrap()
                .is_some()
        );
    }
}

#[tokio::test]
async fn a_claim_whose_instance_died_is_taken_over_once_expired() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        one_adjusted_product(&db, "we_1", &["*"]).await;
        let work = pair("we_1", "stock:p1-v0");
        // Queued first (SQLite would otherwise claim the first attempt straight from the
        // log, held by its one instance in memory, which a restart releases: the test below).
        assert!(due_at(&db, at(7_000)).await.contains(&work));
        assert!(
            claim_one(&db, &work, "died", at(7_000), at(20_000))
                .await
                .unwrap()
                .is_some()
        );
        assert!(
            claim_one(&db, &work, "alive", at(19_999), at(50_000))
                .await
                .unwrap()
                .is_none()
        );
        assert!(due_at(&db, at(19_999)).await.iter().all(|w| w != &work));
        assert!(due_at(&db, at(20_001)).await.contains(&work));
        let taken = claim_one(&db, &work, "alive", at(20_001), at(50_000))
            .await
            .unwrap();
        assert!(taken.is_some(), "{}", t.backend());
    }
}

#[tokio::test]
async fn a_shop_holds_at_most_its_limit_of_endpoints_and_a_disabled_one_is_not_fed() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, b) = keyed_shops(&db).await;
        store_products(&db, &a, vec![imported(product("p1"))]).await;
        for n in 0..MAX_ENDPOINTS_PER_SHOP {
            create(
                &db,
                new_endpoint(&a, &format!("we_{n:02}"), &["stock.updated"]),
            )
            .await;
        }
        let over = db
            .create_endpoint(&new_endpoint(&a, "we_over", &["*"]))
            .await
            .unwrap();
        assert_eq!(over, EndpointCreation::LimitReached, "{}", t.backend());
        // Another shop's count is its own.
        create(&db, new_endpoint(&b, "we_b", &["*"])).await;

        let first = WebhookEndpointId::parse("we_00").unwrap();
        let off = EndpointChange {
            enabled: Some(false),
            ..EndpointChange::default()
        };
        let disabled = db
            .update_endpoint(&a.id, &first, &off, at(2_000))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(disabled.status.as_str(), "disabled");
        // B cannot see, change or delete A's endpoint.
        assert!(db.get_endpoint(&b.id, &first).await.unwrap().is_none());
        assert!(
            db.update_endpoint(&b.id, &first, &off, at(2_000))
                .await
                .unwrap()
                .is_none()
        );
        assert!(!db.delete_endpoint(&b.id, &first).await.unwrap());

        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 7_000))
            .await
            .unwrap();
        let due = due_at(&db, at(7_000)).await;
        assert_eq!(due.len(), MAX_ENDPOINTS_PER_SHOP - 1, "{}", t.backend());
        assert!(due.iter().all(|w| w.endpoint_id != first));

        assert!(db.delete_endpoint(&a.id, &first).await.unwrap());
        assert!(db.get_endpoint(&a.id, &first).await.unwrap().is_none());
        let listed = db.list_endpoints(&a.id, None, 100).await.unwrap();
        assert_eq!(listed.len(), MAX_ENDPOINTS_PER_SHOP - 1);
        assert!(
            listed
                .iter()
                .all(|e| e.events.names() == vec![EventType::StockUpdated.as_str()])
        );
    }
}

/// The shop's events of `types` in the log's order (up to a thousand).
pub(super) async fn events_of(
    db: &Database,
    shop: &ShopId,
    types: Vec<EventType>,
) -> Vec<LoggedEvent> {
    let query = EventQuery {
        types,
        since: None,
        after: None,
        limit: 1_000,
    };
    db.list_events(shop, &query).await.unwrap()
}

async fn logged(db: &Database, shop: &ShopId) -> Vec<(String, String)> {
    events_of(db, shop, EventType::SUBSCRIBABLE.to_vec())
        .await
        .into_iter()
        .map(|event| {
            let body: serde_json::Value = serde_json::from_str(&event.body).unwrap();
            (
                event.event_type.as_str().to_owned(),
                body["resource"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(kind, resource)| ((*kind).to_owned(), (*resource).to_owned()))
        .collect()
}

#[tokio::test]
async fn an_import_logs_one_event_per_row_it_changed_and_an_identical_one_none() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, b) = keyed_shops(&db).await;
        let file = || ShopImport {
            products: vec![imported(product("p1"))],
            ..ShopImport::default()
        };
        db.import(&a.id, file(), at(5_000)).await.unwrap();
        let first = logged(&db, &a.id).await;
        assert_eq!(
            first,
            pairs(&[
                ("stock.updated", "stock:p1-v0"),
                ("product.created", "product:p1"),
            ]),
            "{}",
            t.backend()
        );
        db.import(&a.id, file(), at(6_000)).await.unwrap();
        assert_eq!(logged(&db, &a.id).await, first, "{}", t.backend());
        let mut renamed = product("p1");
        renamed.name = "Renamed".into();
        let changed = ShopImport {
            products: vec![imported(renamed)],
            ..ShopImport::default()
        };
        db.import(&a.id, changed, at(7_000)).await.unwrap();
        // The name is on the product and on its stock entry (`productName`): both changed.
        let after = logged(&db, &a.id).await;
        assert_eq!(
            after[first.len()..].to_vec(),
            pairs(&[
                ("stock.updated", "stock:p1-v0"),
                ("product.updated", "product:p1"),
            ]),
            "{}",
            t.backend()
        );
        assert!(logged(&db, &b.id).await.is_empty());
    }
}

#[tokio::test]
async fn a_refused_import_and_a_refused_adjustment_log_nothing() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, b) = keyed_shops(&db).await;
        store_products(&db, &b, vec![imported(product("theirs"))]).await;
        // A file naming another shop's product is refused whole: its own product too.
        let refused = ShopImport {
            products: vec![imported(product("mine")), imported(product("theirs"))],
            ..ShopImport::default()
        };
        assert!(db.import(&a.id, refused, at(5_000)).await.is_err());
        db.adjust_stock(&adjustment(&a, "theirs-v0", 1, 6_000))
            .await
            .unwrap();
        assert_eq!(logged(&db, &a.id).await, vec![], "{}", t.backend());
    }
}

#[tokio::test]
async fn a_switch_of_tracking_logs_the_stock_entry_and_its_product() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, _) = super::tracking::owned_shops(&t).await;
        store_products(&db, &a, vec![imported(product("p1"))]).await;
        let before = logged(&db, &a.id).await.len();
        let outcome = db
            .switch_tracking(&super::tracking::switch(&a, "p1-v0", false, 9_000))
            .await
            .unwrap();
        assert_eq!(outcome, TrackingOutcome::Switched);
        let events = logged(&db, &a.id).await;
        assert_eq!(
            events[before..].to_vec(),
            pairs(&[
                ("stock.updated", "stock:p1-v0"),
                ("product.updated", "product:p1")
            ]),
            "{}",
            t.backend()
        );
    }
}

/// The shop's pings in the log after `after`.
async fn pings_after(db: &Database, shop: &ShopId, after: Option<i64>) -> Vec<LoggedEvent> {
    let query = EventQuery {
        types: vec![EventType::Ping],
        since: None,
        after,
        limit: 100,
    };
    db.list_events(shop, &query).await.unwrap()
}

/// A transaction draws its event's `seq` before it commits, so on PostgreSQL a smaller one
/// can become visible after a larger one: the log still lists it after every position read
/// before its commit, so a reader following its cursor never misses it.
#[tokio::test]
async fn an_event_committed_late_is_listed_after_the_positions_read_before_its_commit() {
    for t in test_databases().await {
        if t.backend() != "postgres" {
            continue;
        }
        let db = with_outbox(&t.db);
        let (a, _) = keyed_shops(&db).await;
        let outbox = db.outbox.clone().unwrap();
        let (drawn, drawn_seen) = tokio::sync::oneshot::channel();
        let (commit, commit_heard) = tokio::sync::oneshot::channel::<()>();
        let late = {
            let (db, outbox, shop) = (db.clone(), outbox.clone(), a.id.clone());
            tokio::spawn(async move {
                let appended: Result<(), DbError> = in_transaction!(&db, |conn| {
                    let event = outbox.event(EventType::Ping, at(1_000), EventData::Ping)?;
                    outbox::append(conn, &OutboxWrite::new(&outbox), &shop, &[event]).await?;
                    drawn.send(()).unwrap();
                    commit_heard.await.unwrap();
                    Ok(())
                });
                appended.unwrap();
            })
        };
        drawn_seen.await.unwrap();
        let event = outbox
            .event(EventType::Ping, at(2_000), EventData::Ping)
            .unwrap();
        let shop = &a.id;
        let appended: Result<(), DbError> = in_transaction!(&db, |conn| {
            outbox::append(conn, &OutboxWrite::new(&outbox), shop, &[event]).await
        });
        appended.unwrap();
        let read_before = pings_after(&db, &a.id, None).await;
        assert_eq!(read_before.len(), 1, "only the committed event is listed");

        commit.send(()).unwrap();
        late.await.unwrap();
        let read_after = pings_after(&db, &a.id, Some(read_before[0].position)).await;
        assert_eq!(read_after.len(), 1, "the late commit is after the cursor");
        assert_ne!(read_after[0].id, read_before[0].id);
        assert!(read_after[0].position > read_before[0].position);
    }
}

/// What the receiver answered, for [`success`]'s siblings.
fn failure(
    claimed: &shop_ports::port::ClaimedDelivery,
    at_ms: i64,
    next: DeliveryNext,
) -> AttemptRecord {
    AttemptRecord {
        succeeded: false,
        response_status: Some(500),
        next,
        ..success(claimed, at_ms)
    }
}

#[tokio::test]
async fn a_batch_is_claimed_and_recorded_at_once_each_pair_and_endpoint_moving_on_its_own() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let a = two_products_and_endpoints(&db, ["we_up", "we_down"]).await;
        for (variant, at_ms) in [("p1-v0", 7_000), ("p2-v0", 7_001)] {
            db.adjust_stock(&adjustment(&a, variant, 1, at_ms))
                .await
                .unwrap();
        }
        let due = due_at(&db, at(8_000)).await;
        assert_eq!(due.len(), 4, "{}: {due:?}", t.backend());
        let claimed = claim_due(&db, "one", at(8_000), at(60_000)).await.unwrap();
        assert_eq!(claimed.len(), 4, "{}", t.backend());
        assert!(due_at(&db, at(8_000)).await.is_empty());

        let records: Vec<AttemptRecord> = claimed
            .iter()
            .map(|claim| match claim.endpoint_id.as_str() {
                "we_up" => success(claim, 8_100),
                _ if claim.resource == "stock:p1-v0" => {
                    failure(claim, 8_100, DeliveryNext::RetryAt(at(9_000)))
                }
                _ => failure(claim, 8_200, DeliveryNext::GaveUp),
            })
            .collect();
        record(&db, &records, "one").await;

        let endpoint = |id: &str| WebhookEndpointId::parse(id).unwrap();
        let up = db
            .get_endpoint(&a.id, &endpoint("we_up"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(up.health.failures_in_a_row, 0);
        assert_eq!(up.health.last_attempt, Some((at(8_100), true)));
        let down = db
            .get_endpoint(&a.id, &endpoint("we_down"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(down.health.failures_in_a_row, 2, "{}", t.backend());
        assert_eq!(down.health.last_attempt, Some((at(8_200), false)));

        let statuses = |lines: Vec<(DeliveryStatus, Option<u32>)>| {
            let mut statuses: Vec<DeliveryStatus> =
                lines.into_iter().map(|(status, _)| status).collect();
            statuses.sort_by_key(|status| status.as_str());
            statuses
        };
        assert_eq!(
            statuses(deliveries(&db, &a.id, "we_up").await),
            vec![DeliveryStatus::Succeeded, DeliveryStatus::Succeeded]
        );
        // we_down: two failed attempts, and the retried delivery pending again.
        assert_eq!(
            statuses(deliveries(&db, &a.id, "we_down").await),
            vec![
                DeliveryStatus::Failed,
                DeliveryStatus::Failed,
                DeliveryStatus::Pending
            ],
            "{}",
            t.backend()
        );
        // The claims are released: the retry is due at its time, and only it; until then the
        // workers may sleep up to it.
        assert_eq!(
            db.next_due(at(8_300)).await.unwrap(),
            Some(at(9_000)),
            "{}",
            t.backend()
        );
        assert_eq!(db.next_due(at(9_000)).await.unwrap(), None);
        assert!(due_at(&db, at(8_999)).await.is_empty());
        assert_eq!(
            due_at(&db, at(9_000)).await,
            vec![pair("we_down", "stock:p1-v0")]
        );
        let again = claim_one(
            &db,
            &pair("we_down", "stock:p1-v0"),
            "one",
            at(9_000),
            at(60_000),
        )
        .await
        .unwrap()
        .expect("claimed again");
        assert_eq!(again.attempt, 2);
    }
}

#[tokio::test]
async fn a_sqlite_server_starting_again_releases_its_previous_runs_claims_at_once() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        one_adjusted_product(&db, "we_1", &["stock.updated"]).await;
        let work = pair("we_1", "stock:p1-v0");
        assert_eq!(due_at(&db, at(7_000)).await, vec![work.clone()]);
        assert!(
            claim_one(&db, &work, "killed", at(8_000), at(60_000))
                .await
                .unwrap()
                .is_some()
        );
        let released = db.release_orphaned_claims().await.unwrap();
        let due = due_at(&db, at(8_001)).await;
        if t.backend() == "sqlite" {
            assert_eq!(released, 1);
            assert_eq!(due, vec![work]);
        } else {
            // Another instance may be alive: its claims expire instead.
            assert_eq!(released, 0);
            assert!(due.is_empty());
        }
    }
}

/// A delivery's id, as the tests' claims carry them.
fn claimed_ids(claimed: &[shop_ports::port::ClaimedDelivery]) -> Vec<String> {
    let mut ids: Vec<String> = claimed
        .iter()
        .map(|c| c.delivery_id.as_str().to_owned())
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn a_sqlite_run_that_dies_sends_again_only_the_first_attempts_it_did_not_record() {
    for t in test_databases().await {
        if t.backend() != "sqlite" {
            continue; // PostgreSQL claims every attempt from rows: the test above
        }
        let db = with_outbox(&t.db);
        let a = two_products_and_endpoints(&db, ["we_1", "we_2"]).await;
        db.delete_endpoint(&a.id, &WebhookEndpointId::parse("we_2").unwrap())
            .await
            .unwrap();
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 7_000))
            .await
            .unwrap();
        db.adjust_stock(&adjustment(&a, "p2-v0", 1, 7_001))
            .await
            .unwrap();
        let first = claim_due(&db, "run-1", at(7_010), at(60_000))
            .await
            .unwrap();
        assert_eq!(first.len(), 2, "{first:?}");
        assert!(first.iter().all(|c| c.attempt == 1));
        // In flight, without a row yet, and listed as waiting all the same.
        assert_eq!(
            deliveries(&db, &a.id, "we_1").await,
            vec![
                (DeliveryStatus::Pending, None),
                (DeliveryStatus::Pending, None)
            ]
        );
        let p1 = first.iter().find(|c| c.resource == "stock:p1-v0").unwrap();
        record(&db, &[success(p1, 7_020)], "run-1").await;
        assert_eq!(
            deliveries(&db, &a.id, "we_1").await,
            vec![
                (DeliveryStatus::Succeeded, Some(1)),
                (DeliveryStatus::Pending, None)
            ]
        );

        // The run dies with p2's attempt in flight; the next one starts.
        assert_eq!(db.release_orphaned_claims().await.unwrap(), 0);
        let again = claim_due(&db, "run-2", at(8_000), at(60_000))
            .await
            .unwrap();
        let p2: Vec<String> = claimed_ids(&first)
            .into_iter()
            .filter(|id| id != p1.delivery_id.as_str())
            .collect();
        assert_eq!(claimed_ids(&again), p2, "only the attempt not recorded");
        record(&db, &[success(&again[0], 8_010)], "run-2").await;
        assert!(
            claim_due(&db, "run-2", at(9_000), at(60_000))
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            deliveries(&db, &a.id, "we_1").await,
            vec![
                (DeliveryStatus::Succeeded, Some(1)),
                (DeliveryStatus::Succeeded, Some(1))
            ]
        );
    }
}

/// `PRAGMA synchronous` of the connection SQLite's writers' pool hands out next.
#[derive(diesel::QueryableByName)]
struct SyncSetting {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    synchronous: i32,
}

#[tokio::test]
async fn a_sqlite_turn_hands_its_writer_back_syncing_every_commit() {
    // One writer connection: the turn's is the one the API's next write gets.
    let t = super::sqlite_with(crate::PoolOptions {
        max_size: 1,
        ..crate::PoolOptions::default()
    })
    .await;
    let db = with_outbox(&t.db);
    let a = one_adjusted_product(&db, "we_1", &["stock.updated"]).await;
    let claimed = claim_due(&db, "one", at(7_010), at(60_000)).await.unwrap();
    // This turn writes: its commit waits for no sync (`CommitSync::WithTheNextFull`).
    record(&db, &[success(&claimed[0], 7_020)], "one").await;
    assert_eq!(
        deliveries(&db, &a.id, "we_1").await,
        vec![(DeliveryStatus::Succeeded, Some(1))]
    );

    let setting: Result<SyncSetting, DbError> = crate::database::with_conn!(&db, |conn| {
        diesel_async::RunQueryDsl::get_result(diesel::sql_query("PRAGMA synchronous"), conn).await
    });
    const FULL: i32 = 2;
    assert_eq!(
        setting.unwrap().synchronous,
        FULL,
        "an API write on this connection must survive a power cut"
    );
}

#[tokio::test]
async fn a_failed_attempt_is_superseded_by_a_newer_event_read_by_the_turn_recording_it() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let a = one_adjusted_product(&db, "we_1", &["stock.updated"]).await;
        let first = claim_due(&db, "one", at(7_010), at(60_000)).await.unwrap();
        assert_eq!(first.len(), 1, "{}", t.backend());
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 7_100))
            .await
            .unwrap();

        // The failure is recorded, and the newer event read, by one turn.
        let failed = failure(&first[0], 7_200, DeliveryNext::RetryAt(at(60_000)));
        let turn = db
            .turn(&[failed], &room_for_all(), "one", at(7_200), at(60_000))
            .await
            .unwrap();
        assert_eq!(turn.claimed.len(), 1, "{}", t.backend());
        let newer = &turn.claimed[0];
        assert_ne!(newer.event_id, first[0].event_id, "{}", t.backend());
        assert_eq!(newer.resource, first[0].resource);
        assert_eq!(
            deliveries(&db, &a.id, "we_1").await,
            vec![
                (DeliveryStatus::Failed, Some(1)),
                (DeliveryStatus::Pending, None),
                (DeliveryStatus::Superseded, None),
            ],
            "the failed one is never sent again ({})",
            t.backend()
        );
    }
}

#[tokio::test]
async fn one_endpoints_backlog_never_hides_another_endpoints_due_delivery() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let (a, _) = keyed_shops(&db).await;
        let products = (0..20).map(|n| imported(product(&format!("p{n}"))));
        store_products(&db, &a, products.collect()).await;
        create(&db, new_endpoint(&a, "we_backlog", &["stock.updated"])).await;
        for n in 0..20 {
            db.adjust_stock(&adjustment(&a, &format!("p{n}-v0"), 1, 7_000 + n))
                .await
                .unwrap();
        }
        // Created after the backlog: its one delivery is the newest of the queue.
        create(&db, new_endpoint(&a, "we_quiet", &["stock.updated"])).await;
        db.adjust_stock(&adjustment(&a, "p0-v0", 1, 7_100))
            .await
            .unwrap();
        let room = ClaimRoom {
            total: 8,
            per_endpoint: 2,
            ..ClaimRoom::default()
        };
        let turn = db
            .turn(&[], &room, "one", at(8_000), at(60_000))
            .await
            .unwrap();
        let mut claimed: Vec<(String, String)> = turn
            .claimed
            .iter()
            .map(|c| (c.endpoint_id.to_string(), c.resource.clone()))
            .collect();
        claimed.sort();
        assert_eq!(
            claimed,
            vec![
                ("we_backlog".to_owned(), "stock:p0-v0".to_owned()),
                ("we_backlog".to_owned(), "stock:p1-v0".to_owned()),
                ("we_quiet".to_owned(), "stock:p0-v0".to_owned()),
            ],
            "{}",
            t.backend()
        );
    }
}

/// The rows the queue holds of `endpoint`: its attempts, deliveries and claims.
async fn queue_rows_of(db: &Database, endpoint: &str) -> (i64, i64, i64) {
    use crate::schema::{webhook_attempts, webhook_deliveries, webhook_inflight};
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;
    let counted: Result<(i64, i64, i64), DbError> = in_transaction!(db, |conn| {
        let attempts = webhook_attempts::table
            .filter(webhook_attempts::endpoint_id.eq(endpoint))
            .count()
            .get_result(&mut *conn)
            .await?;
        let deliveries = webhook_deliveries::table
            .filter(webhook_deliveries::endpoint_id.eq(endpoint))
            .count()
            .get_result(&mut *conn)
            .await?;
        let claims = webhook_inflight::table
            .filter(webhook_inflight::endpoint_id.eq(endpoint))
            .count()
            .get_result(&mut *conn)
            .await?;
        Ok((attempts, deliveries, claims))
    });
    counted.unwrap()
}

#[tokio::test]
async fn an_attempt_that_ends_after_its_endpoints_deletion_leaves_nothing_behind() {
    for t in test_databases().await {
        let db = with_outbox(&t.db);
        let a = two_products_and_endpoints(&db, ["we_gone", "we_kept"]).await;
        db.adjust_stock(&adjustment(&a, "p1-v0", 1, 7_000))
            .await
            .unwrap();
        let claimed = claim_due(&db, "one", at(8_000), at(60_000)).await.unwrap();
        assert_eq!(claimed.len(), 2, "{}", t.backend());
        let gone = WebhookEndpointId::parse("we_gone").unwrap();
        assert!(db.delete_endpoint(&a.id, &gone).await.unwrap());
        assert_eq!(queue_rows_of(&db, "we_gone").await, (0, 0, 0));

        // Both attempts end after the deletion: the turn records the kept endpoint's only.
        let ended: Vec<AttemptRecord> = claimed.iter().map(|c| success(c, 8_100)).collect();
        record(&db, &ended, "one").await;
        assert_eq!(
            queue_rows_of(&db, "we_gone").await,
            (0, 0, 0),
            "no attempt, delivery or claim of a deleted endpoint: {}",
            t.backend()
        );
        assert_eq!(
            deliveries(&db, &a.id, "we_kept").await,
            vec![(DeliveryStatus::Succeeded, Some(1))],
            "{}",
            t.backend()
        );
        // The queue goes on: the next change reaches the endpoint left, and only it.
        db.adjust_stock(&adjustment(&a, "p2-v0", 1, 9_000))
            .await
            .unwrap();
        assert_eq!(
            due_at(&db, at(9_000)).await,
            vec![pair("we_kept", "stock:p2-v0")]
        );
    }
}
