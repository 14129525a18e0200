//! `ApiKeyStore`: keys are looked up by prefix on every authenticated request, together with
//! their shop in the same query. The console's reads and revocations are scoped by the owner's
//! shop: another shop's key is the same as an unknown one.

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix};
use shop_domain::id::ShopId;
use shop_domain::shop::Shop;
use shop_ports::StoreError;
use shop_ports::port::ApiKeyStore;

use crate::database::{Database, with_conn};
use crate::rows::{ApiKeyRow, ShopRow};
use crate::schema::{api_keys, shops};
use crate::sql::kept_prepared::KeptPrepared;

#[async_trait]
impl ApiKeyStore for Database {
    async fn insert_key(&self, key: &ApiKey) -> Result<(), StoreError> {
        let row = ApiKeyRow::from_domain(key);
        with_conn!(self, |conn| diesel::insert_into(api_keys::table)
            .values(&row)
            .execute(conn)
            .await)?;
        Ok(())
    }

    async fn find_key(&self, prefix: &KeyPrefix) -> Result<Option<(ApiKey, Shop)>, StoreError> {
        let found = with_conn!(self, |conn| api_keys::table
            .inner_join(shops::table.on(shops::id.eq(api_keys::shop_id)))
            .filter(api_keys::prefix.eq(prefix.as_str()))
            .select((ApiKeyRow::as_select(), ShopRow::as_select()))
            .first::<(ApiKeyRow, ShopRow)>(conn)
            .await
            .optional())?;
        match found {
            Some((key, shop)) => Ok(Some((key.into_domain()?, shop.into_domain()?))),
            None => Ok(None),
        }
    }

    async fn list_keys(&self, shop: &ShopId) -> Result<Vec<ApiKey>, StoreError> {
        let rows = with_conn!(self, |conn| api_keys::table
            .filter(api_keys::shop_id.eq(shop.as_str()))
            .order((api_keys::created_at_ms.asc(), api_keys::prefix.asc()))
            .select(ApiKeyRow::as_select())
            .load(conn)
            .await)?;
        Ok(rows
            .into_iter()
            .map(ApiKeyRow::into_domain)
            .collect::<Result<_, _>>()?)
    }

    async fn revoke_key(&self, prefix: &KeyPrefix, at: Timestamp) -> Result<bool, StoreError> {
        self.revoke(prefix, None, at).await
    }

    async fn find_shop_key(
        &self,
        shop: &ShopId,
        prefix: &KeyPrefix,
    ) -> Result<Option<ApiKey>, StoreError> {
        let row = with_conn!(self, |conn| api_keys::table
            .filter(api_keys::prefix.eq(prefix.as_str()))
            .filter(api_keys::shop_id.eq(shop.as_str()))
            .select(ApiKeyRow::as_select())
            .first(conn)
            .await
            .optional())?;
        Ok(row.map(ApiKeyRow::into_domain).transpose()?)
    }

    async fn revoke_shop_key(
        &self,
        shop: &ShopId,
        prefix: &KeyPrefix,
        at: Timestamp,
    ) -> Result<bool, StoreError> {
        self.revoke(prefix, Some(shop), at).await
    }

    async fn record_key_use(&self, prefix: &KeyPrefix, at: Timestamp) -> Result<(), StoreError> {
        // Only forward: a late note from another instance never moves the time back. Its SQL
        // never varies, and every key's use is recorded about once a minute: kept prepared.
        let update = diesel::update(api_keys::table)
            .filter(api_keys::prefix.eq(prefix.as_str()))
            .filter(
                api_keys::last_used_at_ms
                    .is_null()
                    .or(api_keys::last_used_at_ms.lt(at.millis())),
            )
            .set(api_keys::last_used_at_ms.eq(at.millis()));
        with_conn!(self, |conn| KeptPrepared(update).execute(conn).await)?;
        Ok(())
    }
}

impl Database {
    /// Revokes the key with this prefix (only if it is `shop`'s, when given); a key revoked
    /// earlier keeps its first revocation time. `false` when there is no such key: unknown,
    /// or another shop's.
    async fn revoke(
        &self,
        prefix: &KeyPrefix,
        shop: Option<&ShopId>,
        at: Timestamp,
    ) -> Result<bool, StoreError> {
        let revoked_now = with_conn!(self, |conn| {
            let mut update = diesel::update(api_keys::table)
                .filter(api_keys::prefix.eq(prefix.as_str()))
                .filter(api_keys::revoked_at_ms.is_null())
                .into_boxed();
            if let Some(shop) = shop {
                update = update.filter(api_keys::shop_id.eq(shop.as_str()));
            }
            update
                .set(api_keys::revoked_at_ms.eq(at.millis()))
                .execute(conn)
                .await
        })?;
        if revoked_now > 0 {
            return Ok(true);
        }
        // Already revoked (its first revocation time stays), or no such key.
        Ok(with_conn!(self, |conn| {
            let mut key = api_keys::table
                .filter(api_keys::prefix.eq(prefix.as_str()))
                .into_boxed();
            if let Some(shop) = shop {
                key = key.filter(api_keys::shop_id.eq(shop.as_str()));
            }
            diesel::select(exists(key)).get_result::<bool>(conn).await
        })?)
    }
}
