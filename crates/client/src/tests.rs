//! The retry, idempotency and paging logic against a scripted HTTP server on a loopback
//! socket: each connection is answered by the next scripted reply and recorded.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::{ApiError, Client, ErrorCode, ProductQuery, RetryEvent, RetryReason};

mod client_writes;
mod product_writes;
mod sync;

/// What the fake server does with one connection.
#[derive(Clone)]
enum Reply {
    /// Answer with this status, extra headers and body.
    Http(u16, Vec<(&'static str, String)>, String),
    /// Read the request, then close the connection without answering (a lost response).
    Drop,
}

/// One request as received.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

struct FakeServer {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeServer {
    async fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&seen);
        tokio::spawn(async move {
            for reply in script {
                let (mut socket, _) = listener.accept().await.unwrap();
                let request = read_request(&mut socket).await;
                recorded.lock().unwrap().push(request);
                if let Reply::Http(status, headers, body) = reply {
                    let mut head = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                        body.len()
                    );
                    for (name, value) in headers {
                        head.push_str(&format!("{name}: {value}\r\n"));
                    }
                    head.push_str("\r\n");
                    socket.write_all(head.as_bytes()).await.unwrap();
                    socket.write_all(body.as_bytes()).await.unwrap();
                    socket.shutdown().await.ok();
                }
            }
        });
        Self { base_url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn read_request(socket: &mut TcpStream) -> Seen {
    let mut buffer = Vec::new();
    let mut chunk = [0_u8; 4096];
    let head_end = loop {
        let read = socket.read(&mut chunk).await.unwrap();
        assert!(read > 0, "the client closed the connection mid-request");
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8(buffer[..head_end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap().split(' ');
    let method = request_line.next().unwrap().to_owned();
    let target = request_line.next().unwrap().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, value)| value.parse().unwrap());
    while buffer.len() < head_end + length {
        let read = socket.read(&mut chunk).await.unwrap();
        assert!(read > 0);
        buffer.extend_from_slice(&chunk[..read]);
    }
    Seen {
        method,
        target,
        headers,
        body: String::from_utf8(buffer[head_end..head_end + length].to_vec()).unwrap(),
    }
}

fn ok(body: &str) -> Reply {
    Reply::Http(200, vec![], body.to_owned())
}

fn error(status: u16, code: &str, headers: Vec<(&'static str, String)>) -> Reply {
    Reply::Http(
        status,
        headers,
        format!(r#"{{"error":{{"code":"{code}","message":"m"}}}}"#),
    )
}

fn rate_limited(seconds: u64) -> Reply {
    error(
        429,
        "RATE_LIMITED",
        vec![("Retry-After", seconds.to_string())],
    )
}

const ADJUSTMENT: &str = r#"{"data":{"variantId":"v1","productId":"p1","previousStock":4,"newStock":2,"delta":-2,"movementId":"m1","appliedAt":"2026-03-01T10:00:00.000Z"}}"#;

fn product(id: &str) -> String {
    format!(
        r#"{{"id":"{id}","name":"n","productType":"simple","ean":null,"sku":null,"priceCents":990,
        "listPriceCents":990,"compareAtPriceCents":null,"promoActive":false,"taxRate":"5.50","active":true,
        "trackStock":false,"stockQuantity":null,"tags":[],"photos":[],"category":null,"brand":null,"variants":[],
        "createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}}"#
    )
}

fn page(ids: &[&str], next: Option<&str>) -> Reply {
    let data: Vec<String> = ids.iter().map(|id| product(id)).collect();
    let next = next.map_or("null".to_owned(), |cursor| format!("\"{cursor}\""));
    ok(&format!(
        r#"{{"data":[{}],"pageInfo":{{"hasMore":{},"nextCursor":{next},"limit":2}}}}"#,
        data.join(","),
        next != "null"
    ))
}

/// Two strong `ETag`s of v2's writes, as the server writes them.
const TAG_1: &str = "\"11111111111111111111111111111111\"";
const TAG_2: &str = "\"22222222222222222222222222222222\"";

/// A `200` (or `201`) of a v2 write or read: the resource and its tag.
fn tagged(status: u16, tag: &str, body: String) -> Reply {
    Reply::Http(status, vec![("ETag", tag.to_owned())], body)
}

/// The `412` of a stale `If-Match`, with the current tag.
fn precondition_failed(current: &str) -> Reply {
    Reply::Http(
        412,
        vec![("ETag", current.to_owned())],
        r#"{"error":{"code":"PRECONDITION_FAILED","message":"The resource changed."}}"#.to_owned(),
    )
}

fn recording_client(server: &FakeServer) -> (Client, Arc<Mutex<Vec<RetryEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&events);
    let client = Client::builder(&server.base_url, "svc_live_0123abcd_secret")
        .retry_backoff(Duration::from_millis(10))
        .on_retry(move |event| recorded.lock().unwrap().push(event.clone()))
        .build()
        .unwrap();
    (client, events)
}

#[tokio::test]
async fn a_429_is_waited_out_for_retry_after_then_retried() {
    let server = FakeServer::start(vec![
        rate_limited(1),
        ok(r#"{"shop":{"id":"s","name":"Atelier","slug":"atelier"},"apiKey":{"label":"k","scopes":["products:read"]}}"#),
    ])
    .await;
    let (client, events) = recording_client(&server);
    let started = Instant::now();
    let me = client.me().await.unwrap();
    assert_eq!(me.shop.slug, "atelier");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was honoured"
    );
    let events = events.lock().unwrap().clone();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].reason, RetryReason::RateLimited);
    assert_eq!(events[0].wait, Duration::from_secs(1));
    assert_eq!(events[0].path, "/api/v1/me");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].header("authorization"),
        Some("Bearer svc_live_0123abcd_secret")
    );
}

#[tokio::test]
async fn after_the_retries_a_429_is_the_typed_error() {
    let server = FakeServer::start(vec![
        rate_limited(0),
        rate_limited(0),
        rate_limited(0),
        rate_limited(0),
    ])
    .await;
    let (client, events) = recording_client(&server);
    let error = client.me().await.unwrap_err();
    assert!(
        matches!(error, ApiError::RateLimited { retry_after: Some(wait), .. } if wait == Duration::ZERO),
        "{error:?}"
    );
    assert_eq!(error.code(), Some(&ErrorCode::RateLimited));
    assert_eq!(error.status(), Some(429));
    assert_eq!(server.seen().len(), 4, "the first attempt and 3 retries");
    assert_eq!(events.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn a_retry_after_beyond_the_longest_wait_is_not_waited_for() {
    let server = FakeServer::start(vec![rate_limited(30)]).await;
    let client = Client::builder(&server.base_url, "k")
        .max_retry_wait(Duration::from_secs(5))
        .build()
        .unwrap();
    let started = Instant::now();
    let error = client.me().await.unwrap_err();
    assert!(
        matches!(error, ApiError::RateLimited { retry_after: Some(wait), .. } if wait == Duration::from_secs(30))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_adjustment_reuses_its_idempotency_key_on_every_retry() {
    let server = FakeServer::start(vec![
        // Applied, but the response is lost.
        Reply::Drop,
        rate_limited(0),
        error(
            503,
            "SERVICE_UNAVAILABLE",
            vec![("Retry-After", "0".to_owned())],
        ),
        Reply::Http(
            201,
            vec![("Idempotent-Replayed", "true".to_owned())],
            ADJUSTMENT.to_owned(),
        ),
    ])
    .await;
    let (client, events) = recording_client(&server);
    let outcome = client
        .adjust_stock("v1", -2, "Casse en rayon")
        .await
        .unwrap();
    assert!(outcome.replayed);
    assert_eq!(outcome.adjustment.new_stock, 2);

    let seen = server.seen();
    assert_eq!(seen.len(), 4);
    for request in &seen {
        assert_eq!(request.method, "POST");
        assert_eq!(request.target, "/api/v1/stock/adjustments");
        assert_eq!(
            request.header("idempotency-key"),
            Some(outcome.idempotency_key.as_str()),
            "the same key on every attempt"
        );
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(
            request.body,
            r#"{"variantId":"v1","quantity":-2,"reason":"Casse en rayon"}"#
        );
    }
    assert!(
        uuid::Uuid::parse_str(&outcome.idempotency_key).is_ok(),
        "a UUID: {}",
        outcome.idempotency_key
    );
    let reasons: Vec<RetryReason> = events.lock().unwrap().iter().map(|e| e.reason).collect();
    assert_eq!(
        reasons,
        [
            RetryReason::Transport,
            RetryReason::RateLimited,
            RetryReason::ServiceUnavailable
        ]
    );
    assert!(
        events
            .lock()
            .unwrap()
            .iter()
            .all(|e| e.idempotency_key.as_deref() == Some(outcome.idempotency_key.as_str()))
    );
}

#[tokio::test]
async fn each_adjustment_call_gets_its_own_key_unless_one_is_given() {
    let server = FakeServer::start(vec![
        Reply::Http(201, vec![], ADJUSTMENT.to_owned()),
        Reply::Http(201, vec![], ADJUSTMENT.to_owned()),
        Reply::Http(201, vec![], ADJUSTMENT.to_owned()),
    ])
    .await;
    let (client, _) = recording_client(&server);
    let first = client.adjust_stock("v1", -2, "r").await.unwrap();
    let second = client.adjust_stock("v1", -2, "r").await.unwrap();
    assert_ne!(first.idempotency_key, second.idempotency_key);
    assert!(!first.replayed);
    let mine = client
        .adjust_stock_with_key("v1", -2, "r", "erp-line-8812")
        .await
        .unwrap();
    assert_eq!(mine.idempotency_key, "erp-line-8812");
    assert_eq!(
        server.seen()[2].header("idempotency-key"),
        Some("erp-line-8812")
    );

    for bad in ["", "with space", "é", &"k".repeat(256)] {
        let refused = client.adjust_stock_with_key("v1", -2, "r", bad).await;
        assert!(matches!(refused, Err(ApiError::Invalid(_))), "{bad:?}");
    }
    assert_eq!(server.seen().len(), 3, "invalid keys are never sent");
}

#[tokio::test]
async fn transport_errors_give_up_after_the_retries() {
    let server = FakeServer::start(vec![Reply::Drop, Reply::Drop]).await;
    let client = Client::builder(&server.base_url, "k")
        .max_retries(1)
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let error = client.me().await.unwrap_err();
    assert!(matches!(error, ApiError::Transport(_)), "{error:?}");
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn api_errors_are_typed_and_not_retried() {
    let server = FakeServer::start(vec![
        Reply::Http(
            400,
            vec![],
            r#"{"error":{"code":"VALIDATION_ERROR","message":"Invalid query parameters.","details":[{"field":"limit","message":"1 to 100"}]}}"#.to_owned(),
        ),
        error(404, "NOT_FOUND", vec![]),
        Reply::Http(502, vec![], "<html>bad gateway</html>".to_owned()),
    ])
    .await;
    let (client, events) = recording_client(&server);
    let error = client.products(ProductQuery::default()).await.unwrap_err();
    match error {
        ApiError::Api {
            status,
            code,
            details,
            ..
        } => {
            assert_eq!((status, code), (400, ErrorCode::ValidationError));
            assert_eq!(details[0].field, "limit");
        }
        other => panic!("{other:?}"),
    }
    let error = client.order("o/1").await.unwrap_err();
    assert_eq!(error.code(), Some(&ErrorCode::NotFound));
    assert_eq!(server.seen()[1].target, "/api/v1/orders/o%2F1");
    let error = client.me().await.unwrap_err();
    assert!(
        matches!(&error, ApiError::Decode { status: 502, body, .. } if body.contains("bad gateway")),
        "{error:?}"
    );
    assert!(events.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_stream_follows_next_cursor_until_null_and_keeps_the_filters() {
    let server = FakeServer::start(vec![
        page(&["a", "b"], Some("c1")),
        page(&["c", "d"], Some("c2")),
        page(&["e"], None),
    ])
    .await;
    let (client, _) = recording_client(&server);
    let query = ProductQuery {
        limit: Some(2),
        q: Some("bougie parfumée".to_owned()),
        ..Default::default()
    };
    let ids: Vec<String> = client
        .products_stream(query)
        .map_ok(|product| product.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    let targets: Vec<String> = server.seen().into_iter().map(|s| s.target).collect();
    assert_eq!(
        targets,
        [
            "/api/v1/products?limit=2&q=bougie+parfum%C3%A9e",
            "/api/v1/products?limit=2&q=bougie+parfum%C3%A9e&cursor=c1",
            "/api/v1/products?limit=2&q=bougie+parfum%C3%A9e&cursor=c2",
        ]
    );
}

#[tokio::test]
async fn a_stream_yields_its_error_and_ends() {
    let server = FakeServer::start(vec![
        page(&["a"], Some("c1")),
        error(403, "INSUFFICIENT_SCOPE", vec![]),
    ])
    .await;
    let (client, _) = recording_client(&server);
    let items: Vec<_> =
        futures::StreamExt::collect::<Vec<_>>(client.products_stream(ProductQuery::default()))
            .await;
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().id, "a");
    assert_eq!(
        items[1].as_ref().unwrap_err().code(),
        Some(&ErrorCode::InsufficientScope)
    );
}

#[tokio::test]
async fn base_url_prefixes_are_kept_and_bad_inputs_refused() {
    let server = FakeServer::start(vec![ok(r#"{"data":{"clientId":"c1","points":1,"pointsLifetime":2,"pointsAllTime":3,
        "tier":{"current":null,"next":null,"progress":0},"recentLotteryTickets":[],"recentSpins":[]}}"#)])
    .await;
    let client = Client::new(format!("{}/shop/", server.base_url), "k").unwrap();
    let loyalty = client.loyalty("c1").await.unwrap();
    assert_eq!(loyalty.points_all_time, 3);
    assert_eq!(server.seen()[0].target, "/shop/api/v1/clients/c1/loyalty");

    assert!(matches!(
        client.product("..").await,
        Err(ApiError::Invalid(_))
    ));
    assert!(matches!(client.client("").await, Err(ApiError::Invalid(_))));
    assert!(matches!(
        Client::new("not a url", "k"),
        Err(ApiError::Invalid(_))
    ));
    assert!(matches!(
        Client::new("ftp://example.com", "k"),
        Err(ApiError::Invalid(_))
    ));
    assert!(matches!(
        Client::new("http://example.com", "bad\nkey"),
        Err(ApiError::Invalid(_))
    ));
    let debug = format!(
        "{:?}",
        Client::new("http://example.com", "svc_live_secret").unwrap()
    );
    assert!(!debug.contains("svc_live_secret"), "{debug}");
}
