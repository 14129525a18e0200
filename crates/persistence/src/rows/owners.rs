//! Owner rows: an owner account and a console session.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::id::{OwnerId, ShopId};
use shop_domain::owner::{Owner, OwnerEmail};
use shop_domain::owner_session::{CsrfToken, OwnerSession, SessionDigest};

use crate::error::DbError;
use crate::schema::{owner_sessions, owners};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = owners, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct OwnerRow {
    pub id: String,
    pub shop_id: String,
    pub email: String,
    pub password_hash: String,
    pub created_at_ms: i64,
    pub disabled_at_ms: Option<i64>,
}

impl OwnerRow {
    pub fn from_domain(owner: &Owner) -> Self {
        Self {
            id: owner.id.as_str().to_owned(),
            shop_id: owner.shop_id.as_str().to_owned(),
            email: owner.email.as_str().to_owned(),
            password_hash: owner.password_hash.clone(),
            created_at_ms: owner.created_at.millis(),
            disabled_at_ms: owner.disabled_at.map(Timestamp::millis),
        }
    }

    pub fn into_domain(self) -> Result<Owner, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("owners", &self.id, problem.to_string());
        let email = OwnerEmail::parse(&self.email).map_err(|e| corrupt(&e))?;
        // The domain lower-cases every address: one stored otherwise would escape the unique
        // index's case-insensitive duty.
        if email.as_str() != self.email {
            return Err(corrupt(&"its e-mail is not stored in its canonical form"));
        }
        Ok(Owner {
            id: OwnerId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            shop_id: ShopId::parse(self.shop_id.as_str()).map_err(|e| corrupt(&e))?,
            email,
            created_at: Timestamp::from_millis(self.created_at_ms),
            disabled_at: self.disabled_at_ms.map(Timestamp::from_millis),
            password_hash: self.password_hash,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = owner_sessions, check_for_backend(Sqlite, Pg))]
pub(crate) struct SessionRow {
    pub id_digest: String,
    pub owner_id: String,
    pub csrf_token: String,
    pub created_at_ms: i64,
    pub last_seen_at_ms: i64,
}

impl SessionRow {
    pub fn from_domain(session: &OwnerSession) -> Self {
        Self {
            id_digest: session.digest.as_str().to_owned(),
            owner_id: session.owner_id.as_str().to_owned(),
            csrf_token: session.csrf.as_str().to_owned(),
            created_at_ms: session.created_at.millis(),
            last_seen_at_ms: session.last_seen_at.millis(),
        }
    }

    pub fn into_domain(self) -> Result<OwnerSession, DbError> {
        // The digest is the row's key: shown in a log only as its first characters.
        let short: String = self.id_digest.chars().take(8).collect();
        let owner_id = OwnerId::parse(self.owner_id.as_str())
            .map_err(|e| DbError::corrupt("owner_sessions", &short, e))?;
        Ok(OwnerSession {
            digest: SessionDigest::from_stored(self.id_digest),
            owner_id,
            csrf: CsrfToken::from_stored(self.csrf_token),
            created_at: Timestamp::from_millis(self.created_at_ms),
            last_seen_at: Timestamp::from_millis(self.last_seen_at_ms),
        })
    }
}
