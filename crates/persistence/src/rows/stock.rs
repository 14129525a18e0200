//! Stock rows: a stock list line (a variant joined with its product), a movement, an
//! idempotency record, a tracking switch, and a variant's names for the activity list.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{MovementId, OwnerId, ProductId, TrackingSwitchId, VariantId};
use shop_domain::stock::{
    AdjustmentResult, StockAdjustment, StockEntry, StockMovement, TrackingSwitch, VariantName,
};

use crate::error::DbError;
use crate::schema::{idempotency_records, stock_movements, tracking_switches};

/// One line of `GET /stock`, selected column by column from `variants JOIN products` (see
/// `stock::list_stock` for the select list, in this field order).
#[derive(Queryable)]
pub(crate) struct StockEntryRow {
    pub variant_id: String,
    pub product_id: String,
    pub product_name: String,
    pub variant_label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    /// The variant's own `track_stock`.
    pub track_stock: bool,
    pub stock: i64,
    pub low_stock_threshold: i64,
    pub variant_active: bool,
    pub product_active: bool,
    pub stock_updated_at_ms: i64,
}

impl StockEntryRow {
    pub fn into_domain(self) -> Result<StockEntry, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("variants", &self.variant_id, problem.to_string())
        };
        Ok(StockEntry {
            variant_id: VariantId::parse(self.variant_id.as_str()).map_err(|e| corrupt(&e))?,
            product_id: ProductId::parse(self.product_id.as_str()).map_err(|e| corrupt(&e))?,
            tracked: self.track_stock,
            stock: self.stock,
            low_stock_threshold: self.low_stock_threshold,
            // A variant can be sold only when it and its product both are active.
            active: self.variant_active && self.product_active,
            product_name: self.product_name,
            variant_label: self.variant_label,
            sku: self.sku,
            barcode: self.barcode,
            updated_at: Timestamp::from_millis(self.stock_updated_at_ms),
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = stock_movements, check_for_backend(Sqlite, Pg))]
pub(crate) struct MovementRow {
    pub id: String,
    pub shop_id: String,
    pub variant_id: String,
    pub product_id: String,
    pub delta: i64,
    pub previous_stock: i64,
    pub new_stock: i64,
    pub reason: String,
    pub api_key_prefix: String,
    pub created_at_ms: i64,
}

impl MovementRow {
    pub fn into_domain(self) -> Result<StockMovement, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("stock_movements", &self.id, problem.to_string())
        };
        Ok(StockMovement {
            id: MovementId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            variant_id: VariantId::parse(self.variant_id.as_str()).map_err(|e| corrupt(&e))?,
            product_id: ProductId::parse(self.product_id.as_str()).map_err(|e| corrupt(&e))?,
            api_key_prefix: KeyPrefix::parse(&self.api_key_prefix).map_err(|e| corrupt(&e))?,
            delta: self.delta,
            previous_stock: self.previous_stock,
            new_stock: self.new_stock,
            created_at: Timestamp::from_millis(self.created_at_ms),
            reason: self.reason,
        })
    }

    /// What the adjustment that wrote this movement answered.
    pub fn into_adjustment(self) -> Result<StockAdjustment, DbError> {
        let movement = self.into_domain()?;
        Ok(StockAdjustment {
            variant_id: movement.variant_id,
            product_id: movement.product_id,
            previous_stock: movement.previous_stock,
            new_stock: movement.new_stock,
            delta: movement.delta,
            movement_id: movement.id,
            applied_at: movement.created_at,
        })
    }
}

/// The stored `outcome` of an idempotency record: which `AdjustmentResult` was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecordedOutcome {
    Applied,
    VariantNotFound,
    NotTracked,
    OutOfRange,
}

impl RecordedOutcome {
    pub fn of(result: &AdjustmentResult) -> Self {
        match result {
            AdjustmentResult::Applied(_) => Self::Applied,
            AdjustmentResult::VariantNotFound => Self::VariantNotFound,
            AdjustmentResult::NotTracked => Self::NotTracked,
            AdjustmentResult::OutOfRange => Self::OutOfRange,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::VariantNotFound => "variant_not_found",
            Self::NotTracked => "not_tracked",
            Self::OutOfRange => "out_of_range",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [
            Self::Applied,
            Self::VariantNotFound,
            Self::NotTracked,
            Self::OutOfRange,
        ]
        .into_iter()
        .find(|outcome| outcome.as_str() == text)
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = idempotency_records, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct IdempotencyRow {
    pub api_key_prefix: String,
    pub idempotency_key: String,
    pub fingerprint: String,
    pub outcome: String,
    pub movement_id: Option<String>,
    pub created_at_ms: i64,
    /// A points adjustment's (`rows/loyalty.rs`, `PointsRecord`).
    pub loyalty_adjustment_id: Option<String>,
    /// A create's: the resource created, or the holder of a value claimed (`rows/writes.rs`).
    pub resource_id: Option<String>,
    /// A refused create's: the member whose value another holds.
    pub member: Option<String>,
}

/// What a stored record says to replay.
pub(crate) enum Recorded {
    /// Load this movement: it is the applied result.
    Applied(String),
    /// A rejection, replayed as is.
    Rejected(AdjustmentResult),
}

impl IdempotencyRow {
    pub fn recorded(&self) -> Result<Recorded, DbError> {
        let corrupt = |problem: &str| {
            DbError::corrupt(
                "idempotency_records",
                &format!("{}/{}", self.api_key_prefix, self.idempotency_key),
                problem,
            )
        };
        match (RecordedOutcome::parse(&self.outcome), &self.movement_id) {
            (Some(RecordedOutcome::Applied), Some(movement)) => {
                Ok(Recorded::Applied(movement.clone()))
            }
            (Some(RecordedOutcome::VariantNotFound), None) => {
                Ok(Recorded::Rejected(AdjustmentResult::VariantNotFound))
            }
            (Some(RecordedOutcome::NotTracked), None) => {
                Ok(Recorded::Rejected(AdjustmentResult::NotTracked))
            }
            (Some(RecordedOutcome::OutOfRange), None) => {
                Ok(Recorded::Rejected(AdjustmentResult::OutOfRange))
            }
            (None, _) => Err(corrupt("unknown outcome")),
            (Some(_), _) => Err(corrupt("a movement id goes with `applied` only")),
        }
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = tracking_switches, check_for_backend(Sqlite, Pg))]
pub(crate) struct SwitchRow {
    pub id: String,
    pub shop_id: String,
    pub variant_id: String,
    pub product_id: String,
    pub tracked: bool,
    pub owner_id: String,
    pub created_at_ms: i64,
}

impl SwitchRow {
    pub fn into_domain(self) -> Result<TrackingSwitch, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("tracking_switches", &self.id, problem.to_string())
        };
        Ok(TrackingSwitch {
            id: TrackingSwitchId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            variant_id: VariantId::parse(self.variant_id.as_str()).map_err(|e| corrupt(&e))?,
            product_id: ProductId::parse(self.product_id.as_str()).map_err(|e| corrupt(&e))?,
            owner_id: OwnerId::parse(self.owner_id.as_str()).map_err(|e| corrupt(&e))?,
            tracked: self.tracked,
            at: Timestamp::from_millis(self.created_at_ms),
        })
    }
}

/// How the activity list names a variant, selected as `(products.name, variants.label,
/// variants.sku)`.
#[derive(Queryable)]
pub(crate) struct VariantNameRow {
    pub product_name: String,
    pub variant_label: String,
    pub sku: Option<String>,
}

impl VariantNameRow {
    pub fn into_domain(self) -> VariantName {
        VariantName {
            product_name: self.product_name,
            variant_label: self.variant_label,
            sku: self.sku,
        }
    }
}
