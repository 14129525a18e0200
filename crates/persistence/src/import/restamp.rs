//! A long import stamps its rows again right before it commits: they were stamped with the
//! time the import started, and a sync whose checkpoint passed that time while the import ran
//! would never see them (`crate::write_span`, `shop_domain::sync`).

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;

use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{clients, orders, products, variants};

pub(crate) trait Restamp {
    /// Moves every `updated_at` of the shop equal to `from` (the rows this import wrote, and
    /// possibly another write's of the same millisecond, which only moves forward) to `to`.
    fn restamp(
        &mut self,
        shop: &ShopId,
        from: Timestamp,
        to: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl Restamp {
        async fn restamp(
            &mut self,
            shop: &ShopId,
            from: Timestamp,
            to: Timestamp,
        ) -> Result<(), DbError> {
            diesel::update(products::table)
                .filter(products::shop_id.eq(shop.as_str()))
                .filter(products::updated_at_ms.eq(from.millis()))
                .set(products::updated_at_ms.eq(to.millis()))
                .execute(&mut *self)
                .await?;
            diesel::update(variants::table)
                .filter(variants::shop_id.eq(shop.as_str()))
                .filter(variants::stock_updated_at_ms.eq(from.millis()))
                .set(variants::stock_updated_at_ms.eq(to.millis()))
                .execute(&mut *self)
                .await?;
            diesel::update(clients::table)
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::updated_at_ms.eq(from.millis()))
                .set(clients::updated_at_ms.eq(to.millis()))
                .execute(&mut *self)
                .await?;
            diesel::update(orders::table)
                .filter(orders::shop_id.eq(shop.as_str()))
                .filter(orders::updated_at_ms.eq(from.millis()))
                .set(orders::updated_at_ms.eq(to.millis()))
                .execute(&mut *self)
                .await?;
            Ok(())
        }
    }
}
