//! The lines of the console's list of API writes (issue 35), read back: a create or patch of a
//! resource as `writes.rs`'s `ApiWriteRow` recorded it, and an adjustment of a client's points,
//! each with the label of the key that made it.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::api_write::{
    ApiWrite, ResourceWrite, WriteAction, WrittenChange, WrittenResource,
};
use shop_domain::id::ApiWriteId;

use crate::error::DbError;
use crate::rows::PointsAdjustmentRow;
use crate::schema::api_writes;

/// A recorded write, without its shop (the query's).
#[derive(Queryable, Selectable)]
#[diesel(table_name = api_writes, check_for_backend(Sqlite, Pg))]
pub(crate) struct ApiWriteLineRow {
    pub id: String,
    pub api_key_prefix: String,
    pub resource: String,
    pub resource_id: String,
    pub action: String,
    pub changed: String,
    pub created_at_ms: i64,
}

impl ApiWriteLineRow {
    /// The line, made by the key labelled `key_label`. The texts are those `ApiWriteRow::of`
    /// writes (and the table's CHECKs allow); another is a corrupt row.
    pub fn into_domain(self, key_label: String) -> Result<ApiWrite, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("api_writes", &self.id, problem.to_string());
        let resource = match self.resource.as_str() {
            "client" => WrittenResource::Client,
            "product" => WrittenResource::Product,
            other => return Err(corrupt(&format!("unknown resource {other:?}"))),
        };
        let action = match self.action.as_str() {
            "created" => WriteAction::Created,
            "updated" => WriteAction::Updated,
            other => return Err(corrupt(&format!("unknown action {other:?}"))),
        };
        let changed: Vec<String> = serde_json::from_str(&self.changed).map_err(|e| corrupt(&e))?;
        Ok(ApiWrite {
            key_prefix: KeyPrefix::parse(&self.api_key_prefix).map_err(|e| corrupt(&e))?,
            key_label,
            change: WrittenChange::Resource(ResourceWrite {
                id: ApiWriteId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
                resource,
                resource_id: self.resource_id,
                action,
                changed,
                at: Timestamp::from_millis(self.created_at_ms),
            }),
        })
    }
}

impl PointsAdjustmentRow {
    /// The adjustment as a line of the list, made by the key labelled `key_label`.
    pub fn into_api_write(self, key_label: String) -> Result<ApiWrite, DbError> {
        let key_prefix = KeyPrefix::parse(&self.api_key_prefix)
            .map_err(|e| DbError::corrupt("loyalty_adjustments", &self.id, e))?;
        Ok(ApiWrite {
            key_prefix,
            key_label,
            change: WrittenChange::Points(self.into_domain()?),
        })
    }
}
