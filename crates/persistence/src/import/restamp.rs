//! A long import stamps its rows again right before it commits: they were stamped with the
//! time the import started, and a sync whose checkpoint passed that time while the import ran
//! would never see them (`crate::database::write_span`, `shop_domain::sync`).

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
            // Every stamp a sync reads: products', stock entries', clients' and orders'.
            macro_rules! restamp {
                ($table:ident, $column:ident) => {
                    diesel::update($table::table)
                        .filter($table::shop_id.eq(shop.as_str()))
                        .filter($table::$column.eq(from.millis()))
                        .set($table::$column.eq(to.millis()))
                        .execute(&mut *self)
                        .await?
                };
            }
            restamp!(products, updated_at_ms);
            restamp!(variants, stock_updated_at_ms);
            restamp!(clients, updated_at_ms);
            restamp!(orders, updated_at_ms);
            Ok(())
        }
    }
}
