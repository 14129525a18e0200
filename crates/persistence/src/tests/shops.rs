use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::shop::{ShopSlug, SubscriptionStatus};
use shop_ports::StoreError;
use shop_ports::port::ShopStore;

use super::fixtures::{at, shop};
use super::test_databases;
use crate::database::with_conn;
use crate::schema::shops;

#[tokio::test]
async fn a_shop_round_trips_and_its_plan_changes() {
    for t in test_databases().await {
        let mut stored = shop("shop_1", "la-boutique");
        t.db.insert_shop(&stored, at(100)).await.unwrap();
        let found = t.db.find_shop_by_slug(&stored.slug).await.unwrap();
        assert_eq!(found.as_ref(), Some(&stored), "{}", t.backend());

        stored.public_api_in_plan = false;
        stored.subscription = SubscriptionStatus::Cancelled;
        t.db.update_shop(&stored, at(200)).await.unwrap();
        let found = t.db.find_shop_by_slug(&stored.slug).await.unwrap();
        assert_eq!(found.as_ref(), Some(&stored), "{}", t.backend());

        let stamps = with_conn!(&t.db, |conn| shops::table
            .select((shops::created_at_ms, shops::updated_at_ms))
            .first::<(i64, i64)>(conn)
            .await)
        .unwrap();
        assert_eq!(stamps, (100, 200), "{}", t.backend());

        let unknown = ShopSlug::parse("nope").unwrap();
        assert_eq!(t.db.find_shop_by_slug(&unknown).await.unwrap(), None);
    }
}

#[tokio::test]
async fn taken_slugs_and_ids_are_conflicts() {
    for t in test_databases().await {
        t.db.insert_shop(&shop("shop_1", "taken"), at(1))
            .await
            .unwrap();
        let same_slug = t.db.insert_shop(&shop("shop_2", "taken"), at(1)).await;
        assert!(
            matches!(same_slug, Err(StoreError::Conflict { what: "slug" })),
            "{}: {same_slug:?}",
            t.backend()
        );
        let same_id = t.db.insert_shop(&shop("shop_1", "other"), at(1)).await;
        assert!(
            matches!(same_id, Err(StoreError::Conflict { what: "id" })),
            "{}: {same_id:?}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn updating_a_missing_shop_is_a_failure() {
    for t in test_databases().await {
        let result = t.db.update_shop(&shop("ghost", "ghost"), at(1)).await;
        assert!(
            matches!(result, Err(StoreError::Failure(_))),
            "{}",
            t.backend()
        );
    }
}
