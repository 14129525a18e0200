//! Stock entry and Stock adjustment result (spec §2).

use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::stock::{StockAdjustment, StockEntry};
use utoipa::ToSchema;

use crate::dto::as_text;

/// The stock of one variant.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = StockEntry)]
pub struct StockEntryDto {
    variant_id: String,
    product_id: String,
    product_name: String,
    variant_label: String,
    #[schema(required = true)]
    sku: Option<String>,
    #[schema(required = true)]
    barcode: Option<String>,
    /// Whether the variant's stock is tracked: switched per variant in the owner's console.
    /// Only a tracked variant's stock can be adjusted.
    tracked: bool,
    stock: i64,
    low_stock_threshold: i64,
    /// Tracked and `stock <= lowStockThreshold` (an out-of-stock variant is also low).
    is_low_stock: bool,
    /// Tracked and `stock <= 0`.
    is_out_of_stock: bool,
    /// The variant and its product are both active.
    active: bool,
    /// The last movement of the stock, switch of its tracking, or import that changed this
    /// entry; `updatedSince` filters on it.
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    updated_at: Timestamp,
}

/// The applied adjustment.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = StockAdjustment)]
pub struct StockAdjustmentDto {
    variant_id: String,
    product_id: String,
    /// Stock before the adjustment.
    previous_stock: i64,
    /// Stock after the adjustment; it may be negative.
    new_stock: i64,
    /// The quantity change applied.
    #[schema(minimum = -1_000_000, maximum = 1_000_000)]
    delta: i64,
    /// The id of the stock movement record created.
    movement_id: String,
    #[schema(format = DateTime)]
    applied_at: String,
}

impl From<&StockEntry> for StockEntryDto {
    fn from(entry: &StockEntry) -> Self {
        Self {
            variant_id: entry.variant_id.to_string(),
            product_id: entry.product_id.to_string(),
            product_name: entry.product_name.clone(),
            variant_label: entry.variant_label.clone(),
            sku: entry.sku.clone(),
            barcode: entry.barcode.clone(),
            tracked: entry.tracked,
            stock: entry.stock,
            low_stock_threshold: entry.low_stock_threshold,
            is_low_stock: entry.is_low_stock(),
            is_out_of_stock: entry.is_out_of_stock(),
            active: entry.active,
            updated_at: entry.updated_at,
        }
    }
}

impl From<&StockAdjustment> for StockAdjustmentDto {
    fn from(adjustment: &StockAdjustment) -> Self {
        Self {
            variant_id: adjustment.variant_id.to_string(),
            product_id: adjustment.product_id.to_string(),
            previous_stock: adjustment.previous_stock,
            new_stock: adjustment.new_stock,
            delta: adjustment.delta,
            movement_id: adjustment.movement_id.to_string(),
            applied_at: as_text::rfc3339(adjustment.applied_at),
        }
    }
}
