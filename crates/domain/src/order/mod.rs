//! Orders: point of sale, click-and-collect and online (spec §2, §3).

mod date_range;
mod query;
mod states;

pub use date_range::{DateRangeError, parse_date_from, parse_date_to};
pub use query::{OrderListQuery, order_cursor, order_cursor_position};
pub use states::{InvalidState, OrderSource, OrderStatus, PaymentStatus};

use crate::Timestamp;
use crate::id::{ClientId, OrderId, OrderItemId, ProductId, VariantId};
use crate::money::Cents;
use crate::tax_rate::TaxRate;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderItem {
    pub id: OrderItemId,
    pub product_id: ProductId,
    pub variant_id: VariantId,
    pub product_name: String,
    pub unit_price: Cents,
    pub quantity: i64,
    pub total: Cents,
    pub tax_rate: TaxRate,
    pub tax_amount: Cents,
}

/// An order as the API shows it. The confidential fields live in [`OrderConfidential`], a
/// separate type that no response is built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub id: OrderId,
    pub order_number: i64,
    pub source: OrderSource,
    pub status: OrderStatus,
    pub payment_status: PaymentStatus,
    pub subtotal: Cents,
    pub discount_amount: Cents,
    pub tax_amount: Cents,
    pub total: Cents,
    pub payment_method: Option<String>,
    pub paid_at: Option<Timestamp>,
    pub client_id: Option<ClientId>,
    /// In the order given at import (by id when none was given).
    pub items: Vec<OrderItem>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Fiscal and private data of an order: stored, never returned (spec §2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderConfidential {
    pub signature: Option<String>,
    pub previous_signature: Option<String>,
    pub cumulative_total_ttc_snapshot: Option<i64>,
    pub internal_note: Option<String>,
    pub payment_intent_id: Option<String>,
}
