//! Table rows and their conversion to and from domain values.
//!
//! Rows are plain column holders: they never derive `Serialize` and never leave this crate.
//! Reading a row parses every value into its domain type; a value the domain refuses (an
//! unknown scope, a tax rate out of range) is a corrupt row, reported as `DbError::Corrupt`.
//!
//! Confidential columns (a client's note, an order's signatures) have row types of their own,
//! read only by the import: the rows the API's reads select cannot carry them.

mod api_write_lines;
mod catalogue;
mod clients;
mod loyalty;
mod orders;
mod owners;
mod stock;
mod writes;

pub(crate) use api_write_lines::ApiWriteLineRow;
pub(crate) use catalogue::{
    BrandRow, CategoryRow, NewVariantRow, ProductRow, ProductWithNames, VariantRow,
};
pub(crate) use clients::{
    ClientConfidentialRow, ClientContactChangeset, ClientRow, ClientSearchRow, NewClientRow,
};
pub(crate) use loyalty::{PointsAdjustmentRow, PointsRecorded, SpinRow, TicketRow, TierRow};
pub(crate) use orders::{
    ItemOfOrder, OrderConfidentialRow, OrderItemRow, OrderRow, SelectedOrder, SelectedOrderItem,
};
pub(crate) use owners::{OwnerRow, SessionRow};
pub(crate) use stock::{
    IdempotencyRow, MovementRow, Recorded, RecordedOutcome, StockEntryRow, SwitchRow,
    VariantNameRow,
};
pub(crate) use writes::{ApiWrite, ApiWriteRow, CreateRecorded, WriteAction, WrittenResource};

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix};
use shop_domain::id::ShopId;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};

use crate::error::DbError;
use crate::schema::{api_keys, shops};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = shops, check_for_backend(Sqlite, Pg))]
pub(crate) struct ShopRow {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub public_api: bool,
    pub subscription: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl ShopRow {
    /// A new shop's row: created and updated at `at`.
    pub fn new(shop: &Shop, at: Timestamp) -> Self {
        Self {
            id: shop.id.as_str().to_owned(),
            slug: shop.slug.as_str().to_owned(),
            name: shop.name.clone(),
            public_api: shop.public_api_in_plan,
            subscription: shop.subscription.as_str().to_owned(),
            created_at_ms: at.millis(),
            updated_at_ms: at.millis(),
        }
    }

    pub fn into_domain(self) -> Result<Shop, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("shops", &self.id, problem.to_string());
        Ok(Shop {
            id: ShopId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            slug: ShopSlug::parse(&self.slug).map_err(|e| corrupt(&e))?,
            subscription: self
                .subscription
                .parse::<SubscriptionStatus>()
                .map_err(|e| corrupt(&e))?,
            public_api_in_plan: self.public_api,
            name: self.name,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = api_keys, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    pub prefix: String,
    pub shop_id: String,
    pub label: String,
    pub scopes: String,
    pub secret_hash: String,
    pub created_at_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub revoked_at_ms: Option<i64>,
    pub last_used_at_ms: Option<i64>,
}

impl ApiKeyRow {
    pub fn from_domain(key: &ApiKey) -> Self {
        Self {
            prefix: key.prefix.as_str().to_owned(),
            shop_id: key.shop_id.as_str().to_owned(),
            label: key.label.clone(),
            scopes: key.scopes.to_list(),
            secret_hash: key.secret_hash.clone(),
            created_at_ms: key.created_at.millis(),
            expires_at_ms: key.expires_at.map(Timestamp::millis),
            revoked_at_ms: key.revoked_at.map(Timestamp::millis),
            last_used_at_ms: key.last_used_at.map(Timestamp::millis),
        }
    }

    pub fn into_domain(self) -> Result<ApiKey, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("api_keys", &self.prefix, problem.to_string())
        };
        Ok(ApiKey {
            prefix: KeyPrefix::parse(&self.prefix).map_err(|e| corrupt(&e))?,
            shop_id: ShopId::parse(self.shop_id.as_str()).map_err(|e| corrupt(&e))?,
            scopes: ScopeSet::parse_list(&self.scopes).map_err(|e| corrupt(&e))?,
            created_at: Timestamp::from_millis(self.created_at_ms),
            expires_at: self.expires_at_ms.map(Timestamp::from_millis),
            revoked_at: self.revoked_at_ms.map(Timestamp::from_millis),
            last_used_at: self.last_used_at_ms.map(Timestamp::from_millis),
            label: self.label,
            secret_hash: self.secret_hash,
        })
    }
}
