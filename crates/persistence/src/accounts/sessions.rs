//! `SessionStore`: console sessions, looked up by their token's digest on every console
//! request, together with their owner and the owner's shop in the same query.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::owner_session::{OwnerSession, SessionDigest};
use shop_ports::StoreError;
use shop_ports::port::{SessionStore, SignedIn};

use crate::database::{Database, with_conn};
use crate::rows::{OwnerRow, SessionRow, ShopRow};
use crate::schema::{owner_sessions, owners, shops};
use crate::sql::kept_prepared::KeptPrepared;

#[async_trait]
impl SessionStore for Database {
    async fn insert_session(&self, session: &OwnerSession) -> Result<(), StoreError> {
        let row = SessionRow::from_domain(session);
        let inserted = with_conn!(self, |conn| diesel::insert_into(owner_sessions::table)
            .values(&row)
            .execute(conn)
            .await);
        match inserted {
            Ok(_) => Ok(()),
            // 256 random bits hashed: a taken digest is a broken generator, not a conflict.
            Err(error) => match StoreError::from(error) {
                StoreError::Conflict { .. } => Err(StoreError::failure(
                    "a new session's digest is already stored",
                )),
                other => Err(other),
            },
        }
    }

    async fn find_session(&self, digest: &SessionDigest) -> Result<Option<SignedIn>, StoreError> {
        let found = with_conn!(self, |conn| owner_sessions::table
            .inner_join(owners::table.on(owners::id.eq(owner_sessions::owner_id)))
            .inner_join(shops::table.on(shops::id.eq(owners::shop_id)))
            .filter(owner_sessions::id_digest.eq(digest.as_str()))
            .select((
                SessionRow::as_select(),
                OwnerRow::as_select(),
                ShopRow::as_select(),
            ))
            .first::<(SessionRow, OwnerRow, ShopRow)>(conn)
            .await
            .optional())?;
        let Some((session, owner, shop)) = found else {
            return Ok(None);
        };
        Ok(Some(SignedIn {
            session: session.into_domain()?,
            owner: owner.into_domain()?,
            shop: shop.into_domain()?,
        }))
    }

    async fn touch_session(&self, digest: &SessionDigest, at: Timestamp) -> Result<(), StoreError> {
        // An UPDATE: a deleted session is not brought back. Its SQL never varies, and every
        // live session runs it about once a minute: kept prepared.
        let update = diesel::update(owner_sessions::table)
            .filter(owner_sessions::id_digest.eq(digest.as_str()))
            .filter(owner_sessions::last_seen_at_ms.lt(at.millis()))
            .set(owner_sessions::last_seen_at_ms.eq(at.millis()));
        with_conn!(self, |conn| KeptPrepared(update).execute(conn).await)?;
        Ok(())
    }

    async fn delete_session(&self, digest: &SessionDigest) -> Result<(), StoreError> {
        with_conn!(self, |conn| diesel::delete(owner_sessions::table)
            .filter(owner_sessions::id_digest.eq(digest.as_str()))
            .execute(conn)
            .await)?;
        Ok(())
    }

    async fn delete_expired_sessions(
        &self,
        idle_before: Timestamp,
        created_before: Timestamp,
    ) -> Result<u64, StoreError> {
        let deleted = with_conn!(self, |conn| diesel::delete(owner_sessions::table)
            .filter(
                owner_sessions::last_seen_at_ms
                    .lt(idle_before.millis())
                    .or(owner_sessions::created_at_ms.lt(created_before.millis())),
            )
            .execute(conn)
            .await)?;
        Ok(u64::try_from(deleted).unwrap_or(0))
    }
}
