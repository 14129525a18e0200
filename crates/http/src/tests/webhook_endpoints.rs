//! `/api/v2/webhook-endpoints` and `/{id}` (API v2, issue 34): creation, reads, changes,
//! deletion, rotation and tests. A store left without expectations panics when called (a
//! 500), so every refused request below is also shown not to reach storage.

use std::collections::BTreeSet;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::test::TestRequest;
use serde_json::{Value, json};
use shop_domain::Timestamp;
use shop_domain::id::{ShopId, WebhookEndpointId};
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::{
    DisabledReason, EndpointStatus, EndpointUrl, EventSelection, EventType, NetworkPolicy,
    WebhookEndpoint, WebhookSecret,
};
use shop_ports::StoreError;
use shop_ports::port::{EndpointCreation, MockWebhookEndpointStore, NewEndpoint};

use super::{NEW_ID, NOW_MILLIS, TestApi, key, shop};

pub const URI: &str = "/api/v2/webhook-endpoints";
/// A key that may manage endpoints for every resource it reads.
pub const MANAGER: &str = "products:read,orders:read,stock:read,clients:read,loyalty:read,\
                           webhooks:read,webhooks:write";
const VALID: &str = r#"{"url": "https://ERP.example.com:443/hooks", "events": ["order.updated", "order.created"], "description": "ERP orders"}"#;

/// The endpoint's keys in every answer but the creation's.
pub const ENDPOINT_KEYS: [&str; 8] = [
    "id",
    "url",
    "events",
    "description",
    "status",
    "disabledReason",
    "createdAt",
    "updatedAt",
];

pub fn api(scopes: &str) -> TestApi {
    TestApi::with_key(shop(), scopes)
}

/// A request with `key()` and, when `body` is given, that body as JSON.
pub fn call(method: Method, uri: &str, body: Option<&str>) -> TestRequest {
    let request = TestRequest::default()
        .method(method)
        .uri(uri)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())));
    match body {
        Some(body) => request
            .insert_header(header::ContentType::json())
            .set_payload(body.to_owned()),
        None => request,
    }
}

pub fn post(uri: &str, body: &str) -> TestRequest {
    call(Method::POST, uri, Some(body))
}

pub fn patch(uri: &str, body: &str) -> TestRequest {
    call(Method::PATCH, uri, Some(body))
}

pub fn endpoint(id: &str) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId::parse(id).unwrap(),
        url: EndpointUrl::parse("https://erp.example.com/hooks", NetworkPolicy::PublicOnly)
            .unwrap(),
        events: EventSelection::parse(["order.created", "order.updated"]).unwrap(),
        description: "ERP orders".into(),
        status: EndpointStatus::Enabled,
        created_at: Timestamp::parse_rfc3339("2026-11-21T09:30:00Z").unwrap(),
        updated_at: Timestamp::parse_rfc3339("2026-11-22T10:00:00.123Z").unwrap(),
        health: Default::default(),
    }
}

fn endpoint_json(id: &str) -> Value {
    json!({
        "id": id,
        "url": "https://erp.example.com/hooks",
        "events": ["order.created", "order.updated"],
        "description": "ERP orders",
        "status": "enabled",
        "disabledReason": null,
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-22T10:00:00.123Z"
    })
}

/// The secret of the mocked randomness (32 bytes of 0x5e).
fn expected_secret() -> String {
    WebhookSecret::from_random_bytes([0x5e; 32]).expose()
}

fn of_shop_1(shop: &ShopId) -> bool {
    shop.as_str() == "shop_1"
}

fn is(id: &WebhookEndpointId, expected: &str) -> bool {
    id.as_str() == expected
}

#[actix_web::test]
async fn a_creation_is_a_201_holding_the_secret_that_no_read_shows() {
    let mut store = MockWebhookEndpointStore::new();
    let expected = |new: &NewEndpoint| {
        of_shop_1(&new.shop)
            && new.id.as_str() == format!("we_{NEW_ID}")
            && new.url.as_str() == "https://erp.example.com/hooks"
            && new.events.names() == ["order.created", "order.updated"]
            && new.receives == [EventType::OrderCreated, EventType::OrderUpdated]
            && new.creator_scopes == ScopeSet::parse_list(MANAGER).unwrap()
            && new.description == "ERP orders"
            && new.secret.expose() == expected_secret()
            && new.at.millis() == NOW_MILLIS
    };
    store
        .expect_create_endpoint()
        .withf(expected)
        .times(1)
        .returning(|new| {
            Ok(EndpointCreation::Created(Box::new(WebhookEndpoint {
                id: new.id.clone(),
                url: new.url.clone(),
                events: new.events.clone(),
                description: new.description.clone(),
                status: EndpointStatus::Enabled,
                created_at: new.at,
                updated_at: new.at,
                health: Default::default(),
            })))
        });
    let created_id = format!("we_{NEW_ID}");
    let listed = created_id.clone();
    store
        .expect_get_endpoint()
        .withf(|shop, _| of_shop_1(shop))
        .returning(move |_, id| Ok(Some(endpoint(id.as_str()))));
    store
        .expect_list_endpoints()
        .withf(|shop, after, limit| of_shop_1(shop) && after.is_none() && *limit == 21)
        .returning(move |_, _, _| Ok(vec![endpoint(&listed)]));
    let replies = api(MANAGER)
        .webhook_store(store)
        .send_all(vec![
            post(URI, VALID),
            super::get(&format!("{URI}/{created_id}")),
            super::get(URI),
        ])
        .await;
    let [created, shown, list] = &replies[..] else {
        panic!("one reply per request");
    };
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.body);
    let data = created.json()["data"].clone();
    let mut keys: BTreeSet<&str> = ENDPOINT_KEYS.into_iter().collect();
    keys.insert("secret");
    assert_eq!(super::keys(&data), keys);
    assert_eq!(data["secret"], expected_secret());
    assert!(expected_secret().starts_with("whsec_"));
    assert_eq!(data["id"], created_id);
    assert_eq!(data["url"], "https://erp.example.com/hooks");
    assert_eq!(data["events"], json!(["order.created", "order.updated"]));
    assert_eq!(
        (&data["status"], &data["disabledReason"]),
        (&json!("enabled"), &Value::Null)
    );
    assert_eq!(data["createdAt"], "2023-11-14T22:13:20.000Z");

    assert_eq!(shown.status, StatusCode::OK);
    assert_eq!(shown.json(), json!({"data": endpoint_json(&created_id)}));
    assert_eq!(list.status, StatusCode::OK);
    let page = list.json();
    assert_eq!(page["data"], json!([endpoint_json(&created_id)]));
    assert_eq!(
        page["pageInfo"],
        json!({"hasMore": false, "nextCursor": null, "limit": 20, "syncedAt": null})
    );
    for read in [shown, list] {
        assert!(!String::from_utf8_lossy(&read.body).contains("whsec_"));
    }
}

#[actix_web::test]
async fn each_invalid_field_is_a_400_naming_it() {
    let long = "d".repeat(501);
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            r#"{"url": "http://erp.example.com/h", "events": ["order.created"]}"#.into(),
            vec!["url"],
        ),
        (
            r#"{"url": "https://10.0.0.7/h", "events": ["order.created"]}"#.into(),
            vec!["url"],
        ),
        (
            r#"{"url": "https://erp.example.com/h", "events": []}"#.into(),
            vec!["events"],
        ),
        (
            r#"{"url": "https://erp.example.com/h", "events": ["order.deleted"]}"#.into(),
            vec!["events"],
        ),
        (
            r#"{"url": "https://erp.example.com/h", "events": ["*", "order.created"]}"#.into(),
            vec!["events"],
        ),
        (
            r#"{"url": "https://erp.example.com/h", "events": ["ping"]}"#.into(),
            vec!["events"],
        ),
        (
            format!(
                r#"{{"url": "https://erp.example.com/h", "events": ["*"], "description": "{long}"}}"#
            ),
            vec!["description"],
        ),
        ("{}".into(), vec!["url", "events"]),
        (
            r#"{"url": 5, "events": "order.created", "description": 1}"#.into(),
            vec!["url", "events", "description"],
        ),
        ("[]".into(), vec!["body"]),
    ];
    for (body, fields) in cases {
        let reply = api(MANAGER).send(post(URI, &body)).await;
        assert_eq!(reply.detail_fields(), fields, "{body}");
        let error = reply.json()["error"].clone();
        assert_eq!(error["message"], "The request body is invalid.", "{body}");
    }
    let reply = api(MANAGER)
        .send(post(
            URI,
            r#"{"url": "https://erp.example.com/h", "events": ["*", "x"]}"#,
        ))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        error["details"],
        json!([{"field": "events", "message": "`*` stands for every type and cannot be listed with others"}])
    );
}

#[actix_web::test]
async fn a_patch_refuses_unknown_and_mistyped_members_by_name() {
    for (body, fields) in [
        (
            r#"{"secret": "whsec_x", "status": "disabled"}"#,
            vec!["secret"],
        ),
        (r#"{"status": "paused"}"#, vec!["status"]),
        (r#"{"url": null, "events": null}"#, vec!["url", "events"]),
        (r#"{"description": 7}"#, vec!["description"]),
        (
            r#"{"status": "enabled", "status": "disabled"}"#,
            vec!["status"],
        ),
    ] {
        let reply = api(MANAGER).send(patch(&format!("{URI}/we_1"), body)).await;
        assert_eq!(reply.detail_fields(), fields, "{body}");
    }
}

#[actix_web::test]
async fn a_patch_changes_only_the_members_it_names() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_update_endpoint()
        .withf(|shop, id, change, at| {
            of_shop_1(shop)
                && is(id, "we_1")
                && change.url.is_none()
                && change.events.is_none()
                && change.description.as_deref() == Some("")
                && change.enabled == Some(false)
                && at.millis() == NOW_MILLIS
        })
        .times(1)
        .returning(|_, _, _, _| {
            Ok(Some(WebhookEndpoint {
                description: String::new(),
                status: EndpointStatus::Disabled(DisabledReason::Manual),
                ..endpoint("we_1")
            }))
        });
    store
        .expect_update_endpoint()
        .withf(|_, _, change, _| {
            change.url.as_ref().map(EndpointUrl::as_str) == Some("https://erp.example.com/v2")
                && change.events.as_ref().is_some_and(|(events, receives)| {
                    *events == EventSelection::Every
                        && receives.len() == EventType::SUBSCRIBABLE.len()
                })
                && change.description.as_deref() == Some("new")
                && change.enabled == Some(true)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(Some(endpoint("we_1"))));
    let replies = api(MANAGER)
        .webhook_store(store)
        .send_all(vec![
            patch(
                &format!("{URI}/we_1"),
                r#"{"description": null, "status": "disabled"}"#,
            ),
            patch(
                &format!("{URI}/we_1"),
                r#"{"url": "https://erp.example.com/v2", "events": ["*"], "description": "new", "status": "enabled"}"#,
            ),
        ])
        .await;
    assert_eq!(replies[0].status, StatusCode::OK, "{:?}", replies[0].body);
    let data = replies[0].json()["data"].clone();
    assert_eq!(data["description"], Value::Null);
    assert_eq!(data["status"], "disabled");
    assert_eq!(data["disabledReason"], "manual");
    assert_eq!(super::keys(&data), ENDPOINT_KEYS.into_iter().collect());
    assert_eq!(replies[1].status, StatusCode::OK, "{:?}", replies[1].body);
}

#[actix_web::test]
async fn a_type_the_key_cannot_read_is_a_403_naming_it() {
    let scopes = "products:read,webhooks:read,webhooks:write";
    let body =
        r#"{"url": "https://erp.example.com/h", "events": ["order.created", "product.updated"]}"#;
    let replies = api(scopes)
        .send_all(vec![post(URI, body), patch(&format!("{URI}/we_1"), body)])
        .await;
    for reply in &replies {
        let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            error["message"],
            "This API key cannot receive order.created: it lacks orders:read."
        );
    }
}

#[actix_web::test]
async fn the_17th_endpoint_is_a_422() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_create_endpoint()
        .times(1)
        .returning(|_| Ok(EndpointCreation::LimitReached));
    let reply = api(MANAGER)
        .webhook_store(store)
        .send(post(URI, VALID))
        .await;
    let error = reply.error(StatusCode::UNPROCESSABLE_ENTITY, "WEBHOOK_ENDPOINT_LIMIT");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|text| text.contains("16"))
    );
}

#[actix_web::test]
async fn a_read_key_cannot_change_anything_and_a_write_key_cannot_read() {
    let reader = "orders:read,webhooks:read";
    let endpoint = format!("{URI}/we_1");
    let writes = vec![
        post(URI, VALID),
        patch(&endpoint, r#"{"status": "disabled"}"#),
        call(Method::DELETE, &endpoint, None),
        call(Method::POST, &format!("{endpoint}/secret/rotate"), None),
        call(Method::POST, &format!("{endpoint}/test"), None),
        call(
            Method::POST,
            &format!("{endpoint}/deliveries/dlv_1/retry"),
            None,
        ),
        post(&format!("{endpoint}/recover"), r#"{"since": "2026-11-21"}"#),
    ];
    for reply in api(reader).send_all(writes).await {
        let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            error["message"],
            "This API key lacks the scope webhooks:write."
        );
    }
    let reads = vec![
        super::get(URI),
        super::get(&endpoint),
        super::get(&format!("{endpoint}/deliveries")),
        super::get("/api/v2/events"),
    ];
    for reply in api("orders:read,webhooks:write").send_all(reads).await {
        let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            error["message"],
            "This API key lacks the scope webhooks:read."
        );
    }
}

#[actix_web::test]
async fn v1_has_none_of_these_paths() {
    let requests = vec![
        super::get("/api/v1/webhook-endpoints"),
        post("/api/v1/webhook-endpoints", VALID),
        super::get("/api/v1/webhook-endpoints/we_1"),
        super::get("/api/v1/webhook-endpoints/we_1/deliveries"),
        super::get("/api/v1/events"),
    ];
    for reply in api(MANAGER).send_all(requests).await {
        let error = reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(error["message"], "No resource at this path.");
    }
}

#[actix_web::test]
async fn another_shops_endpoint_is_the_404_of_an_unknown_one() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_get_endpoint()
        .withf(|shop, id| of_shop_1(shop) && is(id, "we_other"))
        .times(1)
        .returning(|_, _| Ok(None));
    store
        .expect_update_endpoint()
        .withf(|shop, id, _, _| of_shop_1(shop) && is(id, "we_other"))
        .times(1)
        .returning(|_, _, _, _| Ok(None));
    store
        .expect_delete_endpoint()
        .withf(|shop, id| of_shop_1(shop) && is(id, "we_other"))
        .times(1)
        .returning(|_, _| Ok(false));
    store
        .expect_rotate_secret()
        .withf(|shop, id, _, _, _| of_shop_1(shop) && is(id, "we_other"))
        .times(1)
        .returning(|_, _, _, _, _| Ok(false));
    store
        .expect_enqueue_ping()
        .withf(|shop, id, _| of_shop_1(shop) && is(id, "we_other"))
        .times(1)
        .returning(|_, _, _| Ok(false));
    let other = format!("{URI}/we_other");
    // An id that cannot exist never reaches the store, and answers the same.
    let impossible = format!("{URI}/a%20b");
    let requests = vec![
        super::get(&other),
        patch(&other, r#"{"status": "enabled"}"#),
        call(Method::DELETE, &other, None),
        call(Method::POST, &format!("{other}/secret/rotate"), None),
        call(Method::POST, &format!("{other}/test"), None),
        super::get(&impossible),
        patch(&impossible, "{}"),
        call(Method::DELETE, &impossible, None),
    ];
    for reply in api(MANAGER).webhook_store(store).send_all(requests).await {
        assert_eq!(reply.status, StatusCode::NOT_FOUND);
        assert_eq!(
            reply.json(),
            json!({"error": {"code": "NOT_FOUND", "message": "No webhook endpoint has this id."}})
        );
    }
}

#[actix_web::test]
async fn a_deletion_is_a_204_without_a_body() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_delete_endpoint()
        .withf(|shop, id| of_shop_1(shop) && is(id, "we_1"))
        .times(1)
        .returning(|_, _| Ok(true));
    let reply = api(MANAGER)
        .webhook_store(store)
        .send(call(Method::DELETE, &format!("{URI}/we_1"), None))
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    assert!(reply.body.is_empty());
    assert_eq!(
        reply.header("ratelimit-policy"),
        Some("\"writes\";q=30;w=60")
    );
}

#[actix_web::test]
async fn a_rotation_answers_the_new_whsec_secret_alone() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_rotate_secret()
        .withf(|shop, id, secret, previous_until, at| {
            of_shop_1(shop)
                && is(id, "we_1")
                && secret.expose() == expected_secret()
                && previous_until.millis() == NOW_MILLIS + 24 * 3600 * 1000
                && at.millis() == NOW_MILLIS
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    let reply = api(MANAGER)
        .webhook_store(store)
        .send(call(
            Method::POST,
            &format!("{URI}/we_1/secret/rotate"),
            None,
        ))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.json(), json!({"data": {"secret": expected_secret()}}));
    assert!(expected_secret().starts_with("whsec_"));
    assert_eq!(
        reply.header("ratelimit-policy"),
        Some("\"writes\";q=30;w=60")
    );
}

#[actix_web::test]
async fn a_test_is_a_202_naming_its_ping() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_enqueue_ping()
        .withf(|shop, id, event| {
            of_shop_1(shop)
                && is(id, "we_1")
                && event.event_type == EventType::Ping
                && event.at.millis() == NOW_MILLIS
        })
        .times(1)
        .returning(|_, _, _| Ok(true));
    let reply = api(MANAGER)
        .webhook_store(store)
        .send(call(Method::POST, &format!("{URI}/we_1/test"), None))
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{:?}", reply.body);
    assert_eq!(
        reply.json(),
        json!({"data": {"eventId": format!("evt_{NEW_ID}")}})
    );
}

#[actix_web::test]
async fn bodies_are_read_as_the_stock_adjustment_reads_them() {
    let endpoint = format!("{URI}/we_1");
    let text = TestRequest::post()
        .uri(URI)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static("text/plain")))
        .set_payload(VALID);
    let merge_patch = TestRequest::patch()
        .uri(&endpoint)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
        .insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/merge-patch+json"),
        ))
        .set_payload("{}");
    let oversized = format!(r#"{{"description": "{}"}}"#, "x".repeat(70 * 1024));
    let replies = api(MANAGER)
        .send_all(vec![
            text,
            merge_patch,
            post(URI, "{\"url\":"),
            patch(&endpoint, &oversized),
            post(&format!("{endpoint}/recover"), "not json"),
        ])
        .await;
    for reply in &replies[..2] {
        assert_eq!(reply.detail_fields(), ["Content-Type"]);
    }
    replies[2].error(StatusCode::BAD_REQUEST, "INVALID_JSON");
    replies[3].error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    replies[4].error(StatusCode::BAD_REQUEST, "INVALID_JSON");
}

#[actix_web::test]
async fn other_methods_are_405_with_allow() {
    let replies = api(MANAGER)
        .send_all(vec![
            call(Method::PUT, URI, Some(VALID)),
            call(Method::POST, &format!("{URI}/we_1"), Some(VALID)),
            call(Method::GET, &format!("{URI}/we_1/test"), None),
        ])
        .await;
    for (reply, allowed) in replies.iter().zip([
        &["GET", "HEAD", "POST"][..],
        &["GET", "HEAD", "PATCH", "DELETE"],
        &["POST"],
    ]) {
        reply.error(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
        let allow: BTreeSet<&str> = reply
            .header("allow")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .collect();
        assert_eq!(allow, allowed.iter().copied().collect(), "{allowed:?}");
    }
}

#[actix_web::test]
async fn the_list_pages_by_id_with_the_v1_rules() {
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_list_endpoints()
        .withf(|shop, after, limit| of_shop_1(shop) && after.is_none() && *limit == 3)
        .times(1)
        .returning(|_, _, _| Ok(vec![endpoint("we_1"), endpoint("we_2"), endpoint("we_3")]));
    let first = api(MANAGER)
        .webhook_store(store)
        .send(super::get(&format!("{URI}?limit=2")))
        .await;
    let page = first.json();
    assert_eq!(page["data"].as_array().map(Vec::len), Some(2));
    assert_eq!(page["pageInfo"]["hasMore"], true);
    let cursor = page["pageInfo"]["nextCursor"].as_str().unwrap().to_owned();
    let mut store = MockWebhookEndpointStore::new();
    store
        .expect_list_endpoints()
        .withf(|_, after, limit| {
            after.as_ref().map(WebhookEndpointId::as_str) == Some("we_2") && *limit == 3
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![endpoint("we_3")]));
    let second = api(MANAGER)
        .webhook_store(store)
        .send(super::get(&format!("{URI}?limit=2&cursor={cursor}")))
        .await;
    let page = second.json();
    assert_eq!(page["data"][0]["id"], "we_3");
    assert_eq!(page["pageInfo"]["hasMore"], false);
    for (query, fields) in [
        ("limit=0", vec!["limit"]),
        ("limit=101&x=1", vec!["x", "limit"]),
        ("cursor=garbled", vec!["cursor"]),
    ] {
        let reply = api(MANAGER)
            .send(super::get(&format!("{URI}?{query}")))
            .await;
        assert_eq!(reply.detail_fields(), fields, "{query}");
    }
}

#[actix_web::test]
async fn store_failures_are_503_and_500_without_their_cause() {
    for (error, status) in [
        (
            StoreError::Unavailable("pool timed out".into()),
            StatusCode::SERVICE_UNAVAILABLE,
        ),
        (
            StoreError::failure("SELECT secret FROM webhook_endpoints"),
            StatusCode::INTERNAL_SERVER_ERROR,
        ),
    ] {
        let mut store = MockWebhookEndpointStore::new();
        store
            .expect_get_endpoint()
            .return_once(move |_, _| Err(error));
        let reply = api(MANAGER)
            .webhook_store(store)
            .send(super::get(&format!("{URI}/we_1")))
            .await;
        assert_eq!(reply.status, status);
        assert!(!String::from_utf8_lossy(&reply.body).contains("SELECT"));
    }
}
