//! An endpoint's deliveries, their retries and recoveries, and `GET /api/v2/events` (API v2,
//! issue 34).

use actix_web::http::{Method, StatusCode};
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, ShopId};
use shop_domain::webhook::{DeliveryLine, DeliveryStatus, EventType};
use shop_ports::port::{LoggedEvent, MockEventLog, MockWebhookEndpointStore};

use super::webhook_endpoints::{MANAGER, URI, api, call, post};
use super::{NOW_MILLIS, get};

fn of_shop_1(shop: &ShopId) -> bool {
    shop.as_str() == "shop_1"
}

fn at(text: &str) -> Timestamp {
    Timestamp::parse_rfc3339(text).unwrap()
}

fn lines() -> Vec<DeliveryLine> {
    vec![
        DeliveryLine {
            id: DeliveryId::parse("dlv_2").unwrap(),
            event_id: EventId::parse("evt_2").unwrap(),
            event_type: EventType::OrderUpdated,
            attempt: None,
            status: DeliveryStatus::Pending,
            response_status: None,
            duration_ms: None,
            error: None,
            created_at: at("2026-11-21T09:31:00Z"),
            next_attempt_at: Some(at("2026-11-21T09:36:00Z")),
        },
        DeliveryLine {
            id: DeliveryId::parse("dlv_1").unwrap(),
            event_id: EventId::parse("evt_1").unwrap(),
            event_type: EventType::OrderCreated,
            attempt: Some(2),
            status: DeliveryStatus::Failed,
            response_status: Some(503),
            duration_ms: Some(120),
            error: None,
            created_at: at("2026-11-21T09:30:00.250Z"),
            next_attempt_at: None,
        },
    ]
}

#[actix_web::test]
async fn deliveries_are_listed_newest_first_with_every_field() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_list_deliveries()
        .withf(|shop, id, query| {
            of_shop_1(shop)
                && id.as_str() == "we_1"
                && query.status == Some(DeliveryStatus::Failed)
                && query.before.is_none()
                && query.limit == 21
        })
        .times(1)
        .returning(|_, _, _| Ok(Some(lines())));
    let reply = api(MANAGER)
        .webhook_store(store)
        .send(get(&format!("{URI}/we_1/deliveries?status=failed")))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(
        reply.json(),
        json!({
            "data": [
                {
                    "id": "dlv_2",
                    "eventId": "evt_2",
                    "eventType": "order.updated",
                    "attempt": null,
                    "status": "pending",
                    "responseStatus": null,
                    "durationMs": null,
                    "error": null,
                    "createdAt": "2026-11-21T09:31:00.000Z",
                    "nextAttemptAt": "2026-11-21T09:36:00.000Z"
                },
                {
                    "id": "dlv_1",
                    "eventId": "evt_1",
                    "eventType": "order.created",
                    "attempt": 2,
                    "status": "failed",
                    "responseStatus": 503,
                    "durationMs": 120,
                    "error": null,
                    "createdAt": "2026-11-21T09:30:00.250Z",
                    "nextAttemptAt": null
                }
            ],
            "pageInfo": {"hasMore": false, "nextCursor": null, "limit": 20, "syncedAt": null}
        })
    );
}

#[actix_web::test]
async fn a_page_of_deliveries_continues_from_its_cursor() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_list_deliveries()
        .withf(|_, _, query| query.limit == 2 && query.before.is_none())
        .times(1)
        .returning(|_, _, _| Ok(Some(lines())));
    let first = api(MANAGER)
        .webhook_store(store)
        .send(get(&format!("{URI}/we_1/deliveries?limit=1")))
        .await;
    let page = first.json();
    assert_eq!(page["pageInfo"]["hasMore"], true);
    let cursor = page["pageInfo"]["nextCursor"].as_str().unwrap().to_owned();
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_list_deliveries()
        .withf(|_, _, query| query.before == Some((at("2026-11-21T09:31:00Z"), "dlv_2".to_owned())))
        .times(1)
        .returning(|_, _, _| Ok(Some(Vec::new())));
    let second = api(MANAGER)
        .webhook_store(store)
        .send(get(&format!(
            "{URI}/we_1/deliveries?limit=1&cursor={cursor}"
        )))
        .await;
    assert_eq!(second.status, StatusCode::OK, "{:?}", second.body);
}

#[actix_web::test]
async fn delivery_parameters_are_checked_before_the_lookup() {
    for (query, fields) in [
        ("status=done", vec!["status"]),
        ("status=failed&limit=0&since=x", vec!["since", "limit"]),
    ] {
        // Even of an id that cannot exist: 400 comes before 404.
        let reply = api(MANAGER)
            .send(get(&format!("{URI}/a%20b/deliveries?{query}")))
            .await;
        assert_eq!(reply.detail_fields(), fields, "{query}");
    }
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_list_deliveries()
        .withf(|shop, _, _| of_shop_1(shop))
        .returning(|_, _, _| Ok(None));
    let reply = api(MANAGER)
        .webhook_store(store)
        .send(get(&format!("{URI}/we_other/deliveries")))
        .await;
    let error = reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(error["message"], "No webhook endpoint has this id.");
}

#[actix_web::test]
async fn a_retry_is_a_202_and_an_unknown_delivery_a_404() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_retry_delivery()
        .withf(|shop, id, delivery, at| {
            of_shop_1(shop)
                && id.as_str() == "we_1"
                && delivery.as_str() == "dlv_1"
                && at.millis() == NOW_MILLIS
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    store
        .expect_retry_delivery()
        .withf(|_, _, delivery, _| delivery.as_str() == "dlv_other")
        .times(1)
        .returning(|_, _, _, _| Ok(false));
    let replies = api(MANAGER)
        .webhook_store(store)
        .send_all(vec![
            call(
                Method::POST,
                &format!("{URI}/we_1/deliveries/dlv_1/retry"),
                None,
            ),
            call(
                Method::POST,
                &format!("{URI}/we_1/deliveries/dlv_other/retry"),
                None,
            ),
            call(
                Method::POST,
                &format!("{URI}/we_1/deliveries/a%20b/retry"),
                None,
            ),
            call(
                Method::POST,
                &format!("{URI}/a%20b/deliveries/dlv_1/retry"),
                None,
            ),
        ])
        .await;
    assert_eq!(
        replies[0].status,
        StatusCode::ACCEPTED,
        "{:?}",
        replies[0].body
    );
    assert_eq!(replies[0].json(), json!({"data": {"queued": 1}}));
    for reply in &replies[1..] {
        assert_eq!(reply.status, StatusCode::NOT_FOUND);
        assert_eq!(
            reply.json(),
            json!({"error": {"code": "NOT_FOUND", "message": "No delivery of this webhook endpoint has this id."}})
        );
    }
}

#[actix_web::test]
async fn a_recovery_queues_what_changed_since_and_says_how_much() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_recover()
        .withf(|shop, id, since, now| {
            of_shop_1(shop)
                && id.as_str() == "we_1"
                && *since == at("2026-11-21T08:30:00Z")
                && now.millis() == NOW_MILLIS
        })
        .times(1)
        .returning(|_, _, _, _| Ok(Some(3)));
    store
        .expect_recover()
        .withf(|_, id, _, _| id.as_str() == "we_other")
        .times(1)
        .returning(|_, _, _, _| Ok(None));
    let recover = |id: &str, body: &str| post(&format!("{URI}/{id}/recover"), body);
    let replies = api(MANAGER)
        .webhook_store(store)
        .send_all(vec![
            recover("we_1", r#"{"since": "2026-11-21T09:30:00+01:00"}"#),
            recover("we_other", r#"{"since": "2026-11-21"}"#),
            recover("we_1", r#"{"since": "last week"}"#),
            recover("we_1", r#"{"from": "2026-11-21"}"#),
        ])
        .await;
    assert_eq!(
        replies[0].status,
        StatusCode::ACCEPTED,
        "{:?}",
        replies[0].body
    );
    assert_eq!(replies[0].json(), json!({"data": {"queued": 3}}));
    replies[1].error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(replies[2].detail_fields(), ["since"]);
    assert_eq!(replies[3].detail_fields(), ["from", "since"]);
}

/// Bodies as the outbox stored them: key order, escapes and number spellings that a parse
/// and re-serialization would change.
const BODIES: [&str; 2] = [
    r#"{"id":"evt_1","type":"order.created","timestamp":"2026-11-21T09:30:00.000Z","data":{"z":1.50,"a":"caf\u00e9 \/ ok"}}"#,
    r#"{"id":"evt_2","type":"order.updated","timestamp":"2026-11-21T09:31:00.000Z","data":{"id":"o1","totalCents":1e3}}"#,
];

fn logged(position: i64) -> LoggedEvent {
    let index = usize::try_from(position - 1).unwrap();
    LoggedEvent {
        position,
        id: EventId::parse(format!("evt_{position}")).unwrap(),
        event_type: EventType::OrderCreated,
        created_at: Timestamp::from_millis(NOW_MILLIS),
        body: BODIES[index].to_owned(),
    }
}

#[actix_web::test]
async fn events_embed_their_stored_bodies_verbatim() {
    let mut log = MockEventLog::new();
    log.expect_list_events()
        .withf(|shop, query| {
            of_shop_1(shop)
                // Only what the key reads: orders, not products.
                && query.types == [EventType::OrderCreated, EventType::OrderUpdated]
                && query.since.is_none()
                && query.after.is_none()
                && query.limit == 21
        })
        .times(1)
        .returning(|_, _| Ok(vec![logged(1), logged(2)]));
    let reply = api("orders:read,webhooks:read")
        .event_log(log)
        .send(get("/api/v2/events"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let expected = format!(
        r#"{{"data":[{},{}],"pageInfo":{{"hasMore":false,"nextCursor":null,"limit":20,"syncedAt":null}}}}"#,
        BODIES[0], BODIES[1]
    );
    assert_eq!(String::from_utf8_lossy(&reply.body), expected);
}

#[actix_web::test]
async fn events_are_filtered_by_type_and_since_and_paged() {
    let mut log = MockEventLog::new();
    log.expect_list_events()
        .withf(|_, query| {
            query.types == [EventType::OrderCreated]
                && query.since == Some(at("2026-11-21T00:00:00Z"))
                && query.after.is_none()
                && query.limit == 2
        })
        .times(1)
        .returning(|_, _| Ok(vec![logged(1), logged(2)]));
    let first = api(MANAGER)
        .event_log(log)
        .send(get(
            "/api/v2/events?type=order.created&since=2026-11-21&limit=1",
        ))
        .await;
    let page = first.json();
    assert_eq!(
        page["data"],
        json!([serde_json::from_str::<serde_json::Value>(BODIES[0]).unwrap()])
    );
    assert_eq!(page["pageInfo"]["hasMore"], true);
    let cursor = page["pageInfo"]["nextCursor"].as_str().unwrap().to_owned();
    let mut log = MockEventLog::new();
    log.expect_list_events()
        .withf(|_, query| query.after == Some(1))
        .times(1)
        .returning(|_, _| Ok(vec![logged(2)]));
    let second = api(MANAGER)
        .event_log(log)
        .send(get(&format!(
            "/api/v2/events?type=order.created&cursor={cursor}"
        )))
        .await;
    assert_eq!(second.status, StatusCode::OK, "{:?}", second.body);
    for (query, fields) in [
        ("type=order.deleted", vec!["type"]),
        ("type=ping", vec!["type"]),
        (
            "since=yesterday&limit=500&status=x",
            vec!["status", "since", "limit"],
        ),
        ("cursor=garbled", vec!["cursor"]),
    ] {
        let reply = api(MANAGER)
            .send(get(&format!("/api/v2/events?{query}")))
            .await;
        assert_eq!(reply.detail_fields(), fields, "{query}");
    }
}

#[actix_web::test]
async fn a_stored_body_that_is_not_json_is_a_500() {
    let mut log = MockEventLog::new();
    log.expect_list_events().returning(|_, _| {
        Ok(vec![LoggedEvent {
            body: "{\"id\":".to_owned(),
            ..logged(1)
        }])
    });
    let reply = api(MANAGER)
        .event_log(log)
        .send(get("/api/v2/events"))
        .await;
    reply.error(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR");
}
