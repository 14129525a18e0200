//! The locks API v2's writes of products and clients take inside their transaction (issue 35).
//! SQLite's writers already run one at a time (`BEGIN IMMEDIATE` after their turn), so there
//! they only find the row; PostgreSQL's are written here, one statement each.
//!
//! - A resource's row lock: a write that checks `If-Match` and then writes must be the only
//!   one between its check and its commit, so that of 50 writes carrying one entity tag exactly
//!   one finds it current. `FOR NO KEY UPDATE` is the lock an `UPDATE` of the row takes (so a
//!   points adjustment, a plain `UPDATE`, waits for it too), and it does not block the foreign
//!   keys' `FOR KEY SHARE` of rows that refer to it.
//! - A value's lock: a value that must be unique in the shop without a unique index (an
//!   e-mail, since imported duplicates stay) is claimed by a transaction-scoped advisory lock
//!   on (shop, namespace, value), so two writes claiming one value check one after the other.

use diesel::prelude::*;
use diesel::sql_types::{Integer, Text};
use diesel_async::RunQueryDsl;
use shop_domain::id::{ClientId, ProductId, ShopId};

use crate::error::DbError;
use crate::schema::{clients, products, variants};

/// The advisory locks' class of unique values (the issue that made it), apart from the event
/// log's numbering (`webhooks/events.rs`).
const UNIQUE_VALUE_LOCK_CLASS: i32 = 35;

pub(crate) trait WriteLocks {
    /// Locks the shop's client's row until the transaction ends; `false` when the shop has no
    /// such client.
    fn lock_client(
        &mut self,
        shop: &ShopId,
        id: &ClientId,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Locks the shop's product's row and its variants' until the transaction ends (a stock
    /// adjustment of a variant then waits, and the stock the write read stays true); `false`
    /// when the shop has no such product.
    fn lock_product(
        &mut self,
        shop: &ShopId,
        id: &ProductId,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Holds `value` of the shop's `namespace` until the transaction ends.
    fn lock_value(
        &mut self,
        shop: &ShopId,
        namespace: &'static str,
        value: &str,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl<R: crate::database::SqliteRunner> WriteLocks for crate::database::SqliteOn<R> {
    async fn lock_client(&mut self, shop: &ShopId, id: &ClientId) -> Result<bool, DbError> {
        let found = clients::table
            .filter(clients::shop_id.eq(shop.as_str()))
            .filter(clients::id.eq(id.as_str()))
            .select(clients::id)
            .first::<String>(self)
            .await
            .optional()?;
        Ok(found.is_some())
    }

    async fn lock_product(&mut self, shop: &ShopId, id: &ProductId) -> Result<bool, DbError> {
        let found = products::table
            .filter(products::shop_id.eq(shop.as_str()))
            .filter(products::id.eq(id.as_str()))
            .select(products::id)
            .first::<String>(self)
            .await
            .optional()?;
        Ok(found.is_some())
    }

    async fn lock_value(&mut self, _: &ShopId, _: &'static str, _: &str) -> Result<(), DbError> {
        Ok(())
    }
}

impl WriteLocks for diesel_async::AsyncPgConnection {
    async fn lock_client(&mut self, shop: &ShopId, id: &ClientId) -> Result<bool, DbError> {
        let found = clients::table
            .filter(clients::shop_id.eq(shop.as_str()))
            .filter(clients::id.eq(id.as_str()))
            .select(clients::id)
            .for_no_key_update()
            .first::<String>(self)
            .await
            .optional()?;
        Ok(found.is_some())
    }

    async fn lock_product(&mut self, shop: &ShopId, id: &ProductId) -> Result<bool, DbError> {
        let found = products::table
            .filter(products::shop_id.eq(shop.as_str()))
            .filter(products::id.eq(id.as_str()))
            .select(products::id)
            .for_no_key_update()
            .first::<String>(&mut *self)
            .await
            .optional()?;
        if found.is_some() {
            // Always the product first, then its variants: the order every product write
            // takes, and a stock adjustment takes only a variant's.
            variants::table
                .filter(variants::shop_id.eq(shop.as_str()))
                .filter(variants::product_id.eq(id.as_str()))
                .select(variants::id)
                .order(variants::id.asc())
                .for_no_key_update()
                .load::<String>(self)
                .await?;
        }
        Ok(found.is_some())
    }

    async fn lock_value(
        &mut self,
        shop: &ShopId,
        namespace: &'static str,
        value: &str,
    ) -> Result<(), DbError> {
        // A collision of the 32-bit hash only makes two unrelated writes wait for each other.
        diesel::sql_query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind::<Integer, _>(UNIQUE_VALUE_LOCK_CLASS)
            .bind::<Text, _>(format!("{shop}\u{1f}{namespace}\u{1f}{value}"))
            .execute(self)
            .await?;
        Ok(())
    }
}
