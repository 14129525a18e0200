use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::api_key::KeyPrefix;
use shop_ports::StoreError;
use shop_ports::port::ApiKeyStore;

use super::fixtures::{at, key, two_shops};
use super::test_databases;
use crate::database::with_conn;
use crate::schema::api_keys;

#[tokio::test]
async fn find_key_returns_the_key_with_its_shop() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let stored = key("0a1b2c3d", &a, 1_000);
        t.db.insert_key(&stored).await.unwrap();
        let found = t.db.find_key(&stored.prefix).await.unwrap();
        assert_eq!(found, Some((stored, a)), "{}", t.backend());

        let unknown = KeyPrefix::parse("ffffffff").unwrap();
        assert_eq!(t.db.find_key(&unknown).await.unwrap(), None);
    }
}

#[tokio::test]
async fn a_taken_prefix_is_a_conflict() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        t.db.insert_key(&key("0a1b2c3d", &a, 1)).await.unwrap();
        let again = t.db.insert_key(&key("0a1b2c3d", &b, 2)).await;
        assert!(
            matches!(again, Err(StoreError::Conflict { what: "prefix" })),
            "{}: {again:?}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn list_keys_is_oldest_first_and_per_shop() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        for stored in [
            key("00000003", &a, 300),
            key("00000001", &a, 100),
            key("00000002", &a, 200),
            key("00000009", &b, 50),
        ] {
            t.db.insert_key(&stored).await.unwrap();
        }
        let listed = t.db.list_keys(&a.id).await.unwrap();
        let prefixes: Vec<_> = listed.iter().map(|k| k.prefix.as_str()).collect();
        assert_eq!(
            prefixes,
            ["00000001", "00000002", "00000003"],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn revoking_keeps_the_first_revocation_time() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let stored = key("0a1b2c3d", &a, 1);
        t.db.insert_key(&stored).await.unwrap();

        assert!(t.db.revoke_key(&stored.prefix, at(10)).await.unwrap());
        assert!(t.db.revoke_key(&stored.prefix, at(20)).await.unwrap());
        let (found, _) = t.db.find_key(&stored.prefix).await.unwrap().unwrap();
        assert_eq!(found.revoked_at, Some(at(10)), "{}", t.backend());

        let unknown = KeyPrefix::parse("ffffffff").unwrap();
        assert!(!t.db.revoke_key(&unknown, at(30)).await.unwrap());
    }
}

#[tokio::test]
async fn a_corrupt_key_row_is_a_failure() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let stored = key("0a1b2c3d", &a, 1);
        t.db.insert_key(&stored).await.unwrap();
        with_conn!(&t.db, |conn| diesel::update(api_keys::table)
            .set(api_keys::scopes.eq("products:read,root"))
            .execute(conn)
            .await)
        .unwrap();
        let found = t.db.find_key(&stored.prefix).await;
        assert!(
            matches!(found, Err(StoreError::Failure(_))),
            "{}",
            t.backend()
        );
    }
}
