//! The request id on every response, the head limits, and the one log line per request.

use std::io;
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::test::TestRequest;
use serde_json::Value;
use shop_ports::port::MockCatalogueRepository;

use crate::middleware::limits::MAX_HEADER_BYTES;
use crate::tests::products::finding;
use crate::tests::{TestApi, full_product, get, secret};

fn catalogue() -> MockCatalogueRepository {
    finding(Some(full_product("prod_1")))
}

fn with_id(request: TestRequest, id: &str) -> TestRequest {
    request.insert_header(("X-Request-Id", id))
}

fn is_uuid(text: &str) -> bool {
    uuid::Uuid::parse_str(text).is_ok()
}

#[actix_web::test]
async fn every_response_echoes_a_sane_request_id_and_replaces_a_bad_one() {
    let oversized = "a".repeat(MAX_HEADER_BYTES);
    let replies = TestApi::new()
        .repository(catalogue())
        .send_all(vec![
            with_id(get("/api/v1/products/prod_1"), "client-req-1"),
            with_id(
                TestRequest::get().uri("/api/v1/products/prod_1"),
                "client-req-2",
            ),
            with_id(TestRequest::get().uri("/nowhere"), "client-req-3"),
            with_id(
                TestRequest::delete().uri("/api/v1/products/prod_1"),
                "client-req-4",
            ),
            with_id(get("/api/v1/products/prod_1"), "has a space"),
            with_id(get("/healthz"), &"x".repeat(129)),
            TestRequest::get()
                .uri("/healthz")
                .insert_header(("X-Filler", oversized)),
        ])
        .await;
    let seen: Vec<(u16, &str)> = replies
        .iter()
        .map(|reply| {
            let id = reply
                .header("x-request-id")
                .expect("an id on every response");
            (reply.status.as_u16(), id)
        })
        .collect();
    assert_eq!(
        seen[..4],
        [
            (200, "client-req-1"),
            (401, "client-req-2"),
            (404, "client-req-3"),
            (405, "client-req-4"),
        ]
    );
    for (status, id) in &seen[4..] {
        assert!(is_uuid(id), "{status}: {id} should be a fresh id");
    }
    assert_ne!(seen[5].1, seen[6].1);
    assert_eq!(seen[6].0, 431);
}

#[actix_web::test]
async fn headers_over_the_limit_are_refused_in_the_envelope() {
    let filler = "a".repeat(MAX_HEADER_BYTES);
    let reply = TestApi::new()
        .send(get("/api/v1/products/prod_1").insert_header(("X-Filler", filler)))
        .await;
    let error = reply.error(
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "REQUEST_HEADER_FIELDS_TOO_LARGE",
    );
    assert!(error["message"].is_string());

    let just_under = "a".repeat(MAX_HEADER_BYTES / 2);
    let reply = TestApi::new()
        .send(
            TestRequest::get()
                .uri("/healthz")
                .insert_header(("X-Filler", just_under)),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

/// Everything the subscriber writes, shared with the test.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// The `fields` of the access lines, by request id.
    fn access_lines(&self, id: &str) -> Vec<Value> {
        self.text()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|line| line["target"] == "access" && line["fields"]["request_id"] == id)
            .map(|line| line["fields"].clone())
            .collect()
    }
}

#[actix_web::test]
async fn each_request_is_one_log_line_with_its_facts_and_never_the_secret() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    // actix's test service runs the App on this thread: a thread-local subscriber sees it.
    let _guard = tracing::subscriber::set_default(subscriber);
    let wrong = format!("svc_live_0a1b2c3d_{}", "cd".repeat(32));
    TestApi::new()
        .repository(catalogue())
        .send_all(vec![
            with_id(get("/api/v1/products/prod_1"), "log-ok"),
            with_id(
                TestRequest::get()
                    .uri("/api/v1/products/prod_1?x=1")
                    .insert_header((header::AUTHORIZATION, format!("Bearer {wrong}"))),
                "log-401",
            ),
            with_id(TestRequest::get().uri("/no/such/page"), "log-404"),
        ])
        .await;

    let ok = captured.access_lines("log-ok");
    assert_eq!(ok.len(), 1, "{}", captured.text());
    let ok = &ok[0];
    assert_eq!(ok["message"], "request");
    assert_eq!(ok["method"], "GET");
    assert_eq!(ok["route"], "/api/v1/products/{id}");
    assert_eq!(ok["status"], 200);
    assert!(
        ok["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{ok}"
    );
    assert_eq!(ok["key_prefix"], "0a1b2c3d");
    assert_eq!(ok["shop_id"], "shop_1");
    assert!(ok.get("auth_failure").is_none(), "{ok}");

    let refused = captured.access_lines("log-401");
    assert_eq!(refused.len(), 1, "{}", captured.text());
    assert_eq!(refused[0]["status"], 401);
    assert_eq!(refused[0]["auth_failure"], "wrong_secret");
    assert!(refused[0].get("key_prefix").is_none(), "{}", refused[0]);

    let unknown = captured.access_lines("log-404");
    assert_eq!(unknown.len(), 1, "{}", captured.text());
    assert_eq!(unknown[0]["route"], "unmatched");

    let text = captured.text();
    for never in [secret().as_str(), "cdcdcdcd", "Bearer", "x=1", "such/page"] {
        assert!(!text.contains(never), "{never:?} was logged:\n{text}");
    }
}
