//! The operational side, black-box: probes, metrics and the request log after real requests
//! with real keys; metrics on their own address; and a database outage (through a proxy
//! that can be cut) answered fast with 503 and healed without a restart.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::json;
use shop_app::server::{RunningServer, ServerConfig};
use shop_app::services::{ServiceSettings, Services};
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{ShopSlug, SubscriptionStatus};
use shop_persistence::PoolOptions;
use shop_ports::usecase::{NewKey, NewShop};

use crate::support::logs::captured;
use crate::support::proxy::Proxy;
use crate::support::{Backend, Reply, TestApp, on_both_databases, postgres};

on_both_databases!(
    probes_answer_and_metrics_count_real_requests,
    each_request_is_one_log_line_and_no_secret_is_ever_logged,
    metrics_can_have_an_address_of_their_own,
    metrics_answer_any_method_but_get_as_an_unknown_path,
);

async fn get_with_id(app: &TestApp, path: &str, key: Option<&str>, request_id: &str) -> Reply {
    let mut request = app
        .client()
        .get(app.url(path))
        .header("X-Request-Id", request_id);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    app.send(request).await
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|candidate| candidate == line)
}

/// The value of the first sample of `name` (no labels).
fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
}

async fn probes_answer_and_metrics_count_real_requests(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "products:read").await;

    let live = app.send(app.client().get(app.url("/healthz"))).await;
    assert_eq!(
        (live.status, live.json()),
        (200, json!({"status": "alive"}))
    );
    let ready = app.send(app.client().get(app.url("/readyz"))).await;
    assert_eq!(
        (ready.status, ready.json()),
        (
            200,
            json!({"status": "ready", "checks": {"database": "ok"}})
        )
    );

    for _ in 0..3 {
        assert_eq!(app.get("/api/v1/me", &key).await.status, 200);
    }
    assert_eq!(app.get("/api/v1/products/p_nope", &key).await.status, 404);
    assert_eq!(app.get("/api/v1/me", "svc_live_nope").await.status, 401);

    let hidden = app.send(app.client().get(app.url("/metrics"))).await;
    assert_eq!(
        (hidden.status, hidden.error_code()),
        (404, "NOT_FOUND".to_owned()),
        "no metrics on the public address without the token"
    );
    let scrape = app.scrape_metrics().await;
    assert_eq!(scrape.status, 200);
    let text = &scrape.text;
    // The pool size, 8: on SQLite, the writers' pool and the API readers' pool add up.
    let max_connections = match app.backend {
        Backend::Sqlite => "shop_db_pool_max_connections 16",
        Backend::Postgres => "shop_db_pool_max_connections 8",
    };
    for line in [
        r#"shop_http_requests_total{method="GET",route="/api/v1/me",status="200"} 3"#,
        r#"shop_http_requests_total{method="GET",route="/api/v1/products/{id}",status="404"} 1"#,
        r#"shop_http_requests_total{method="GET",route="/api/v1/me",status="401"} 1"#,
        r#"shop_http_requests_total{method="GET",route="/readyz",status="200"} 1"#,
        r#"shop_auth_failures_total{cause="malformed_key"} 1"#,
        "shop_auth_argon2_verifications_total 1",
        max_connections,
        "shop_db_pool_wait_timeouts_total 0",
    ] {
        assert!(has_line(text, line), "missing {line} in\n{text}");
    }
    assert!(
        sample(text, "shop_auth_key_cache_hits_total") >= 3.0,
        "{text}"
    );
    assert!(
        sample(text, "shop_db_pool_open_connections") >= 1.0,
        "{text}"
    );
    assert!(!text.contains("p_nope"), "raw paths are never labels");
}

/// The headers of a reply but those that differ between any two requests.
fn lasting_headers(reply: &Reply) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = reply
        .headers
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "date" | "x-request-id"))
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
        .collect();
    headers.sort();
    headers
}

async fn metrics_answer_any_method_but_get_as_an_unknown_path(app: TestApp) {
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let unknown = app
            .send(
                app.client()
                    .request(method.clone(), app.url("/no/such/path")),
            )
            .await;
        assert_eq!(unknown.status, 404);
        for token in [None, Some(TestApp::METRICS_TOKEN)] {
            let mut request = app.client().request(method.clone(), app.url("/metrics"));
            if let Some(token) = token {
                request = request.bearer_auth(token);
            }
            let metrics = app.send(request).await;
            assert_eq!(
                (metrics.status, &metrics.text, lasting_headers(&metrics)),
                (unknown.status, &unknown.text, lasting_headers(&unknown)),
                "{method} /metrics, token {token:?}"
            );
        }
    }
}

async fn each_request_is_one_log_line_and_no_secret_is_ever_logged(app: TestApp) {
    let logs = captured();
    let shop = app.create_shop("atelier").await;
    let key = app.create_key("atelier", "products:read").await;
    let wrong_secret = format!("{}{}", &key[..18], "0".repeat(64));
    let run = uuid::Uuid::now_v7().simple().to_string();
    let id = |name: &str| format!("{run}-{name}");

    get_with_id(&app, "/api/v1/me", Some(&key), &id("ok")).await;
    get_with_id(&app, "/api/v1/products?limit=2", Some(&key), &id("list")).await;
    get_with_id(&app, "/api/v1/me", Some(&wrong_secret), &id("wrong")).await;
    get_with_id(&app, "/api/v1/me", None, &id("missing")).await;

    let ok = logs.access_lines(&id("ok"));
    assert_eq!(ok.len(), 1, "one line per request: {ok:?}");
    let ok = &ok[0];
    assert_eq!(ok["route"], "/api/v1/me");
    assert_eq!(ok["method"], "GET");
    assert_eq!(ok["status"], 200);
    assert!(ok["latency_ms"].is_number(), "{ok}");
    assert_eq!(ok["key_prefix"], &key[9..17]);
    assert_eq!(ok["shop_id"], shop.id.as_str());

    let list = logs.access_lines(&id("list"));
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["route"], "/api/v1/products");

    for (name, cause) in [("wrong", "wrong_secret"), ("missing", "missing_header")] {
        let refused = logs.access_lines(&id(name));
        assert_eq!(refused.len(), 1, "{name}");
        assert_eq!(refused[0]["status"], 401);
        assert_eq!(refused[0]["auth_failure"], cause);
        assert!(refused[0].get("shop_id").is_none(), "{}", refused[0]);
    }

    let text = logs.text();
    for secret in [&key[18..], &wrong_secret[18..]] {
        assert!(!text.contains(secret), "a key secret was logged");
    }
    assert!(!text.contains("limit=2"), "the query string is not logged");
}

async fn metrics_can_have_an_address_of_their_own(app: TestApp) {
    let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let server = RunningServer::start_with(
        &app.services,
        ServerConfig {
            workers: Some(1),
            metrics_bind: Some(loopback),
            ..ServerConfig::new(loopback)
        },
    )
    .unwrap();
    let metrics_addr = server.metrics_addr.expect("a metrics address");
    let client = app.client();

    let on_api = client
        .get(format!("{}/metrics", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(on_api.status(), 404, "not on the API's address");
    let probe = client
        .get(format!("{}/healthz", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(probe.status(), 200, "the probes stay on the API's address");

    let scrape = client
        .get(format!("http://{metrics_addr}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        has_line(
            &scrape,
            r#"shop_http_requests_total{method="GET",route="unmatched",status="404"} 1"#
        ),
        "the API server's requests, counted: {scrape}"
    );
    server.stop().await;
}

/// `host:port` of a `postgres://user@host:port/db` URL.
fn server_of(url: &str) -> &str {
    let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = authority.split('/').next().unwrap_or(authority);
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host)
}

/// PostgreSQL only: SQLite is a local file that cannot go away like a server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_is_a_fast_503_and_heals_without_a_restart() {
    let Some(scratch) = postgres::create().await else {
        return;
    };
    let server_addr = server_of(&scratch.url).to_owned();
    let target = tokio::net::lookup_host(&server_addr)
        .await
        .unwrap()
        .next()
        .unwrap();
    let proxy = Proxy::start(target).await;
    let url = scratch
        .url
        .replacen(&server_addr, &proxy.addr.to_string(), 1);
    let wait_timeout = Duration::from_secs(1);
    let settings = ServiceSettings {
        pool: PoolOptions {
            max_size: 4,
            wait_timeout,
        },
        ..ServiceSettings::default()
    };
    let services = Services::open_with(&url, settings).await.unwrap();
    let slug = ShopSlug::parse("atelier").unwrap();
    services
        .shops
        .create(NewShop {
            slug: slug.clone(),
            name: "Atelier".into(),
            public_api_in_plan: true,
            subscription: SubscriptionStatus::Active,
        })
        .await
        .unwrap();
    let key = services
        .keys
        .create(NewKey {
            shop: slug,
            label: "ERP".into(),
            scopes: ScopeSet::parse_list("products:read").unwrap(),
            expires_at: None,
        })
        .await
        .unwrap()
        .full_key
        .reveal();
    let server = RunningServer::start(&services, "127.0.0.1:0".parse().unwrap(), Some(2)).unwrap();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let products = format!("{}/api/v1/products", server.base_url());
    let ready = format!("{}/readyz", server.base_url());
    let list = || client.get(&products).bearer_auth(&key).send();
    assert_eq!(list().await.unwrap().status(), 200);

    proxy.cut();
    let started = Instant::now();
    let refused = list().await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(refused.status(), 503);
    assert_eq!(
        refused
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("1")
    );
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "SERVICE_UNAVAILABLE");
    assert!(
        elapsed <= wait_timeout + Duration::from_millis(500),
        "failed fast, not hanging: {elapsed:?}"
    );
    let not_ready = client.get(&ready).send().await.unwrap();
    assert_eq!(not_ready.status(), 503);
    assert_eq!(
        not_ready.json::<serde_json::Value>().await.unwrap()["checks"]["database"],
        "unreachable"
    );

    proxy.restore();
    let restored = Instant::now();
    loop {
        let status = list().await.unwrap().status();
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(
            restored.elapsed() < Duration::from_secs(5),
            "still {status} 5 s after the database came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let recovered_in = restored.elapsed();
    assert_eq!(client.get(&ready).send().await.unwrap().status(), 200);
    eprintln!("503 after {elapsed:?}; healed {recovered_in:?} after the database came back");
    server.stop().await;
    services.database.close();
}
