//! Order rows: the public columns as written ([`OrderRow`]) and as the API's reads select them
//! ([`SelectedOrder`]), the confidential ones ([`OrderConfidentialRow`], read only by the
//! import to compare), and the items ([`OrderItemRow`], [`SelectedOrderItem`]), kept in the
//! order's list order by `position`.

use std::cmp::Ordering;

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::id::{ClientId, OrderId, OrderItemId, ProductId, ShopId, VariantId};
use shop_domain::money::Cents;
use shop_domain::order::{Order, OrderConfidential, OrderItem};
use shop_domain::tax_rate::TaxRate;

use crate::error::DbError;
use crate::schema::{order_items, orders};
use crate::sql::parents_then_children::ChildRow;

/// The public columns of an order, as written. As a changeset, `None` writes NULL.
#[derive(Insertable, AsChangeset)]
#[diesel(table_name = orders)]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct OrderRow {
    pub id: String,
    pub shop_id: String,
    pub order_number: i64,
    pub source: String,
    pub status: String,
    pub payment_status: String,
    pub subtotal_cents: i64,
    pub discount_amount_cents: i64,
    pub tax_amount_cents: i64,
    pub total_cents: i64,
    pub payment_method: Option<String>,
    pub paid_at_ms: Option<i64>,
    pub client_id: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl OrderRow {
    pub fn from_domain(shop: &ShopId, order: &Order) -> Self {
        Self {
            id: order.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            order_number: order.order_number,
            source: order.source.as_str().to_owned(),
            status: order.status.as_str().to_owned(),
            payment_status: order.payment_status.as_str().to_owned(),
            subtotal_cents: order.subtotal.get(),
            discount_amount_cents: order.discount_amount.get(),
            tax_amount_cents: order.tax_amount.get(),
            total_cents: order.total.get(),
            payment_method: order.payment_method.clone(),
            paid_at_ms: order.paid_at.map(Timestamp::millis),
            client_id: order.client_id.as_ref().map(|id| id.as_str().to_owned()),
            created_at_ms: order.created_at.millis(),
            updated_at_ms: order.updated_at.millis(),
        }
    }
}

/// What a read selects of an order: [`OrderRow`]'s columns but the shop's id, which the
/// query filters on and need not read back (one text value less to decode per row).
#[derive(Queryable, Selectable)]
#[diesel(table_name = orders, check_for_backend(Sqlite, Pg))]
pub(crate) struct SelectedOrder {
    pub id: String,
    pub order_number: i64,
    pub source: String,
    pub status: String,
    pub payment_status: String,
    pub subtotal_cents: i64,
    pub discount_amount_cents: i64,
    pub tax_amount_cents: i64,
    pub total_cents: i64,
    pub payment_method: Option<String>,
    pub paid_at_ms: Option<i64>,
    pub client_id: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl SelectedOrder {
    /// The order, given its items in list order.
    pub fn into_domain(self, items: Vec<OrderItem>) -> Result<Order, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("orders", &self.id, problem.to_string());
        Ok(Order {
            id: OrderId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            source: self.source.parse().map_err(|e| corrupt(&e))?,
            status: self.status.parse().map_err(|e| corrupt(&e))?,
            payment_status: self.payment_status.parse().map_err(|e| corrupt(&e))?,
            client_id: self
                .client_id
                .map(ClientId::parse)
                .transpose()
                .map_err(|e| corrupt(&e))?,
            order_number: self.order_number,
            subtotal: Cents(self.subtotal_cents),
            discount_amount: Cents(self.discount_amount_cents),
            tax_amount: Cents(self.tax_amount_cents),
            total: Cents(self.total_cents),
            paid_at: self.paid_at_ms.map(Timestamp::from_millis),
            created_at: Timestamp::from_millis(self.created_at_ms),
            updated_at: Timestamp::from_millis(self.updated_at_ms),
            payment_method: self.payment_method,
            items,
        })
    }
}

/// The confidential columns (spec §2: never returned).
#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = orders, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct OrderConfidentialRow {
    pub signature: Option<String>,
    pub previous_signature: Option<String>,
    pub cumulative_total_ttc_snapshot: Option<i64>,
    pub internal_note: Option<String>,
    pub payment_intent_id: Option<String>,
}

impl OrderConfidentialRow {
    pub fn from_domain(confidential: &OrderConfidential) -> Self {
        Self {
            signature: confidential.signature.clone(),
            previous_signature: confidential.previous_signature.clone(),
            cumulative_total_ttc_snapshot: confidential.cumulative_total_ttc_snapshot,
            internal_note: confidential.internal_note.clone(),
            payment_intent_id: confidential.payment_intent_id.clone(),
        }
    }

    pub fn into_domain(self) -> OrderConfidential {
        OrderConfidential {
            signature: self.signature,
            previous_signature: self.previous_signature,
            cumulative_total_ttc_snapshot: self.cumulative_total_ttc_snapshot,
            internal_note: self.internal_note,
            payment_intent_id: self.payment_intent_id,
        }
    }
}

/// An item of an order, as written.
#[derive(Insertable)]
#[diesel(table_name = order_items)]
pub(crate) struct OrderItemRow {
    pub id: String,
    pub shop_id: String,
    pub order_id: String,
    pub position: i32,
    pub product_id: String,
    pub variant_id: String,
    pub product_name: String,
    pub unit_price_cents: i64,
    pub quantity: i64,
    pub total_cents: i64,
    pub tax_rate_hundredths: i64,
    pub tax_amount_cents: i64,
}

impl OrderItemRow {
    /// The item at `position` in the order's list.
    pub fn from_domain(
        shop: &ShopId,
        order: &OrderId,
        position: usize,
        item: &OrderItem,
    ) -> Result<Self, DbError> {
        let position = i32::try_from(position).map_err(|e| {
            DbError::Invariant(format!("order {order} has too many items to store: {e}"))
        })?;
        Ok(Self {
            id: item.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            order_id: order.as_str().to_owned(),
            position,
            product_id: item.product_id.as_str().to_owned(),
            variant_id: item.variant_id.as_str().to_owned(),
            product_name: item.product_name.clone(),
            unit_price_cents: item.unit_price.get(),
            quantity: item.quantity,
            total_cents: item.total.get(),
            tax_rate_hundredths: item.tax_rate.hundredths(),
            tax_amount_cents: item.tax_amount.get(),
        })
    }
}

/// What a read selects of an item: [`OrderItemRow`]'s columns but the shop's and the order's
/// ids and the position, which only join and order the query's result.
#[derive(Queryable, Selectable)]
#[diesel(table_name = order_items, check_for_backend(Sqlite, Pg))]
pub(crate) struct SelectedOrderItem {
    pub id: String,
    pub product_id: String,
    pub variant_id: String,
    pub product_name: String,
    pub unit_price_cents: i64,
    pub quantity: i64,
    pub total_cents: i64,
    pub tax_rate_hundredths: i64,
    pub tax_amount_cents: i64,
}

/// An item read apart from its order (`parents_then_children.rs`): with the order's id, and
/// its position among the order's items.
#[derive(Queryable, Selectable)]
#[diesel(table_name = order_items, check_for_backend(Sqlite, Pg))]
pub(crate) struct ItemOfOrder {
    pub order_id: String,
    pub position: i32,
    #[diesel(embed)]
    pub item: SelectedOrderItem,
}

impl ItemOfOrder {
    pub fn into_domain(self) -> Result<OrderItem, DbError> {
        self.item.into_domain()
    }
}

impl ChildRow for ItemOfOrder {
    fn parent_id(&self) -> &str {
        &self.order_id
    }

    fn order(&self, other: &Self) -> Ordering {
        self.position.cmp(&other.position)
    }
}

impl SelectedOrderItem {
    pub fn into_domain(self) -> Result<OrderItem, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("order_items", &self.id, problem.to_string());
        Ok(OrderItem {
            id: OrderItemId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            product_id: ProductId::parse(self.product_id).map_err(|e| corrupt(&e))?,
            variant_id: VariantId::parse(self.variant_id).map_err(|e| corrupt(&e))?,
            tax_rate: TaxRate::from_hundredths(self.tax_rate_hundredths)
                .map_err(|e| corrupt(&e))?,
            unit_price: Cents(self.unit_price_cents),
            quantity: self.quantity,
            total: Cents(self.total_cents),
            tax_amount: Cents(self.tax_amount_cents),
            product_name: self.product_name,
        })
    }
}
