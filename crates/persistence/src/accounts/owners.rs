//! `OwnerStore`: the console's accounts. An owner is found by e-mail at sign-in, together with
//! their shop in the same query; disabling one, or giving them a new password, ends their
//! sessions in the same transaction.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::owner::{Owner, OwnerEmail};
use shop_domain::shop::Shop;
use shop_ports::StoreError;
use shop_ports::port::OwnerStore;

use crate::database::{Database, impl_for_each_backend, in_transaction, with_conn};
use crate::error::DbError;
use crate::rows::{OwnerRow, ShopRow};
use crate::schema::{owner_sessions, owners, shops};

/// The writes that end an owner's sessions, implemented for both backends' connections so that
/// each runs inside one transaction.
trait OwnerWrites {
    /// Marks the owner with this e-mail disabled at `at` (keeping an earlier time) and deletes
    /// their sessions; `false` when no owner has this e-mail.
    fn disable(
        &mut self,
        email: &OwnerEmail,
        at: Timestamp,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Replaces the password hash of the owner with this e-mail and deletes their sessions;
    /// `false` when no owner has this e-mail.
    fn set_password(
        &mut self,
        email: &OwnerEmail,
        password_hash: &str,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;
}

impl_for_each_backend! {
    impl OwnerWrites {
        async fn disable(&mut self, email: &OwnerEmail, at: Timestamp) -> Result<bool, DbError> {
            let owner: Option<String> = owners::table
                .filter(owners::email.eq(email.as_str()))
                .select(owners::id)
                .first(&mut *self)
                .await
                .optional()?;
            let Some(owner) = owner else {
                return Ok(false);
            };
            diesel::update(owners::table)
                .filter(owners::id.eq(&owner))
                .filter(owners::disabled_at_ms.is_null())
                .set(owners::disabled_at_ms.eq(at.millis()))
                .execute(&mut *self)
                .await?;
            diesel::delete(owner_sessions::table)
                .filter(owner_sessions::owner_id.eq(&owner))
                .execute(&mut *self)
                .await?;
            Ok(true)
        }

        async fn set_password(
            &mut self,
            email: &OwnerEmail,
            password_hash: &str,
        ) -> Result<bool, DbError> {
            let owner: Option<String> = diesel::update(owners::table)
                .filter(owners::email.eq(email.as_str()))
                .set(owners::password_hash.eq(password_hash))
                .returning(owners::id)
                .get_result(&mut *self)
                .await
                .optional()?;
            let Some(owner) = owner else {
                return Ok(false);
            };
            diesel::delete(owner_sessions::table)
                .filter(owner_sessions::owner_id.eq(&owner))
                .execute(&mut *self)
                .await?;
            Ok(true)
        }
    }
}

#[async_trait]
impl OwnerStore for Database {
    async fn insert_owner(&self, owner: &Owner) -> Result<(), StoreError> {
        let row = OwnerRow::from_domain(owner);
        with_conn!(self, |conn| diesel::insert_into(owners::table)
            .values(&row)
            .execute(conn)
            .await)?;
        Ok(())
    }

    async fn find_owner_by_email(
        &self,
        email: &OwnerEmail,
    ) -> Result<Option<(Owner, Shop)>, StoreError> {
        let found = with_conn!(self, |conn| owners::table
            .inner_join(shops::table.on(shops::id.eq(owners::shop_id)))
            .filter(owners::email.eq(email.as_str()))
            .select((OwnerRow::as_select(), ShopRow::as_select()))
            .first::<(OwnerRow, ShopRow)>(conn)
            .await
            .optional())?;
        match found {
            Some((owner, shop)) => Ok(Some((owner.into_domain()?, shop.into_domain()?))),
            None => Ok(None),
        }
    }

    async fn list_owners(&self, shop: &ShopId) -> Result<Vec<Owner>, StoreError> {
        let rows = with_conn!(self, |conn| owners::table
            .filter(owners::shop_id.eq(shop.as_str()))
            .order((owners::created_at_ms.asc(), owners::id.asc()))
            .select(OwnerRow::as_select())
            .load(conn)
            .await)?;
        Ok(rows
            .into_iter()
            .map(OwnerRow::into_domain)
            .collect::<Result<_, _>>()?)
    }

    async fn set_owner_password(
        &self,
        email: &OwnerEmail,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let changed: Result<bool, DbError> =
            in_transaction!(self, |conn| conn.set_password(email, password_hash).await);
        Ok(changed?)
    }

    async fn disable_owner(&self, email: &OwnerEmail, at: Timestamp) -> Result<bool, StoreError> {
        let disabled: Result<bool, DbError> =
            in_transaction!(self, |conn| conn.disable(email, at).await);
        Ok(disabled?)
    }
}
