//! Webhooks (API v2, issue 34) end to end: the real server pushes to a real receiver on
//! loopback, on SQLite and PostgreSQL.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use shop_api_client::verify_webhook;
use shop_domain::webhook::NetworkPolicy;

use crate::fixtures::{sales, stock};
use crate::support::receiver::{Answer, Received, Receiver};
use crate::support::{Backend, Reply, TestApp, on_both_databases};

on_both_databases!(
    every_event_type_is_pushed_signed_and_each_resource_ends_on_its_latest_state,
    a_410_disables_the_endpoint_as_gone,
    fifty_quick_changes_reach_the_receiver_in_order_ending_on_the_last,
    a_refused_write_and_an_identical_reimport_emit_nothing,
    no_event_of_one_shop_reaches_another_and_scopes_are_checked,
    a_test_a_rotation_a_retry_and_a_recovery_do_what_they_say
);

const EVERY_SCOPE: &str = "products:read,orders:read,stock:read,stock:write,clients:read,\
                           loyalty:read,webhooks:read,webhooks:write";
const WAIT: Duration = Duration::from_secs(15);

/// Creates an endpoint; its id and secret.
async fn endpoint(app: &TestApp, key: &str, url: &str, events: &[&str]) -> (String, String) {
    let reply = post(
        app,
        key,
        "/api/v2/webhook-endpoints",
        &json!({"url": url, "events": events}),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    let data = &reply.json()["data"];
    (
        data["id"].as_str().unwrap().to_owned(),
        data["secret"].as_str().unwrap().to_owned(),
    )
}

async fn post(app: &TestApp, key: &str, path: &str, body: &Value) -> Reply {
    app.send(
        app.client()
            .post(app.url(path))
            .bearer_auth(key)
            .header("content-type", "application/json")
            .body(body.to_string()),
    )
    .await
}

async fn adjust(app: &TestApp, key: &str, variant: &str, quantity: i64) {
    let reply = app
        .adjust(
            key,
            &json!({"variantId": variant, "quantity": quantity, "reason": "test"}),
            None,
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text);
}

/// Every event of the shop's log, walking its pages.
pub(crate) async fn events(app: &TestApp, key: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut path = "/api/v2/events?limit=100".to_owned();
    loop {
        let reply = app.get(&path, key).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        let page = reply.json();
        all.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["pageInfo"]["nextCursor"].as_str() {
            Some(cursor) => path = format!("/api/v2/events?limit=100&cursor={cursor}"),
            None => return all,
        }
    }
}

/// The resource an event is about, as the outbox groups them.
fn resource(event: &Value) -> String {
    let kind = event["type"]
        .as_str()
        .unwrap()
        .split('.')
        .next()
        .unwrap()
        .to_owned();
    let data = &event["data"];
    let id = if kind == "stock" {
        &data["variantId"]
    } else {
        &data["id"]
    };
    format!("{kind}:{}", id.as_str().unwrap())
}

/// Checks what a receiver holds: each request signed with `secret` as Standard Webhooks
/// says, its `webhook-id` its body's id.
fn verified(received: &[Received], secret: &str) -> Vec<Value> {
    received
        .iter()
        .map(|request| {
            let verified = verify_webhook(&[secret], &request.headers, &request.body)
                .unwrap_or_else(|e| panic!("a delivery that does not verify: {e}"));
            assert_eq!(request.header("content-type"), "application/json");
            let body = request.json();
            assert_eq!(body["id"], verified.id.as_str());
            body
        })
        .collect()
}

/// The newest state the receiver was sent of each resource.
fn latest(bodies: &[Value]) -> HashMap<String, Value> {
    bodies
        .iter()
        .map(|body| (resource(body), body.clone()))
        .collect()
}

async fn every_event_type_is_pushed_signed_and_each_resource_ends_on_its_latest_state(
    app: TestApp,
) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", EVERY_SCOPE).await;
    let receiver = Receiver::start().await;
    let (_, secret) = endpoint(&app, &key, &receiver.url("/hook"), &["*"]).await;

    app.import("atelier", &sales()).await;
    app.import("atelier", &stock()).await;
    adjust(&app, &key, "v_ok", -1).await;
    let mut changed = sales();
    changed["clients"][1]["name"] = json!("Lucas Martin-Roy");
    changed["clients"][1]["updatedAt"] = json!("2026-06-01T00:00:00.000Z");
    changed["orders"][1]["status"] = json!("completed");
    changed["orders"][1]["updatedAt"] = json!("2026-06-01T00:00:00.000Z");
    app.import("atelier", &changed).await;

    let log = events(&app, &key).await;
    let types: std::collections::BTreeSet<&str> =
        log.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for kind in [
        "product.created",
        "product.updated",
        "order.created",
        "order.updated",
        "client.created",
        "client.updated",
        "stock.updated",
    ] {
        assert!(types.contains(kind), "no {kind} in the log: {types:?}");
    }
    let adjustment = log
        .iter()
        .find(|e| e["type"] == "stock.updated" && e["data"]["cause"]["kind"] == "adjustment")
        .expect("the adjustment's stock.updated");
    assert_eq!(adjustment["data"]["variantId"], "v_ok");
    assert_eq!(adjustment["data"]["stock"], 9);
    assert_eq!(adjustment["data"]["cause"]["delta"], -1);
    assert_eq!(adjustment["data"]["cause"]["reason"], "test");

    // Each resource's newest logged state reaches the receiver, signed.
    let newest = latest(&log);
    let received = receiver
        .until(WAIT, |received| {
            let bodies: Vec<Value> = received.iter().map(Received::json).collect();
            let got = latest(&bodies);
            newest
                .iter()
                .all(|(resource, event)| got.get(resource) == Some(event))
        })
        .await;
    let bodies = verified(&received, &secret);
    assert!(received.iter().all(|r| r.path == "/hook"));
    // The push is the pull: each resource as its v1 GET shows it now.
    let got = latest(&bodies);
    for (resource, path) in [
        ("product:p_mug", "/api/v1/products/p_mug"),
        ("client:c2", "/api/v1/clients/c2"),
        ("order:o2", "/api/v1/orders/o2"),
    ] {
        let shown = app.get(path, &key).await.json()["data"].clone();
        assert_eq!(got[resource]["data"], shown, "{resource}");
    }
    let listed = app.get("/api/v1/stock?limit=100", &key).await.json();
    let entry = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["variantId"] == "v_ok")
        .unwrap()
        .clone();
    let mut pushed = got["stock:v_ok"]["data"].clone();
    pushed.as_object_mut().unwrap().remove("cause");
    assert_eq!(pushed, entry);
}

async fn a_410_disables_the_endpoint_as_gone(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", EVERY_SCOPE).await;
    let receiver = Receiver::start().await;
    receiver.answer([Answer::status(410)]);
    let (id, _) = endpoint(&app, &key, &receiver.url("/gone"), &["stock.updated"]).await;
    adjust(&app, &key, "v_ok", 1).await;
    receiver.until(WAIT, |r| r.len() == 1).await;
    let shown = wait_for(
        &app,
        &key,
        &format!("/api/v2/webhook-endpoints/{id}"),
        |e| e["data"]["status"] == "disabled",
    )
    .await;
    assert_eq!(shown["data"]["disabledReason"], "gone");
    adjust(&app, &key, "v_ok", 1).await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(
        receiver.received().len(),
        1,
        "a disabled endpoint is sent nothing"
    );
}

/// GETs `path` until `done` holds of its JSON.
async fn wait_for(app: &TestApp, key: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let reply = app.get(path, key).await;
        let body = reply.json();
        if done(&body) {
            return body;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{path}: {}",
            reply.text
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn fifty_quick_changes_reach_the_receiver_in_order_ending_on_the_last(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", EVERY_SCOPE).await;
    let receiver = Receiver::start().await;
    // The first attempt fails: that older event is retried only if nothing newer came.
    receiver.answer([Answer::status(500)]);
    let (_, secret) = endpoint(&app, &key, &receiver.url("/in"), &["stock.updated"]).await;
    for _ in 0..50 {
        adjust(&app, &key, "v_ok", 1).await;
    }
    let received = receiver
        .until(WAIT, |received| {
            received
                .last()
                .is_some_and(|r| r.json()["data"]["stock"] == 60 && received.len() > 1)
        })
        .await;
    let bodies = verified(&received, &secret);
    let stocks: Vec<i64> = bodies
        .iter()
        .map(|b| b["data"]["stock"].as_i64().unwrap())
        .collect();
    assert!(
        stocks.windows(2).all(|pair| pair[0] <= pair[1]),
        "an older state after a newer one: {stocks:?}"
    );
    assert_eq!(*stocks.last().unwrap(), 60);
    // Nothing more comes: the last state is the last word.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let after = receiver.received();
    assert_eq!(after.last().unwrap().json()["data"]["stock"], 60);
}

async fn a_refused_write_and_an_identical_reimport_emit_nothing(app: TestApp) {
    app.create_shop("atelier").await;
    app.create_shop("voisin").await;
    app.import("voisin", &json!({"products": [{"id": "p_theirs", "name": "x", "priceCents": 1, "taxRate": "20.00"}]}))
        .await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", EVERY_SCOPE).await;
    let receiver = Receiver::start().await;
    endpoint(&app, &key, &receiver.url("/in"), &["*"]).await;
    let before = events(&app, &key).await.len();
    // Identical re-import: nothing changed, nothing logged.
    app.import("atelier", &stock()).await;
    // A file naming another shop's product is refused whole, its own rows too.
    let mut refused = stock();
    refused["products"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "p_theirs", "name": "mine now", "priceCents": 1, "taxRate": "20.00"}));
    refused["products"][0]["name"] = json!("Renamed");
    assert!(app.try_import("atelier", &refused).await.is_err());
    // An adjustment refused (untracked variant) changes nothing.
    let reply = app
        .adjust(
            &key,
            &json!({"variantId": "v_free", "quantity": 1, "reason": "x"}),
            None,
        )
        .await;
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert_eq!(events(&app, &key).await.len(), before);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(
        receiver.received().is_empty(),
        "nothing was changed, nothing is pushed"
    );
}

async fn no_event_of_one_shop_reaches_another_and_scopes_are_checked(app: TestApp) {
    app.create_shop("atelier").await;
    app.create_shop("voisin").await;
    let key_a = app.create_key("atelier", EVERY_SCOPE).await;
    let key_b = app.create_key("voisin", EVERY_SCOPE).await;
    let receiver_a = Receiver::start().await;
    let receiver_b = Receiver::start().await;
    let (id_a, _) = endpoint(&app, &key_a, &receiver_a.url("/a"), &["*"]).await;
    endpoint(&app, &key_b, &receiver_b.url("/b"), &["*"]).await;

    app.import("atelier", &stock()).await;
    adjust(&app, &key_a, "v_ok", 1).await;
    receiver_a
        .until(WAIT, |r| {
            r.iter().any(|r| r.json()["type"] == "stock.updated")
        })
        .await;
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert!(
        receiver_b.received().is_empty(),
        "shop B was sent shop A's events"
    );
    assert!(events(&app, &key_b).await.is_empty());
    let theirs = app
        .get(&format!("/api/v2/webhook-endpoints/{id_a}"), &key_b)
        .await;
    assert_eq!(theirs.status, 404, "{}", theirs.text);

    // A type whose resource the key cannot read.
    let stock_only = app.create_key("atelier", "stock:read,webhooks:write").await;
    let refused = post(
        &app,
        &stock_only,
        "/api/v2/webhook-endpoints",
        &json!({"url": receiver_a.url("/x"), "events": ["order.created"]}),
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    assert_eq!(refused.error_code(), "INSUFFICIENT_SCOPE");
    // Reading webhooks does not let one create them.
    let reader = app.create_key("atelier", "stock:read,webhooks:read").await;
    let refused = post(
        &app,
        &reader,
        "/api/v2/webhook-endpoints",
        &json!({"url": receiver_a.url("/x"), "events": ["stock.updated"]}),
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    // v1 has no webhooks.
    assert_eq!(
        app.get("/api/v1/webhook-endpoints", &key_a).await.status,
        404
    );
    assert_eq!(app.get("/api/v1/events", &key_a).await.status, 404);
}

/// Retries (SQLite and PostgreSQL): the same `webhook-id` at every attempt, the configured
/// waits, a `Retry-After` honoured as a floor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_keep_the_webhook_id_follow_the_schedule_and_honour_retry_after() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let settings = TestApp::test_webhooks("300ms,300ms,300ms");
        let Some(app) = TestApp::start_with_webhooks(backend, settings).await else {
            continue;
        };
        app.create_shop("atelier").await;
        app.import("atelier", &stock()).await;
        let key = app.create_key("atelier", EVERY_SCOPE).await;
        let receiver = Receiver::start().await;
        receiver.answer([
            Answer::status(500),
            Answer::status(429).with_header("retry-after", "2"),
            Answer::status(204),
        ]);
        let (id, secret) = endpoint(&app, &key, &receiver.url("/in"), &["stock.updated"]).await;
        adjust(&app, &key, "v_ok", 1).await;
        let received = receiver.until(WAIT, |r| r.len() == 3).await;
        verified(&received, &secret);
        let ids: Vec<&str> = received.iter().map(|r| r.header("webhook-id")).collect();
        assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
        let first_wait = received[1].at - received[0].at;
        let second_wait = received[2].at - received[1].at;
        assert!(first_wait >= Duration::from_millis(300), "{first_wait:?}");
        assert!(
            first_wait < Duration::from_millis(900),
            "late: {first_wait:?}"
        );
        assert!(
            second_wait >= Duration::from_secs(2),
            "Retry-After: 2 was not honoured: {second_wait:?}"
        );
        let deliveries = wait_for(
            &app,
            &key,
            &format!("/api/v2/webhook-endpoints/{id}/deliveries"),
            |page| {
                page["data"]
                    .as_array()
                    .is_some_and(|rows| rows.iter().any(|r| r["status"] == "succeeded"))
            },
        )
        .await;
        let rows: Vec<(i64, String, i64)> = deliveries["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["attempt"].as_i64().unwrap_or(0),
                    r["status"].as_str().unwrap().to_owned(),
                    r["responseStatus"].as_i64().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                (3, "succeeded".to_owned(), 204),
                (2, "failed".to_owned(), 429),
                (1, "failed".to_owned(), 500),
            ],
            "{backend:?}"
        );
    }
}

/// The address rules with the production policy: hostile URLs refused at creation, and a
/// name that resolves to the shop's own network refused at the attempt, before any
/// connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shops_own_network_is_never_reached() {
    let mut settings = TestApp::test_webhooks("200ms");
    settings.policy = NetworkPolicy::PublicOnly;
    let app = TestApp::start_with_webhooks(Backend::Sqlite, settings)
        .await
        .expect("SQLite");
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", EVERY_SCOPE).await;
    let hostile = [
        "http://hooks.example.com/in",
        "https://127.0.0.1/",
        "https://127.1.2.3:8443/x",
        "https://10.0.0.1/",
        "https://172.16.5.4/",
        "https://192.168.1.10/",
        "https://169.254.169.254/latest/meta-data/",
        "https://100.64.0.1/",
        "https://100.100.100.200/",
        "https://0.0.0.0/",
        "https://224.0.0.1/",
        "https://[::1]/",
        "https://[::]/",
        "https://[fd12:3456::1]/",
        "https://[fe80::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:10.0.0.1]/",
        "https://2130706433/",
        "https://0x7f000001/",
        "https://0177.0.0.1/",
        "https://localhost/",
        "https://localhost./",
        "https://user:secret@hooks.example.com/",
        "https://hooks.example.com/in#fragment",
        "ftp://hooks.example.com/",
        "/relative/path",
    ];
    assert!(hostile.len() >= 20);
    for url in hostile {
        let reply = post(
            &app,
            &key,
            "/api/v2/webhook-endpoints",
            &json!({"url": url, "events": ["stock.updated"]}),
        )
        .await;
        assert_eq!(reply.status, 400, "{url}: {}", reply.text);
        assert_eq!(reply.error_code(), "VALIDATION_ERROR", "{url}");
        assert_eq!(reply.detail_fields(), vec!["url".to_owned()], "{url}");
    }

    // This machine's own name: accepted at creation (a name, not an address), and found at
    // the attempt to resolve only to the machine's own network.
    let host = std::fs::read_to_string("/etc/hostname")
        .unwrap()
        .trim()
        .to_owned();
    let listener = Receiver::start().await;
    let addresses: Vec<std::net::SocketAddr> =
        tokio::net::lookup_host((host.as_str(), listener.addr.port()))
            .await
            .unwrap()
            .collect();
    assert!(
        !addresses.is_empty()
            && addresses
                .iter()
                .all(|a| shop_domain::webhook::forbidden_reason(a.ip()).is_some()),
        "this test needs the machine's name to resolve to its own network: {addresses:?}"
    );
    let url = format!("https://{host}:{}/hook", listener.addr.port());
    let (id, _) = endpoint(&app, &key, &url, &["stock.updated"]).await;
    adjust(&app, &key, "v_ok", 1).await;
    let deliveries = wait_for(
        &app,
        &key,
        &format!("/api/v2/webhook-endpoints/{id}/deliveries?status=failed"),
        |page| page["data"].as_array().is_some_and(|rows| !rows.is_empty()),
    )
    .await;
    let error = deliveries["data"][0]["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("refused"), "{error}");
    assert_eq!(
        listener.connections(),
        0,
        "a refused address was connected to"
    );
}

async fn a_test_a_rotation_a_retry_and_a_recovery_do_what_they_say(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", EVERY_SCOPE).await;
    let receiver = Receiver::start().await;
    let (id, old_secret) = endpoint(&app, &key, &receiver.url("/in"), &["stock.updated"]).await;
    let base = format!("/api/v2/webhook-endpoints/{id}");

    // A test: a signed ping to this endpoint.
    let test = post(&app, &key, &format!("{base}/test"), &json!({})).await;
    assert_eq!(test.status, 202, "{}", test.text);
    let received = receiver.until(WAIT, |r| r.len() == 1).await;
    let ping = &verified(&received, &old_secret)[0];
    assert_eq!(ping["type"], "ping");
    assert_eq!(ping["id"], test.json()["data"]["eventId"]);

    // A rotation: for a day, both secrets sign, the new one first.
    let rotated = post(&app, &key, &format!("{base}/secret/rotate"), &json!({})).await;
    assert_eq!(rotated.status, 200, "{}", rotated.text);
    let new_secret = rotated.json()["data"]["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(new_secret, old_secret);
    receiver.answer([
        Answer::status(500),
        Answer::status(500),
        Answer::status(500),
        Answer::status(500),
    ]);
    adjust(&app, &key, "v_ok", 1).await;
    // The schedule (200 ms, 400 ms, 800 ms) is spent after four attempts.
    let received = receiver.until(WAIT, |r| r.len() == 5).await;
    let last = &received[4];
    assert_eq!(last.header("webhook-signature").split(' ').count(), 2);
    verify_webhook(&[new_secret.as_str()], &last.headers, &last.body).unwrap();
    verify_webhook(&[old_secret.as_str()], &last.headers, &last.body).unwrap();
    let failed = wait_for(
        &app,
        &key,
        &format!("{base}/deliveries?status=failed"),
        |page| page["data"].as_array().is_some_and(|rows| rows.len() == 4),
    )
    .await;
    let delivery = failed["data"][0]["id"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        receiver.received().len(),
        5,
        "a spent schedule sends nothing more"
    );

    // A retry sends it again, with the same webhook-id.
    let retry = post(
        &app,
        &key,
        &format!("{base}/deliveries/{delivery}/retry"),
        &json!({}),
    )
    .await;
    assert_eq!(retry.status, 202, "{}", retry.text);
    let received = receiver.until(WAIT, |r| r.len() == 6).await;
    assert_eq!(
        received[5].header("webhook-id"),
        received[4].header("webhook-id")
    );

    // Disabled, it misses a change; recovery sends that resource's newest state and enables it.
    let off = app
        .send(
            app.client()
                .patch(app.url(&base))
                .bearer_auth(&key)
                .header("content-type", "application/json")
                .body(json!({"status": "disabled"}).to_string()),
        )
        .await;
    assert_eq!(off.status, 200, "{}", off.text);
    assert_eq!(off.json()["data"]["disabledReason"], "manual");
    let since = app.get("/api/v1/stock?limit=100", &key).await.json()["pageInfo"]["syncedAt"]
        .as_str()
        .map(str::to_owned);
    adjust(&app, &key, "v_low", 1).await;
    adjust(&app, &key, "v_low", 1).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        receiver.received().len(),
        6,
        "a disabled endpoint is sent nothing"
    );
    let since = since.unwrap_or_else(|| "2026-01-01T00:00:00Z".to_owned());
    let recover = post(
        &app,
        &key,
        &format!("{base}/recover"),
        &json!({"since": since}),
    )
    .await;
    assert_eq!(recover.status, 202, "{}", recover.text);
    assert!(
        recover.json()["data"]["queued"].as_i64().unwrap() >= 1,
        "{}",
        recover.text
    );
    let received = receiver
        .until(WAIT, |r| {
            r.iter()
                .any(|r| r.json()["data"]["variantId"] == "v_low" && r.json()["data"]["stock"] == 4)
        })
        .await;
    let v_low: Vec<i64> = received
        .iter()
        .filter(|r| r.json()["data"]["variantId"] == "v_low")
        .map(|r| r.json()["data"]["stock"].as_i64().unwrap())
        .collect();
    assert_eq!(v_low, vec![4], "only the newest state is recovered");
    let shown = app.get(&base, &key).await.json();
    assert_eq!(shown["data"]["status"], "enabled");
}
