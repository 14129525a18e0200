//! Order and Order item (spec §2).
//!
//! Built from `shop_domain::order::Order` only: the confidential fields (`signature`,
//! `previousSignature`, `cumulativeTotalTTCSnapshot`, `internalNote`, the payment intent id)
//! live in `OrderConfidential`, which no DTO reads, and have no field here.

use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::order::{Order, OrderItem};
use shop_domain::tax_rate::TaxRate;
use utoipa::ToSchema;

use crate::dto::as_text;
use crate::dto::schemas::{OrderSource, OrderStatus, PaymentStatus, always_null};

/// An order with its complete lines. Amounts are integer cents.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Order)]
pub struct OrderDto<'a> {
    id: &'a str,
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
    payment_method: Option<&'a str>,
    /// `null` while unpaid.
    #[schema(value_type = Option<String>, required = true, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize_optional")]
    paid_at: Option<Timestamp>,
    // `()` serializes as `null`: the spec shows no customer shape beyond null.
    /// Always `null` in version 1.
    #[schema(schema_with = always_null)]
    customer: (),
    #[schema(required = true)]
    client_id: Option<&'a str>,
    items: Vec<OrderItemDto<'a>>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    updated_at: Timestamp,
}

/// One line of an order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OrderItem)]
struct OrderItemDto<'a> {
    id: &'a str,
    product_id: &'a str,
    variant_id: &'a str,
    product_name: &'a str,
    unit_price_cents: i64,
    quantity: i64,
    total_cents: i64,
    /// VAT rate, a decimal string with two decimals (`"20.00"`, `"5.50"`), never a number.
    #[schema(value_type = String, pattern = r"^(100\.00|[1-9]?[0-9]\.[0-9]{2})$", examples("20.00"))]
    #[serde(serialize_with = "as_text::serialize")]
    tax_rate: TaxRate,
    tax_amount_cents: i64,
    // Like `customer`: the spec shows no refund shape beyond null.
    /// Always `null` in version 1.
    #[schema(schema_with = always_null)]
    refunded: (),
}

impl<'a> From<&'a Order> for OrderDto<'a> {
    fn from(order: &'a Order) -> Self {
        Self {
            id: order.id.as_str(),
            order_number: order.order_number,
            source: order.source.as_str(),
            status: order.status.as_str(),
            payment_status: order.payment_status.as_str(),
            subtotal_cents: order.subtotal.get(),
            discount_amount_cents: order.discount_amount.get(),
            tax_amount_cents: order.tax_amount.get(),
            total_cents: order.total.get(),
            payment_method: order.payment_method.as_deref(),
            paid_at: order.paid_at,
            customer: (),
            client_id: order.client_id.as_ref().map(|id| id.as_str()),
            items: order.items.iter().map(OrderItemDto::from).collect(),
            created_at: order.created_at,
            updated_at: order.updated_at,
        }
    }
}

impl<'a> From<&'a OrderItem> for OrderItemDto<'a> {
    fn from(item: &'a OrderItem) -> Self {
        Self {
            id: item.id.as_str(),
            product_id: item.product_id.as_str(),
            variant_id: item.variant_id.as_str(),
            product_name: &item.product_name,
            unit_price_cents: item.unit_price.get(),
            quantity: item.quantity,
            total_cents: item.total.get(),
            tax_rate: item.tax_rate,
            tax_amount_cents: item.tax_amount.get(),
            refunded: (),
        }
    }
}
