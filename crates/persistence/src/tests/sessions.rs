//! `SessionStore`: a session is found with its owner and shop in one query, its activity only
//! moves forward, and it ends when deleted or expired.

use shop_domain::owner_session::SessionToken;
use shop_ports::StoreError;
use shop_ports::port::{OwnerStore, SessionStore, SignedIn};

use super::fixtures::{at, two_shops};
use super::owners::{owner, session};
use super::test_databases;

#[tokio::test]
async fn a_session_is_found_with_its_owner_and_shop() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "ana@boutique.fr", 1);
        let zoe = owner("owner_2", &b, "zoe@boutique.fr", 1);
        t.db.insert_owner(&ana).await.unwrap();
        t.db.insert_owner(&zoe).await.unwrap();
        let ana_session = session(1, &ana, 1_000);
        let zoe_session = session(2, &zoe, 2_000);
        t.db.insert_session(&ana_session).await.unwrap();
        t.db.insert_session(&zoe_session).await.unwrap();

        let found = t.db.find_session(&ana_session.digest).await.unwrap();
        let expected = SignedIn {
            session: ana_session.clone(),
            owner: ana.clone(),
            shop: a.clone(),
        };
        assert_eq!(found, Some(expected), "{}", t.backend());
        let theirs = t.db.find_session(&zoe_session.digest).await.unwrap();
        assert!(theirs.is_some_and(|s| s.shop == b && s.owner == zoe));
        let unknown = SessionToken::from_random_bytes([9; 32]).digest();
        assert_eq!(t.db.find_session(&unknown).await.unwrap(), None);

        // A disabled owner's session would be found too (the caller refuses it); but disabling
        // deletes it, so a stale one can only come from a race: store one by hand.
        t.db.disable_owner(&ana.email, at(3_000)).await.unwrap();
        t.db.insert_session(&ana_session).await.unwrap();
        let stale = t.db.find_session(&ana_session.digest).await.unwrap();
        assert!(
            stale.is_some_and(|s| s.owner.disabled_at == Some(at(3_000))),
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn a_taken_digest_is_a_failure_not_a_conflict() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "ana@boutique.fr", 1);
        t.db.insert_owner(&ana).await.unwrap();
        t.db.insert_session(&session(1, &ana, 1)).await.unwrap();
        let again = t.db.insert_session(&session(1, &ana, 2)).await;
        assert!(
            matches!(again, Err(StoreError::Failure(_))),
            "{}: {again:?}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn activity_moves_forward_only_and_a_deleted_session_stays_deleted() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "ana@boutique.fr", 1);
        t.db.insert_owner(&ana).await.unwrap();
        let stored = session(1, &ana, 1_000);
        t.db.insert_session(&stored).await.unwrap();
        let last_seen = async |t: &super::TestDb| {
            let found = t.db.find_session(&stored.digest).await.unwrap();
            found.map(|s| s.session.last_seen_at.millis())
        };

        t.db.touch_session(&stored.digest, at(61_000))
            .await
            .unwrap();
        assert_eq!(last_seen(&t).await, Some(61_000), "{backend}");
        t.db.touch_session(&stored.digest, at(30_000))
            .await
            .unwrap();
        assert_eq!(
            last_seen(&t).await,
            Some(61_000),
            "{backend}: never backwards"
        );
        let found = t.db.find_session(&stored.digest).await.unwrap().unwrap();
        assert_eq!(found.session.created_at, at(1_000), "{backend}");

        t.db.delete_session(&stored.digest).await.unwrap();
        assert_eq!(last_seen(&t).await, None, "{backend}");
        t.db.touch_session(&stored.digest, at(200_000))
            .await
            .unwrap();
        assert_eq!(last_seen(&t).await, None, "{backend}: not brought back");
        // Deleting what is gone is fine.
        t.db.delete_session(&stored.digest).await.unwrap();
    }
}

#[tokio::test]
async fn expired_sessions_are_deleted_by_idleness_or_age() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "ana@boutique.fr", 1);
        t.db.insert_owner(&ana).await.unwrap();
        // (created, last seen): idle since 100; old but active; fresh; at both bounds exactly.
        let idle = session(1, &ana, 100);
        let mut old = session(2, &ana, 50);
        old.last_seen_at = at(5_000);
        let fresh = session(3, &ana, 4_000);
        let mut edge = session(4, &ana, 1_000);
        edge.last_seen_at = at(2_000);
        for stored in [&idle, &old, &fresh, &edge] {
            t.db.insert_session(stored).await.unwrap();
        }

        let deleted =
            t.db.delete_expired_sessions(at(2_000), at(1_000))
                .await
                .unwrap();
        assert_eq!(deleted, 2, "{backend}");
        for (stored, kept) in [(&idle, false), (&old, false), (&fresh, true), (&edge, true)] {
            let found = t.db.find_session(&stored.digest).await.unwrap();
            assert_eq!(found.is_some(), kept, "{backend}: {:?}", stored.created_at);
        }
        assert_eq!(
            t.db.delete_expired_sessions(at(2_000), at(1_000))
                .await
                .unwrap(),
            0,
            "{backend}"
        );
    }
}
