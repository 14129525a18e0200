use shop_domain::shop::ShopSlug;
use shop_ports::StoreError;
use shop_ports::port::ShopStore;

use super::fixtures::{at, shop};
use super::{exhausted_sqlite, test_databases};
use crate::database::migrate;
use crate::{ConnectError, Database, DatabaseUrl, PoolOptions};

#[tokio::test]
async fn migrations_apply_once_and_reopening_applies_nothing() {
    for t in test_databases().await {
        assert!(migrate::embedded_count(&t.url) > 0);
        assert_eq!(
            migrate::run_pending(&t.url).await.unwrap(),
            0,
            "{}",
            t.backend()
        );
        let again = Database::open(&t.url, PoolOptions::default())
            .await
            .unwrap();
        again.insert_shop(&shop("s1", "s1"), at(1)).await.unwrap();
        assert!(
            t.db.find_shop_by_slug(&ShopSlug::parse("s1").unwrap())
                .await
                .unwrap()
                .is_some()
        );
    }
}

#[tokio::test]
async fn every_migration_reverts_and_reapplies() {
    for t in test_databases().await {
        let count = migrate::embedded_count(&t.url);
        assert_eq!(
            migrate::revert_all(&t.url).await.unwrap(),
            count,
            "{}",
            t.backend()
        );
        assert_eq!(
            migrate::run_pending(&t.url).await.unwrap(),
            count,
            "{}",
            t.backend()
        );
        t.db.insert_shop(&shop("s1", "s1"), at(1)).await.unwrap();
    }
}

#[tokio::test]
async fn open_creates_the_sqlite_file_and_its_directories() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/deeper/shop.db");
    let url = DatabaseUrl::parse(&format!("sqlite://{}", path.display())).unwrap();
    let db = Database::open(&url, PoolOptions::default()).await.unwrap();
    assert_eq!(db.backend_name(), "sqlite");
    assert!(path.is_file());
}

#[tokio::test]
async fn an_unreachable_server_fails_to_open() {
    let url = DatabaseUrl::parse("postgres://postgres@127.0.0.1:1/none").unwrap();
    let error = Database::open(&url, PoolOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ConnectError::Connect {
                backend: "postgres",
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_exhausted_pool_is_unavailable() {
    let (_t, db, _held) = exhausted_sqlite().await;
    let result = db.find_shop_by_slug(&ShopSlug::parse("any").unwrap()).await;
    assert!(
        matches!(result, Err(StoreError::Unavailable(_))),
        "{result:?}"
    );
}
