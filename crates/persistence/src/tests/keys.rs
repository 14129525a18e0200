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

#[tokio::test]
async fn an_owner_finds_only_their_shop_keys() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let mine = key("0a1b2c3d", &a, 1);
        let theirs = key("2c3d4e5f", &b, 1);
        t.db.insert_key(&mine).await.unwrap();
        t.db.insert_key(&theirs).await.unwrap();
        let backend = t.backend();
        let found = t.db.find_shop_key(&a.id, &mine.prefix).await.unwrap();
        assert_eq!(found, Some(mine), "{backend}");
        assert_eq!(
            t.db.find_shop_key(&a.id, &theirs.prefix).await.unwrap(),
            None,
            "{backend}: another shop's key is unknown"
        );
        let unknown = KeyPrefix::parse("ffffffff").unwrap();
        assert_eq!(t.db.find_shop_key(&a.id, &unknown).await.unwrap(), None);
    }
}

#[tokio::test]
async fn an_owner_revokes_only_their_shop_keys_and_the_first_time_stays() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let mine = key("0a1b2c3d", &a, 1);
        let theirs = key("2c3d4e5f", &b, 1);
        t.db.insert_key(&mine).await.unwrap();
        t.db.insert_key(&theirs).await.unwrap();
        let backend = t.backend();

        assert!(
            !t.db
                .revoke_shop_key(&a.id, &theirs.prefix, at(10))
                .await
                .unwrap(),
            "{backend}: another shop's key is unknown"
        );
        let (untouched, _) = t.db.find_key(&theirs.prefix).await.unwrap().unwrap();
        assert_eq!(untouched, theirs, "{backend}: and it is left as it was");

        assert!(
            t.db.revoke_shop_key(&a.id, &mine.prefix, at(20))
                .await
                .unwrap()
        );
        assert!(
            t.db.revoke_shop_key(&a.id, &mine.prefix, at(30))
                .await
                .unwrap()
        );
        let found = t.db.find_shop_key(&a.id, &mine.prefix).await.unwrap();
        assert_eq!(found.and_then(|k| k.revoked_at), Some(at(20)), "{backend}");

        let unknown = KeyPrefix::parse("ffffffff").unwrap();
        assert!(!t.db.revoke_shop_key(&a.id, &unknown, at(40)).await.unwrap());
    }
}

#[tokio::test]
async fn a_key_use_is_recorded_forward_only() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let stored = key("0a1b2c3d", &a, 1);
        let other = key("1b2c3d4e", &a, 1);
        t.db.insert_key(&stored).await.unwrap();
        t.db.insert_key(&other).await.unwrap();
        let backend = t.backend();
        let last_used = async |prefix: &KeyPrefix| {
            let found = t.db.find_shop_key(&a.id, prefix).await.unwrap();
            found.and_then(|k| k.last_used_at)
        };
        assert_eq!(
            last_used(&stored.prefix).await,
            None,
            "{backend}: never used"
        );

        // (use noted at, last use read after it, why)
        let cases = [
            (120_000, 120_000, "a first use is recorded"),
            (60_000, 120_000, "a late note does not move it back"),
            (180_000, 180_000, "a later use moves it forward"),
        ];
        for (used_at, expected, why) in cases {
            t.db.record_key_use(&stored.prefix, at(used_at))
                .await
                .unwrap();
            assert_eq!(
                last_used(&stored.prefix).await,
                Some(at(expected)),
                "{backend}: {why}"
            );
        }
        assert_eq!(
            last_used(&other.prefix).await,
            None,
            "{backend}: one key only"
        );

        let unknown = KeyPrefix::parse("ffffffff").unwrap();
        t.db.record_key_use(&unknown, at(240_000)).await.unwrap();
        // The key list reads it too.
        let listed = t.db.list_keys(&a.id).await.unwrap();
        assert_eq!(listed[0].last_used_at, Some(at(180_000)), "{backend}");
    }
}
