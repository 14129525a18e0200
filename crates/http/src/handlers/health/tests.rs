//! The probes, with mocked dependencies.

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use async_trait::async_trait;
use serde_json::json;
use shop_ports::port::{HealthCheck, MockHealthCheck, Unhealthy};

use super::CHECK_DEADLINE;
use crate::Operations;
use crate::tests::{Reply, TestApi};

fn dependency(
    name: &'static str,
    required: bool,
    outcome: impl Fn() -> Result<(), Unhealthy> + Send + 'static,
) -> Arc<dyn HealthCheck> {
    let mut check = MockHealthCheck::new();
    check.expect_name().return_const(name);
    check.expect_required().return_const(required);
    check.expect_check().returning(outcome);
    Arc::new(check)
}

fn database(outcome: impl Fn() -> Result<(), Unhealthy> + Send + 'static) -> Arc<dyn HealthCheck> {
    dependency("database", true, outcome)
}

fn redis(outcome: impl Fn() -> Result<(), Unhealthy> + Send + 'static) -> Arc<dyn HealthCheck> {
    dependency("redis", false, outcome)
}

fn unreachable() -> Result<(), Unhealthy> {
    Err(Unhealthy::Unreachable("connection refused".into()))
}

async fn probe(path: &str, checks: Vec<Arc<dyn HealthCheck>>) -> Reply {
    TestApi::new()
        .operations(Operations::new(checks, None))
        .send(TestRequest::get().uri(path))
        .await
}

fn assert_uncached_json(reply: &Reply) {
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.header("cache-control"), Some("no-store"));
}

#[actix_web::test]
async fn healthz_answers_while_the_process_serves_whatever_the_dependencies() {
    let reply = probe("/healthz", vec![database(unreachable)]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json(), json!({"status": "alive"}));
    assert_uncached_json(&reply);
}

#[actix_web::test]
async fn readyz_lists_every_check_and_is_200_when_they_answer() {
    let reply = probe("/readyz", vec![database(|| Ok(())), redis(|| Ok(()))]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.json(),
        json!({"status": "ready", "checks": {"database": "ok", "redis": "ok"}})
    );
    assert_uncached_json(&reply);
}

#[actix_web::test]
async fn readyz_is_503_when_the_database_is_down_or_behind() {
    let reply = probe("/readyz", vec![database(unreachable), redis(|| Ok(()))]).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.json(),
        json!({"status": "unavailable", "checks": {"database": "unreachable", "redis": "ok"}})
    );
    assert_uncached_json(&reply);

    let behind = probe(
        "/readyz",
        vec![database(|| Err(Unhealthy::SchemaBehind { missing: 2 }))],
    )
    .await;
    assert_eq!(behind.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        behind.json()["checks"],
        json!({"database": "schema_outdated"})
    );
    assert!(!String::from_utf8_lossy(&behind.body).contains("refused"));
}

#[actix_web::test]
async fn an_unreachable_optional_dependency_is_reported_but_keeps_the_instance_ready() {
    let reply = probe("/readyz", vec![database(|| Ok(())), redis(unreachable)]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.json(),
        json!({"status": "ready", "checks": {"database": "ok", "redis": "unreachable"}})
    );
}

/// A dependency that never answers.
struct Hanging;

#[async_trait]
impl HealthCheck for Hanging {
    fn name(&self) -> &'static str {
        "database"
    }

    fn required(&self) -> bool {
        true
    }

    async fn check(&self) -> Result<(), Unhealthy> {
        futures::future::pending().await
    }
}

#[actix_web::test]
async fn a_check_that_hangs_is_unreachable_after_the_deadline() {
    let started = Instant::now();
    let reply = probe("/readyz", vec![Arc::new(Hanging), redis(|| Ok(()))]).await;
    let elapsed = started.elapsed();
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(reply.json()["checks"]["database"], "unreachable");
    assert!(
        elapsed >= CHECK_DEADLINE && elapsed < CHECK_DEADLINE + Duration::from_secs(1),
        "{elapsed:?}"
    );
}
