//! The rows API v2's creates and patches write beside the resource (issue 35): the write in
//! the console's activity ([`ApiWriteRow`]), and what a create's idempotency record says to
//! replay ([`CreateRecorded`]).

use diesel::prelude::*;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{ApiWriteId, ShopId};
use shop_ports::port::IdempotencyClaim;

use crate::error::DbError;
use crate::rows::IdempotencyRow;
use crate::schema::api_writes;

/// The kinds of resource and of write the activity lists (the table's CHECKs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WrittenResource {
    Client,
    Product,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteAction {
    Created,
    Updated,
}

#[derive(Insertable)]
#[diesel(table_name = api_writes)]
pub(crate) struct ApiWriteRow {
    pub id: String,
    pub shop_id: String,
    pub api_key_prefix: String,
    pub resource: String,
    pub resource_id: String,
    pub action: String,
    pub changed: String,
    pub created_at_ms: i64,
}

/// One write of one resource by one key.
pub(crate) struct ApiWrite<'a> {
    pub id: &'a ApiWriteId,
    pub shop: &'a ShopId,
    pub key_prefix: &'a KeyPrefix,
    pub resource: WrittenResource,
    pub resource_id: &'a str,
    pub action: WriteAction,
    /// The members' paths that changed.
    pub changed: &'a [&'a str],
    pub at: Timestamp,
}

impl ApiWriteRow {
    pub fn of(write: &ApiWrite<'_>) -> Result<Self, DbError> {
        Ok(Self {
            id: write.id.as_str().to_owned(),
            shop_id: write.shop.as_str().to_owned(),
            api_key_prefix: write.key_prefix.as_str().to_owned(),
            resource: match write.resource {
                WrittenResource::Client => "client",
                WrittenResource::Product => "product",
            }
            .to_owned(),
            resource_id: write.resource_id.to_owned(),
            action: match write.action {
                WriteAction::Created => "created",
                WriteAction::Updated => "updated",
            }
            .to_owned(),
            changed: serde_json::to_string(write.changed)
                .map_err(|error| DbError::Invariant(error.to_string()))?,
            created_at_ms: write.at.millis(),
        })
    }
}

const CREATED: &str = "created";
const CONFLICT: &str = "conflict";

/// What a create's idempotency record says to replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CreateRecorded {
    /// The resource with this id: load it as it is now.
    Created(String),
    /// Refused: `member`'s value is held by the resource `holder`.
    Conflict { member: String, holder: String },
}

impl CreateRecorded {
    /// The record of this answer under `claim`.
    pub fn row(
        &self,
        key_prefix: &KeyPrefix,
        claim: &IdempotencyClaim,
        at: Timestamp,
    ) -> IdempotencyRow {
        let (outcome, resource_id, member) = match self {
            Self::Created(id) => (CREATED, id.clone(), None),
            Self::Conflict { member, holder } => (CONFLICT, holder.clone(), Some(member.clone())),
        };
        IdempotencyRow {
            api_key_prefix: key_prefix.as_str().to_owned(),
            idempotency_key: claim.key.as_str().to_owned(),
            fingerprint: claim.fingerprint.clone(),
            outcome: outcome.to_owned(),
            movement_id: None,
            created_at_ms: at.millis(),
            loyalty_adjustment_id: None,
            resource_id: Some(resource_id),
            member,
        }
    }

    /// The record's answer; a record of another operation is not one (its fingerprint never
    /// matches a create's, so it is refused as a reused key before this).
    pub fn of(row: &IdempotencyRow) -> Result<Self, DbError> {
        match (row.outcome.as_str(), &row.resource_id, &row.member) {
            (CREATED, Some(id), None) => Ok(Self::Created(id.clone())),
            (CONFLICT, Some(holder), Some(member)) => Ok(Self::Conflict {
                member: member.clone(),
                holder: holder.clone(),
            }),
            _ => Err(DbError::corrupt(
                "idempotency_records",
                &format!("{}/{}", row.api_key_prefix, row.idempotency_key),
                "not the record of a create",
            )),
        }
    }
}
