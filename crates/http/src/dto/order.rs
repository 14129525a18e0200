//! Order and Order item (spec §2).
//!
//! Built from `shop_domain::order::Order` only: the confidential fields (`signature`,
//! `previousSignature`, `cumulativeTotalTTCSnapshot`, `internalNote`, the payment intent id)
//! live in `OrderConfidential`, which no DTO reads, and have no field here.

use serde::Serialize;
use shop_domain::order::{Order, OrderItem};
use utoipa::ToSchema;

use crate::openapi::schemas::{OrderSource, OrderStatus, PaymentStatus, always_null};

/// An order with its complete lines. Amounts are integer cents.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Order)]
pub struct OrderDto {
    id: String,
    order_number: i64,
    #[schema(value_type = OrderSource)]
    source: &'static str,
    #[schema(value_type = OrderStatus)]
    status: &'static str,
    #[schema(value_type = PaymentStatus)]
    payment_status: &'static str,
    subtotal_cents: i64,
    discount_amount_cents: i64,
    tax_amount_cents: i64,
    total_cents: i64,
    /// `null` while unpaid.
    #[schema(required = true)]
    payment_method: Option<String>,
    /// `null` while unpaid.
    #[schema(required = true, format = DateTime)]
    paid_at: Option<String>,
    // `()` serializes as `null`: the spec shows no customer shape beyond null.
    /// Always `null` in version 1.
    #[schema(schema_with = always_null)]
    customer: (),
    #[schema(required = true)]
    client_id: Option<String>,
    items: Vec<OrderItemDto>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// One line of an order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OrderItem)]
struct OrderItemDto {
    id: String,
    product_id: String,
    variant_id: String,
    product_name: String,
    unit_price_cents: i64,
    quantity: i64,
    total_cents: i64,
    /// VAT rate, a decimal string with two decimals (`"20.00"`, `"5.50"`), never a number.
    #[schema(pattern = r"^(100\.00|[1-9]?[0-9]\.[0-9]{2})$", examples("20.00"))]
    tax_rate: String,
    tax_amount_cents: i64,
    // Like `customer`: the spec shows no refund shape beyond null.
    /// Always `null` in version 1.
    #[schema(schema_with = always_null)]
    refunded: (),
}

impl From<&Order> for OrderDto {
    fn from(order: &Order) -> Self {
        Self {
            id: order.id.to_string(),
            order_number: order.order_number,
            source: order.source.as_str(),
            status: order.status.as_str(),
            payment_status: order.payment_status.as_str(),
            subtotal_cents: order.subtotal.get(),
            discount_amount_cents: order.discount_amount.get(),
            tax_amount_cents: order.tax_amount.get(),
            total_cents: order.total.get(),
            payment_method: order.payment_method.clone(),
            paid_at: order.paid_at.map(|at| at.to_rfc3339()),
            customer: (),
            client_id: order.client_id.as_ref().map(ToString::to_string),
            items: order.items.iter().map(OrderItemDto::from).collect(),
            created_at: order.created_at.to_rfc3339(),
            updated_at: order.updated_at.to_rfc3339(),
        }
    }
}

impl From<&OrderItem> for OrderItemDto {
    fn from(item: &OrderItem) -> Self {
        Self {
            id: item.id.to_string(),
            product_id: item.product_id.to_string(),
            variant_id: item.variant_id.to_string(),
            product_name: item.product_name.clone(),
            unit_price_cents: item.unit_price.get(),
            quantity: item.quantity,
            total_cents: item.total.get(),
            tax_rate: item.tax_rate.to_string(),
            tax_amount_cents: item.tax_amount.get(),
            refunded: (),
        }
    }
}
