//! The test harness: the real server, in-process, on a fresh database per test.

mod app;
pub mod browser;
pub mod console;
pub mod logs;
pub mod postgres;
pub mod proxy;
pub mod receiver;
pub mod tls_proxy;
pub mod trickle;

pub use app::{Backend, Reply, TestApp};

/// Runs each named `async fn(TestApp)` scenario twice: on a fresh SQLite file, and on a fresh
/// PostgreSQL database when `TEST_DATABASE_URL` is set (otherwise the PostgreSQL half says
/// plainly that it was skipped, and fails instead when `REQUIRE_POSTGRES=1`).
macro_rules! on_both_databases {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app = crate::support::TestApp::start(crate::support::Backend::Sqlite).await;
                super::$scenario(app.expect("SQLite is always available")).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(app) = crate::support::TestApp::start(crate::support::Backend::Postgres).await {
                    super::$scenario(app).await;
                }
            }
        }
    )*};
}

pub(crate) use on_both_databases;
