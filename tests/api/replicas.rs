//! Reads from a real PostgreSQL streaming replica (`scripts/replica/up.sh`: a primary on 5433
//! and a replica on 5434 that applies the primary's log 1 s late, on purpose): a key reads its
//! own writes, another key's reads are served by the replica, a stopped replica costs no
//! error, and a revoked key is refused in time whatever the replica shows.
//!
//! The scenarios share one replica and one stops it: they run one at a time (`PAIR`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::fixtures::stock;
use crate::support::TestApp;

static PAIR: Mutex<()> = Mutex::const_new(());

const MAX_LAG: Duration = Duration::from_secs(2);

async fn replicated(redis: bool) -> Option<TestApp> {
    let redis = redis
        .then(|| std::env::var("TEST_REDIS_URL").ok())
        .flatten();
    TestApp::start_replicated(MAX_LAG, redis).await
}

/// The readiness line of the one replica: `ok`, `lagging` or `unreachable`.
async fn replica_standing(app: &TestApp) -> (u16, String) {
    let reply = app.get("/readyz", "").await;
    let standing = reply.json()["checks"]["replica_1"]
        .as_str()
        .unwrap_or("absent")
        .to_owned();
    (reply.status, standing)
}

/// Waits until the replica is `standing`; how long it took.
async fn until_replica(app: &TestApp, standing: &str, within: Duration) -> Duration {
    let start = Instant::now();
    loop {
        let (_, now) = replica_standing(app).await;
        if now == standing {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < within,
            "the replica is still {now}, not {standing}, after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `shop_db_reads_total{target=...}` of the server's metrics.
async fn reads_on(app: &TestApp, target: &str) -> u64 {
    let text = app.scrape_metrics().await.text;
    let line = format!("shop_db_reads_total{{target=\"{target}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&line))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {line} in the metrics:\n{text}"))
}

async fn stocked(app: &TestApp) -> (String, String) {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let writer = app.create_key("atelier", "stock:read,stock:write").await;
    let reader = app.create_key("atelier", "stock:read").await;
    (writer, reader)
}

fn stock_of(page: &Value, variant: &str) -> i64 {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["variantId"] == variant)
        .and_then(|entry| entry["stock"].as_i64())
        .unwrap_or_else(|| panic!("no {variant} in {page}"))
}

async fn reads_see_their_own_writes(redis: bool) {
    let _pair = PAIR.lock().await;
    let Some(app) = replicated(redis).await else {
        return;
    };
    until_replica(&app, "ok", Duration::from_secs(30)).await;
    let (writer, reader) = stocked(&app).await;
    // Let the replica receive the shop, so that the other key's reads have data there.
    tokio::time::sleep(MAX_LAG).await;
    let replica_before = reads_on(&app, "replica").await;
    let mut stale_for_the_other_key = 0;
    for pair in 1..=100 {
        let adjusted = app
            .adjust(
                &writer,
                &json!({"variantId": "v_ok", "quantity": 1, "reason": "restock"}),
                None,
            )
            .await;
        assert_eq!(adjusted.status, 201, "{}", adjusted.text);
        let written = adjusted.json()["data"]["newStock"].as_i64().unwrap();
        let own = app.get("/api/v1/stock?productId=p_mug", &writer).await;
        assert_eq!(own.status, 200, "{}", own.text);
        assert_eq!(
            stock_of(&own.json(), "v_ok"),
            written,
            "pair {pair}: the writer read an older stock than its own adjustment"
        );
        let other = app.get("/api/v1/stock?productId=p_mug", &reader).await;
        assert_eq!(other.status, 200, "{}", other.text);
        if stock_of(&other.json(), "v_ok") < written {
            stale_for_the_other_key += 1;
        }
    }
    let on_replica = reads_on(&app, "replica").await - replica_before;
    eprintln!(
        "read-your-writes (redis: {redis}): 100 of 100 adjust-then-read pairs saw their write; \
         {on_replica} reads served by the replica; the other key saw an older stock on \
         {stale_for_the_other_key} of its 100 reads (the replica applies the log 1 s late)"
    );
    assert!(
        on_replica >= 90,
        "the other key's reads should be served by the replica: {on_replica} of 100"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_reads_its_own_writes_on_a_lagging_replica() {
    reads_see_their_own_writes(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_reads_its_own_writes_with_positions_shared_in_redis() {
    if std::env::var("TEST_REDIS_URL").is_err() {
        let required = std::env::var("REQUIRE_REDIS").is_ok_and(|v| v == "1");
        assert!(!required, "REQUIRE_REDIS=1 but TEST_REDIS_URL is not set");
        eprintln!("SKIPPED: TEST_REDIS_URL is not set");
        return;
    }
    reads_see_their_own_writes(true).await;
}

/// `scripts/replica/ctl.sh <action> replica`.
fn replica(action: &str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/replica/ctl.sh");
    let status = std::process::Command::new("bash")
        .args([script, action, "replica"])
        .status()
        .expect("run scripts/replica/ctl.sh");
    assert!(status.success(), "ctl.sh {action} replica failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_go_to_the_primary_while_the_replica_is_down_and_come_back() {
    let _pair = PAIR.lock().await;
    let Some(app) = replicated(false).await else {
        return;
    };
    until_replica(&app, "ok", Duration::from_secs(30)).await;
    let (_, reader) = stocked(&app).await;
    tokio::time::sleep(MAX_LAG).await;
    let reads = async |seconds: u64| {
        let until = Instant::now() + Duration::from_secs(seconds);
        let mut answered = 0;
        while Instant::now() < until {
            let reply = app.get("/api/v1/stock", &reader).await;
            assert_eq!(reply.status, 200, "a read failed: {}", reply.text);
            answered += 1;
        }
        answered
    };
    let before = reads(1).await;
    let stopped_at = Instant::now();
    let stopping = tokio::task::spawn_blocking(|| replica("stop"));
    let during = reads(4).await;
    stopping.await.unwrap();
    let (status, standing) = replica_standing(&app).await;
    assert_eq!(
        (status, standing.as_str()),
        (200, "unreachable"),
        "ready, with the replica named down"
    );
    let primary_before = reads_on(&app, "primary").await;
    let on_primary = reads(1).await;
    assert!(reads_on(&app, "primary").await - primary_before >= on_primary);
    let down_for = stopped_at.elapsed();
    let restarted_at = Instant::now();
    tokio::task::spawn_blocking(|| replica("start"))
        .await
        .unwrap();
    let back_after = until_replica(&app, "ok", Duration::from_secs(30)).await;
    let replica_before = reads_on(&app, "replica").await;
    let after = reads(1).await;
    let on_replica = reads_on(&app, "replica").await - replica_before;
    eprintln!(
        "replica failover: {before} reads before, {during} while stopping it and after \
         ({down_for:?} down), {on_primary} on the primary alone, all 200; back in rotation \
         {:?} after its restart ({back_after:?} after its start returned); then {on_replica} of \
         {after} reads on the replica",
        restarted_at.elapsed()
    );
    assert!(on_replica * 10 >= after * 9, "{on_replica} of {after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_is_refused_in_time_while_reads_use_a_lagging_replica() {
    let _pair = PAIR.lock().await;
    let Some(app) = replicated(false).await else {
        return;
    };
    until_replica(&app, "ok", Duration::from_secs(30)).await;
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "products:read").await;
    tokio::time::sleep(MAX_LAG).await;
    assert_eq!(app.get("/api/v1/products", &key).await.status, 200);
    let revoked_at = app.revoke_key(&key).await;
    let first_refusal = app
        .refused_within_five_seconds(&key, "/api/v1/products", revoked_at)
        .await;
    eprintln!("revocation with a lagging replica: first 401 sent {first_refusal:?} after it");
}

#[tokio::test]
async fn replicas_are_refused_with_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("shop.db").display());
    let settings = shop_app::services::ServiceSettings {
        replicas: Some(shop_app::services::ReplicaSettings {
            urls: vec!["postgres://postgres@127.0.0.1:5434/shop".into()],
            max_lag: MAX_LAG,
        }),
        ..shop_app::services::ServiceSettings::default()
    };
    let Err(error) = shop_app::services::Services::open_with(&url, settings).await else {
        panic!("replicas were accepted with SQLite");
    };
    assert!(
        format!("{error:#}").contains("needs a PostgreSQL DATABASE_URL"),
        "{error:#}"
    );
}
