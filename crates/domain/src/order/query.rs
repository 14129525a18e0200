//! What `GET /orders` selects: newest first, by `(createdAt, id)` descending; or, with
//! `updatedSince`, the orders changed since then by `(updatedAt, id)` ascending.

use crate::Timestamp;
use crate::id::{ClientId, OrderId};
use crate::order::{OrderSource, OrderStatus, PaymentStatus};
use crate::pagination::{Cursor, CursorKind, InvalidCursor, PageLimit};
use crate::sync::ChangedSince;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderListQuery {
    pub status: Option<OrderStatus>,
    pub payment_status: Option<PaymentStatus>,
    pub source: Option<OrderSource>,
    pub client_id: Option<ClientId>,
    /// Inclusive bounds on `created_at`.
    pub created_from: Option<Timestamp>,
    pub created_to: Option<Timestamp>,
    /// Only orders strictly before this `(created_at, id)` position in list order.
    pub before: Option<(Timestamp, OrderId)>,
    /// `updatedSince`: walk the orders changed since then instead (`before` is then unused).
    pub changed: Option<ChangedSince<OrderId>>,
    pub limit: PageLimit,
}

impl Default for OrderListQuery {
    fn default() -> Self {
        Self {
            status: None,
            payment_status: None,
            source: None,
            client_id: None,
            created_from: None,
            created_to: None,
            before: None,
            changed: None,
            limit: PageLimit::ORDERS_DEFAULT,
        }
    }
}

pub fn order_cursor(created_at: Timestamp, id: &OrderId) -> Cursor {
    Cursor::new(
        CursorKind::Orders,
        vec![created_at.millis().to_string(), id.as_str().to_owned()],
    )
}

pub fn order_cursor_position(text: &str) -> Result<(Timestamp, OrderId), InvalidCursor> {
    let cursor = Cursor::decode(text, CursorKind::Orders)?;
    match cursor.parts() {
        [millis, id] => {
            let millis: i64 = millis.parse().map_err(|_| InvalidCursor)?;
            let id = OrderId::parse(id.as_str()).map_err(|_| InvalidCursor)?;
            Ok((Timestamp::from_millis(millis), id))
        }
        _ => Err(InvalidCursor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_cursor_round_trips() {
        let id = OrderId::parse("ord_9").unwrap();
        let at = Timestamp::from_millis(1_732_181_400_123);
        assert_eq!(
            order_cursor_position(&order_cursor(at, &id).encode()),
            Ok((at, id))
        );
    }

    #[test]
    fn a_products_cursor_is_not_an_orders_cursor() {
        let products = crate::catalogue::product_cursor(&crate::id::ProductId::parse("p").unwrap());
        assert_eq!(
            order_cursor_position(&products.encode()),
            Err(InvalidCursor)
        );
    }
}
