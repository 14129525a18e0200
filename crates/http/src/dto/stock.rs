//! Stock entry and Stock adjustment result (spec §2).

use serde::Serialize;
use shop_domain::stock::{StockAdjustment, StockEntry};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StockEntryDto {
    variant_id: String,
    product_id: String,
    product_name: String,
    variant_label: String,
    sku: Option<String>,
    barcode: Option<String>,
    tracked: bool,
    stock: i64,
    low_stock_threshold: i64,
    /// Tracked and at or below the threshold (the domain's rule).
    is_low_stock: bool,
    /// Tracked and at or below zero (the domain's rule).
    is_out_of_stock: bool,
    active: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StockAdjustmentDto {
    variant_id: String,
    product_id: String,
    previous_stock: i64,
    new_stock: i64,
    delta: i64,
    movement_id: String,
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
            applied_at: adjustment.applied_at.to_rfc3339(),
        }
    }
}
