//! The typed client (`shop-api-client`) against the real server: paging through everything,
//! surviving 429s, idempotent adjustments, typed errors, and models that decode every
//! endpoint's real output.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use shop_api_client::{
    ApiError, Client, ClientQuery, Conditional, ErrorCode, OrderQuery, OrderSource, OrderStatus,
    ProductQuery, RetryEvent, RetryReason, StockQuery, new_idempotency_key,
};
use shop_app::services::ServiceSettings;
use shop_domain::rate_limit::RateBudget;
use shop_ports::usecase::RateLimits;

use crate::fixtures::{bare_product, products, sales, stock};
use crate::support::{Backend, TestApp, on_both_databases};

on_both_databases!(
    the_stream_pages_through_300_products_each_exactly_once,
    every_endpoint_decodes_into_the_typed_models,
    errors_carry_their_typed_code,
    the_v2_webhook_calls_manage_an_endpoint_and_read_the_event_log,
    points_are_adjusted_once_per_key_and_refusals_are_typed,
    a_conditional_read_returns_the_resource_only_when_it_changed,
);

fn client_of(app: &TestApp, key: &str) -> Client {
    Client::new(app.url(""), key).unwrap()
}

/// A client that records every retry it makes.
fn recording_client(app: &TestApp, key: &str) -> (Client, Arc<Mutex<Vec<RetryEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&events);
    let client = Client::builder(app.url(""), key)
        .on_retry(move |event| recorded.lock().unwrap().push(event.clone()))
        .build()
        .unwrap();
    (client, events)
}

async fn three_hundred_products(app: &TestApp) -> Vec<String> {
    app.create_shop("atelier").await;
    let ids: Vec<String> = (0..300).map(|n| format!("p_{n:04}")).collect();
    app.import(
        "atelier",
        &products(ids.iter().map(|id| bare_product(id, id)).collect()),
    )
    .await;
    ids
}

async fn the_stream_pages_through_300_products_each_exactly_once(app: TestApp) {
    let expected = three_hundred_products(&app).await;
    let key = app.create_key("atelier", "products:read").await;
    let client = client_of(&app, &key);

    let first = client
        .products(ProductQuery {
            limit: Some(7),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(first.data.len(), 7);
    assert_eq!(first.page_info.limit, 7);
    assert!(first.page_info.has_more);

    let streamed: Vec<String> = client
        .products_stream(ProductQuery {
            limit: Some(7),
            ..Default::default()
        })
        .map_ok(|product| product.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len(), 300, "each product once");
    assert_eq!(streamed, expected, "in id order, none repeated or skipped");

    // A stream resumes from a cursor.
    let resumed: Vec<String> = client
        .products_stream(ProductQuery {
            limit: Some(50),
            cursor: first.page_info.next_cursor,
            ..Default::default()
        })
        .map_ok(|product| product.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(resumed, expected[7..]);
}

/// Decoding the real server's output is the proof that the models match it.
async fn every_endpoint_decodes_into_the_typed_models(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &sales()).await;
    app.import("atelier", &stock()).await;
    let key = app
        .create_key(
            "atelier",
            "products:read,orders:read,clients:read,loyalty:read,stock:read,stock:write",
        )
        .await;
    let client = client_of(&app, &key);

    let me = client.me().await.unwrap();
    assert_eq!(me.shop.slug, "atelier");
    assert!(me.api_key.scopes.contains(&"stock:write".to_owned()));

    let mug = client.product("p_mug").await.unwrap();
    assert_eq!(mug.variants.len(), 4, "inactive variants included");
    assert_eq!(mug.stock_quantity, Some(17));
    let all_products: Vec<_> = client
        .products_stream(ProductQuery::default())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all_products.len(), 3);

    let orders: Vec<_> = client
        .orders_stream(OrderQuery {
            limit: Some(2),
            ..Default::default()
        })
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<&str> = orders.iter().map(|order| order.id.as_str()).collect();
    assert_eq!(ids, ["o5", "o4", "o3", "o2", "o1"], "newest first");
    let o3 = client.order("o3").await.unwrap();
    assert_eq!(
        (o3.source, o3.status, o3.items.len()),
        (OrderSource::ClickCollect, OrderStatus::Ready, 1)
    );
    let pending = client
        .orders(OrderQuery {
            status: Some(OrderStatus::Pending),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(pending.data.len(), 1);
    assert!(pending.data[0].paid_at.is_none());

    let clients: Vec<_> = client
        .clients_stream(ClientQuery {
            limit: Some(1),
            ..Default::default()
        })
        .try_collect()
        .await
        .unwrap();
    assert_eq!(clients.len(), 3);
    let marie = client.client("c1").await.unwrap();
    assert_eq!(marie.billing.country, "FR");
    assert!(marie.birth_date.is_some());

    let loyalty = client.loyalty("c1").await.unwrap();
    let current = loyalty.tier.current.unwrap();
    assert_eq!(current.name, "Argent");
    assert_eq!(loyalty.tier.next.unwrap().points_to_next, 1125);
    assert!((loyalty.tier.progress - 0.25).abs() < 1e-9);
    assert_eq!(loyalty.recent_lottery_tickets.len(), 10);
    assert_eq!(loyalty.recent_spins.len(), 10);

    let entries: Vec<_> = client
        .stock_stream(StockQuery {
            limit: Some(2),
            tracked_only: Some(false),
            ..Default::default()
        })
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<&str> = entries
        .iter()
        .map(|entry| entry.variant_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "v_blue", "v_free", "v_low", "v_off", "v_ok", "v_out", "v_red"
        ]
    );
    assert!(
        entries
            .iter()
            .all(|entry| entry.tracked == (entry.variant_id != "v_free"))
    );
    let low = client
        .stock(StockQuery {
            low_stock_only: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(low.data.iter().all(|entry| entry.is_low_stock));

    let outcome = client.adjust_stock("v_ok", -4, "casse").await.unwrap();
    assert_eq!(
        (
            outcome.adjustment.previous_stock,
            outcome.adjustment.new_stock
        ),
        (10, 6)
    );
    assert!(!outcome.replayed);
}

async fn errors_carry_their_typed_code(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    app.create_shop("voisin").await;
    app.import(
        "voisin",
        &products(vec![bare_product("p_voisin", "Voisin")]),
    )
    .await;
    let key = app.create_key("atelier", "products:read,stock:write").await;
    let client = client_of(&app, &key);

    for id in ["p_unknown", "p_voisin"] {
        match client.product(id).await {
            Err(ApiError::Api {
                status: 404,
                code: ErrorCode::NotFound,
                ..
            }) => {}
            other => panic!("{id}: {other:?}"),
        }
    }
    match client.orders(OrderQuery::default()).await {
        Err(ApiError::Api {
            status: 403,
            code: ErrorCode::InsufficientScope,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let error = client.loyalty("c1").await.unwrap_err();
    assert_eq!(
        (error.status(), error.code()),
        (Some(403), Some(&ErrorCode::InsufficientScope))
    );

    match client
        .products(ProductQuery {
            limit: Some(0),
            ..Default::default()
        })
        .await
    {
        Err(ApiError::Api {
            status: 400,
            code: ErrorCode::ValidationError,
            details,
            ..
        }) => assert_eq!(details[0].field, "limit"),
        other => panic!("{other:?}"),
    }
    let untracked = client.adjust_stock("v_free", 1, "réception").await;
    assert_eq!(
        untracked.unwrap_err().code(),
        Some(&ErrorCode::StockNotTracked)
    );
    let reused = new_idempotency_key();
    client
        .adjust_stock_with_key("v_ok", 1, "réception", &reused)
        .await
        .unwrap();
    let refused = client
        .adjust_stock_with_key("v_ok", 2, "réception", &reused)
        .await;
    assert_eq!(
        refused.unwrap_err().code(),
        Some(&ErrorCode::IdempotencyKeyReused)
    );

    let stranger = client_of(&app, "svc_live_00000000_0000");
    assert_eq!(
        stranger.me().await.unwrap_err().code(),
        Some(&ErrorCode::Unauthorized)
    );
}

/// A server whose budgets are tiny for `reads` or `writes` (a 2-second window), generous
/// otherwise. SQLite only: the limits do not touch the database.
async fn app_with_tight(reads: RateBudget, writes: RateBudget) -> TestApp {
    let generous = RateBudget {
        limit: 1_000_000,
        window_millis: 60_000,
    };
    let settings = ServiceSettings {
        rate_limits: RateLimits {
            reads,
            writes,
            auth_failures: generous,
            key_failures: generous,
        },
        ..ServiceSettings::default()
    };
    TestApp::start_with(Backend::Sqlite, settings)
        .await
        .expect("SQLite is always available")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_waits_out_429s_and_still_gets_every_product() {
    let five_reads = RateBudget {
        limit: 5,
        window_millis: 2_000,
    };
    let generous = RateBudget {
        limit: 1_000_000,
        window_millis: 60_000,
    };
    let app = app_with_tight(five_reads, generous).await;
    let expected = three_hundred_products(&app).await;
    let key = app.create_key("atelier", "products:read").await;
    let (client, events) = recording_client(&app, &key);

    let started = Instant::now();
    let streamed: Vec<String> = client
        .products_stream(ProductQuery {
            limit: Some(25),
            ..Default::default()
        })
        .map_ok(|product| product.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed, expected, "every product, once, despite the 429s");

    // 12 pages at 5 per 2 s: at least two waits on Retry-After, of at least a second each.
    let events = events.lock().unwrap().clone();
    assert!(events.len() >= 2, "{events:?}");
    for event in &events {
        assert_eq!(event.reason, RetryReason::RateLimited, "{event:?}");
        assert!(
            (Duration::from_secs(1)..=Duration::from_secs(2)).contains(&event.wait),
            "the server's Retry-After: {event:?}"
        );
        assert_eq!(event.path, "/api/v1/products");
    }
    assert!(started.elapsed() >= Duration::from_secs(2), "it waited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adjustment_retried_after_a_429_is_applied_once() {
    let generous = RateBudget {
        limit: 1_000_000,
        window_millis: 60_000,
    };
    let one_write = RateBudget {
        limit: 1,
        window_millis: 2_000,
    };
    let app = app_with_tight(generous, one_write).await;
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", "stock:read,stock:write").await;
    let (client, events) = recording_client(&app, &key);

    // The first call is applied and uses the whole write budget.
    let idempotency_key = new_idempotency_key();
    let first = client
        .adjust_stock_with_key("v_ok", 3, "réception", &idempotency_key)
        .await
        .unwrap();
    assert_eq!((first.adjustment.new_stock, first.replayed), (13, false));
    assert!(events.lock().unwrap().is_empty());

    // The same adjustment again (say, a caller that never saw the answer): 429, a wait, a
    // retry with the same key, and the first result replayed rather than a second change.
    let again = client
        .adjust_stock_with_key("v_ok", 3, "réception", &idempotency_key)
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.adjustment, first.adjustment, "the same movement");
    let retries = events.lock().unwrap().clone();
    assert!(!retries.is_empty(), "a 429 was waited out");
    assert!(retries.iter().all(|event| {
        event.reason == RetryReason::RateLimited
            && event.idempotency_key.as_deref() == Some(idempotency_key.as_str())
    }));

    // A new adjustment, refused with 429 then retried with its own generated key: once.
    events.lock().unwrap().clear();
    let second = client.adjust_stock("v_ok", 2, "réception").await.unwrap();
    assert!(!second.replayed);
    assert_ne!(second.idempotency_key, idempotency_key);
    assert_eq!(second.adjustment.new_stock, 15);
    let retries = events.lock().unwrap().clone();
    assert!(!retries.is_empty(), "a 429 was waited out");
    assert!(
        retries
            .iter()
            .all(|event| event.idempotency_key.as_deref() == Some(second.idempotency_key.as_str()))
    );

    let stock = client
        .stock(StockQuery {
            product_id: Some("p_mug".to_owned()),
            ..Default::default()
        })
        .await
        .unwrap();
    let v_ok = stock.data.iter().find(|entry| entry.variant_id == "v_ok");
    assert_eq!(
        v_ok.unwrap().stock,
        15,
        "10 + 3 + 2: each adjustment applied exactly once"
    );

    let no_retries = Client::builder(app.url(""), &key)
        .max_retries(0)
        .build()
        .unwrap();
    let error = no_retries
        .adjust_stock("v_ok", 1, "réception")
        .await
        .unwrap_err();
    match error {
        ApiError::RateLimited {
            retry_after: Some(wait),
            ..
        } => assert!(wait >= Duration::from_secs(1), "{wait:?}"),
        other => panic!("without retries the 429 is the typed error: {other:?}"),
    }
}

async fn the_v2_webhook_calls_manage_an_endpoint_and_read_the_event_log(app: TestApp) {
    use shop_api_client::{EventLogQuery, NewWebhookEndpoint, WebhookEndpointChange};

    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app
        .create_key(
            "atelier",
            "stock:read,stock:write,products:read,webhooks:read,webhooks:write",
        )
        .await;
    let client = client_of(&app, &key);
    let receiver = crate::support::receiver::Receiver::start().await;
    let created = client
        .create_webhook_endpoint(&NewWebhookEndpoint {
            url: receiver.url("/hook"),
            events: vec!["stock.updated".into()],
            description: Some("ERP".into()),
        })
        .await
        .unwrap();
    assert!(created.secret.starts_with("whsec_"));
    let id = created.endpoint.id.clone();
    assert_eq!(
        client.webhook_endpoint(&id).await.unwrap(),
        created.endpoint
    );
    assert_eq!(
        client.webhook_endpoints(None).await.unwrap().data,
        vec![created.endpoint.clone()]
    );

    let ping = client.send_webhook_test(&id).await.unwrap();
    let received = receiver
        .until(Duration::from_secs(15), |r| !r.is_empty())
        .await;
    let verified = shop_api_client::verify_webhook(
        &[created.secret.as_str()],
        &received[0].headers,
        &received[0].body,
    )
    .unwrap();
    assert_eq!(verified.id, ping);

    client.adjust_stock("v_ok", 2, "client test").await.unwrap();
    let events = client
        .events(&EventLogQuery {
            event_type: Some("stock.updated".into()),
            ..EventLogQuery::default()
        })
        .await
        .unwrap();
    let last: serde_json::Value = serde_json::from_str(events.data.last().unwrap().json()).unwrap();
    assert_eq!(last["data"]["stock"], 12);

    let disabled = client
        .update_webhook_endpoint(
            &id,
            &WebhookEndpointChange {
                status: Some("disabled".into()),
                ..WebhookEndpointChange::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(disabled.disabled_reason.as_deref(), Some("manual"));
    let rotated = client.rotate_webhook_secret(&id).await.unwrap();
    assert_ne!(rotated, created.secret);
    let deliveries = client.webhook_deliveries(&id, None, None).await.unwrap();
    assert!(!deliveries.data.is_empty());
    client.delete_webhook_endpoint(&id).await.unwrap();
    let gone = client.webhook_endpoint(&id).await.unwrap_err();
    assert_eq!(gone.code(), Some(&ErrorCode::NotFound));
}

async fn points_are_adjusted_once_per_key_and_refusals_are_typed(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &sales()).await;
    let key = app
        .create_key("atelier", "loyalty:write,loyalty:read")
        .await;
    let client = client_of(&app, &key);
    let credit = client.adjust_points("c1", 30, "web order 7").await.unwrap();
    assert_eq!(
        (
            credit.adjustment.previous_points,
            credit.adjustment.new_points,
            credit.replayed
        ),
        (120, 150, false)
    );
    let order_key = "web-order-8";
    let first = client
        .adjust_points_with_key("c1", 5, "web order 8", order_key)
        .await
        .unwrap();
    let again = client
        .adjust_points_with_key("c1", 5, "web order 8", order_key)
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.adjustment, first.adjustment);
    assert_eq!(client.loyalty("c1").await.unwrap().points, 155);
    let refused = client.adjust_points("c1", -1_000, "too much").await;
    assert_eq!(
        refused.unwrap_err().code(),
        Some(&ErrorCode::InsufficientPoints)
    );
}

async fn a_conditional_read_returns_the_resource_only_when_it_changed(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &sales()).await;
    let key = app
        .create_key("atelier", "clients:read,loyalty:write,products:read")
        .await;
    let client = client_of(&app, &key);
    let Conditional::Modified { etag, .. } =
        client.product_if_changed("p_sale", None).await.unwrap()
    else {
        panic!("a read without a tag returns the product");
    };
    let held = etag.expect("v2 tags a product");
    assert_eq!(
        client
            .product_if_changed("p_sale", Some(&held))
            .await
            .unwrap(),
        Conditional::NotModified
    );
    let Conditional::Modified { data, etag } = client.client_if_changed("c1", None).await.unwrap()
    else {
        panic!("a read without a tag returns the client");
    };
    assert_eq!(data.id, "c1");
    let etag = etag.expect("v2 tags a client");
    assert_eq!(
        client.client_if_changed("c1", Some(&etag)).await.unwrap(),
        Conditional::NotModified
    );
    client.adjust_points("c1", 1, "web order").await.unwrap();
    match client.client_if_changed("c1", Some(&etag)).await.unwrap() {
        Conditional::Modified { data, etag: new } => {
            assert_eq!(data.loyalty.points, 121);
            assert_ne!(new.as_deref(), Some(etag.as_str()));
        }
        Conditional::NotModified => panic!("the credit changed the client"),
    }
}
