//! Stock per variant: the stock list and adjustments (spec §2 Stock entry, Stock adjustment
//! result; §3: only tracked variants may be adjusted).

mod activity;
mod adjustment;
mod entry;
mod idempotency;

pub use activity::{ActivityPosition, ActivityQuery, StockActivity, TrackingSwitch, VariantName};
pub use adjustment::{
    AdjustmentProblem, AdjustmentReason, AdjustmentRequest, AdjustmentResult, MAX_ABS_QUANTITY,
    MAX_ABS_STOCK, MAX_REASON_LEN, RequestedVariant, StockAdjustment, StockDelta, StockMovement,
    stock_in_range,
};
pub use entry::{
    StockEntry, StockListQuery, stock_cursor, stock_cursor_position, stock_entry_changed,
    stock_search_text,
};
pub use idempotency::{IDEMPOTENCY_RETENTION_MILLIS, IdempotencyKey, InvalidIdempotencyKey};
