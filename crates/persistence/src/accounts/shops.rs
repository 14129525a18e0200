//! `ShopStore`: creating shops, changing their plan and subscription, finding them by slug.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::shop::{Shop, ShopSlug};
use shop_ports::StoreError;
use shop_ports::port::ShopStore;

use crate::database::{Database, with_conn};
use crate::error::DbError;
use crate::rows::ShopRow;
use crate::schema::shops;

#[async_trait]
impl ShopStore for Database {
    async fn insert_shop(&self, shop: &Shop, at: Timestamp) -> Result<(), StoreError> {
        let row = ShopRow::new(shop, at);
        with_conn!(self, |conn| diesel::insert_into(shops::table)
            .values(&row)
            .execute(conn)
            .await)?;
        Ok(())
    }

    async fn update_shop(&self, shop: &Shop, at: Timestamp) -> Result<(), StoreError> {
        let changes = (
            shops::public_api.eq(shop.public_api_in_plan),
            shops::subscription.eq(shop.subscription.as_str()),
            shops::updated_at_ms.eq(at.millis()),
        );
        let updated = with_conn!(self, |conn| diesel::update(shops::table)
            .filter(shops::id.eq(shop.id.as_str()))
            .set(changes)
            .execute(conn)
            .await)?;
        if updated == 0 {
            // The use case found this shop just before; shops are never deleted.
            return Err(
                DbError::Invariant(format!("shop {} vanished before its update", shop.id)).into(),
            );
        }
        Ok(())
    }

    async fn find_shop_by_slug(&self, slug: &ShopSlug) -> Result<Option<Shop>, StoreError> {
        let row = with_conn!(self, |conn| shops::table
            .filter(shops::slug.eq(slug.as_str()))
            .select(ShopRow::as_select())
            .first(conn)
            .await
            .optional())?;
        Ok(row.map(ShopRow::into_domain).transpose()?)
    }
}
