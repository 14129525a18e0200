//! `OwnerStore`: insertion, e-mail uniqueness whatever its case, the sign-in lookup with the
//! shop, the list, and disabling (which ends the owner's sessions in the same transaction).

use shop_domain::id::OwnerId;
use shop_domain::owner::{Owner, OwnerEmail};
use shop_domain::owner_session::{CsrfToken, OwnerSession, SessionToken};
use shop_domain::shop::Shop;
use shop_ports::StoreError;
use shop_ports::port::{OwnerStore, SessionStore};

use super::fixtures::{at, two_shops};
use super::test_databases;

pub(super) fn owner(id: &str, shop: &Shop, email: &str, created_at: i64) -> Owner {
    Owner {
        id: OwnerId::parse(id).unwrap(),
        shop_id: shop.id.clone(),
        email: OwnerEmail::parse(email).unwrap(),
        password_hash: format!("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA${id}"),
        created_at: at(created_at),
        disabled_at: None,
    }
}

/// A session of `owner` whose token is 32 times `byte`, created and last seen at `created_at`.
pub(super) fn session(byte: u8, owner: &Owner, created_at: i64) -> OwnerSession {
    OwnerSession {
        digest: SessionToken::from_random_bytes([byte; 32]).digest(),
        owner_id: owner.id.clone(),
        csrf: CsrfToken::from_random_bytes([byte.wrapping_add(1); 32]),
        created_at: at(created_at),
        last_seen_at: at(created_at),
    }
}

fn email(text: &str) -> OwnerEmail {
    OwnerEmail::parse(text).unwrap()
}

#[tokio::test]
async fn an_owner_is_found_by_email_with_their_shop() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "Ana@Boutique.fr", 1_000);
        t.db.insert_owner(&ana).await.unwrap();

        let found = t.db.find_owner_by_email(&email("ANA@boutique.FR")).await;
        assert_eq!(found.unwrap(), Some((ana, a)), "{}", t.backend());
        let unknown = t.db.find_owner_by_email(&email("bob@boutique.fr")).await;
        assert_eq!(unknown.unwrap(), None, "{}", t.backend());
    }
}

#[tokio::test]
async fn an_email_taken_in_any_case_and_any_shop_is_a_conflict() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        t.db.insert_owner(&owner("owner_1", &a, "ana@boutique.fr", 1))
            .await
            .unwrap();
        for (id, shop, address) in [
            ("owner_2", &a, "ana@boutique.fr"),
            ("owner_3", &b, "ANA@Boutique.FR"),
        ] {
            let again = t.db.insert_owner(&owner(id, shop, address, 2)).await;
            assert!(
                matches!(again, Err(StoreError::Conflict { what: "email" })),
                "{}: {again:?}",
                t.backend()
            );
        }
        // A taken id is an id conflict, not an e-mail one.
        let same_id =
            t.db.insert_owner(&owner("owner_1", &a, "other@boutique.fr", 3))
                .await;
        assert!(
            matches!(same_id, Err(StoreError::Conflict { what: "id" })),
            "{}: {same_id:?}",
            t.backend()
        );
        assert_eq!(
            t.db.list_owners(&b.id).await.unwrap(),
            [],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn list_owners_is_oldest_first_and_per_shop() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let owners = [
            owner("owner_c", &a, "c@boutique.fr", 300),
            owner("owner_a", &a, "a@boutique.fr", 100),
            owner("owner_b", &a, "b@boutique.fr", 200),
            owner("owner_z", &b, "z@boutique.fr", 50),
        ];
        for stored in &owners {
            t.db.insert_owner(stored).await.unwrap();
        }
        let listed = t.db.list_owners(&a.id).await.unwrap();
        let ids: Vec<_> = listed.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["owner_a", "owner_b", "owner_c"], "{}", t.backend());
        assert_eq!(listed[0], owners[1], "{}", t.backend());
        let theirs = t.db.list_owners(&b.id).await.unwrap();
        assert_eq!(theirs, [owners[3].clone()], "{}", t.backend());
    }
}

#[tokio::test]
async fn disabling_ends_the_owner_sessions_and_keeps_the_first_time() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "ana@boutique.fr", 1);
        let bob = owner("owner_2", &a, "bob@boutique.fr", 1);
        t.db.insert_owner(&ana).await.unwrap();
        t.db.insert_owner(&bob).await.unwrap();
        let (ana_1, ana_2, bob_1) = (
            session(1, &ana, 10),
            session(2, &ana, 20),
            session(3, &bob, 30),
        );
        for stored in [&ana_1, &ana_2, &bob_1] {
            t.db.insert_session(stored).await.unwrap();
        }

        assert!(
            t.db.disable_owner(&email("Ana@Boutique.fr"), at(100))
                .await
                .unwrap()
        );
        for gone in [&ana_1, &ana_2] {
            assert_eq!(
                t.db.find_session(&gone.digest).await.unwrap(),
                None,
                "{backend}"
            );
        }
        let kept = t.db.find_session(&bob_1.digest).await.unwrap();
        assert!(kept.is_some_and(|s| s.owner == bob), "{backend}");

        // Disabled again later: the first time stays.
        assert!(t.db.disable_owner(&ana.email, at(200)).await.unwrap());
        let (found, _) = t.db.find_owner_by_email(&ana.email).await.unwrap().unwrap();
        assert_eq!(found.disabled_at, Some(at(100)), "{backend}");
        assert!(!found.is_enabled());
        let (bob_now, _) = t.db.find_owner_by_email(&bob.email).await.unwrap().unwrap();
        assert_eq!(bob_now.disabled_at, None, "{backend}");

        let unknown =
            t.db.disable_owner(&email("nobody@boutique.fr"), at(300))
                .await;
        assert!(!unknown.unwrap(), "{backend}");
    }
}

#[tokio::test]
async fn a_new_password_ends_the_owner_sessions() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = two_shops(&t.db).await;
        let ana = owner("owner_1", &a, "ana@boutique.fr", 1);
        let bob = owner("owner_2", &a, "bob@boutique.fr", 1);
        t.db.insert_owner(&ana).await.unwrap();
        t.db.insert_owner(&bob).await.unwrap();
        let (ana_1, bob_1) = (session(1, &ana, 10), session(2, &bob, 20));
        t.db.insert_session(&ana_1).await.unwrap();
        t.db.insert_session(&bob_1).await.unwrap();

        let changed =
            t.db.set_owner_password(&email("ANA@boutique.fr"), "$argon2id$new")
                .await;
        assert!(changed.unwrap(), "{backend}");
        let (found, _) = t.db.find_owner_by_email(&ana.email).await.unwrap().unwrap();
        assert_eq!(found.password_hash, "$argon2id$new", "{backend}");
        assert_eq!(
            t.db.find_session(&ana_1.digest).await.unwrap(),
            None,
            "{backend}"
        );
        assert!(
            t.db.find_session(&bob_1.digest).await.unwrap().is_some(),
            "{backend}"
        );
        let (bob_now, _) = t.db.find_owner_by_email(&bob.email).await.unwrap().unwrap();
        assert_eq!(bob_now, bob, "{backend}: only that owner");

        let unknown =
            t.db.set_owner_password(&email("nobody@boutique.fr"), "$x")
                .await;
        assert!(!unknown.unwrap(), "{backend}");
    }
}
