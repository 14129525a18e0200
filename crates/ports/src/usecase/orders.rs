//! `GET /orders` and `GET /orders/:id`.

use std::sync::Arc;

use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery, order_cursor};
use shop_domain::pagination::Page;

use super::ReadError;
use crate::port::OrderRepository;

pub struct OrderHistory {
    repository: Arc<dyn OrderRepository>,
}

impl OrderHistory {
    pub fn new(repository: Arc<dyn OrderRepository>) -> Self {
        Self { repository }
    }

    pub async fn list(
        &self,
        shop: &ShopId,
        query: &OrderListQuery,
    ) -> Result<Page<Order>, ReadError> {
        let rows = self.repository.list_orders(shop, query).await?;
        Ok(Page::from_overfetch(rows, query.limit, |order| {
            order_cursor(order.created_at, &order.id)
        }))
    }

    pub async fn get(&self, shop: &ShopId, id: &OrderId) -> Result<Order, ReadError> {
        self.repository
            .find_order(shop, id)
            .await?
            .ok_or(ReadError::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;
    use shop_domain::money::Cents;
    use shop_domain::order::{OrderSource, OrderStatus, PaymentStatus, order_cursor_position};
    use shop_domain::pagination::PageLimit;

    use super::*;
    use crate::port::MockOrderRepository;

    fn order(id: &str, at: i64) -> Order {
        Order {
            id: OrderId::parse(id).unwrap(),
            order_number: at,
            source: OrderSource::Pos,
            status: OrderStatus::Completed,
            payment_status: PaymentStatus::Paid,
            subtotal: Cents(100),
            discount_amount: Cents(0),
            tax_amount: Cents(17),
            total: Cents(100),
            payment_method: Some("card".into()),
            paid_at: Some(Timestamp::from_millis(at)),
            client_id: None,
            items: vec![],
            created_at: Timestamp::from_millis(at),
            updated_at: Timestamp::from_millis(at),
        }
    }

    #[tokio::test]
    async fn the_cursor_points_at_the_last_kept_order_by_time_and_id() {
        let mut repository = MockOrderRepository::new();
        repository
            .expect_list_orders()
            .returning(|_, _| Ok(vec![order("o3", 30), order("o2", 20), order("o1", 10)]));
        let query = OrderListQuery {
            limit: PageLimit::new(2).unwrap(),
            ..OrderListQuery::default()
        };
        let page = OrderHistory::new(Arc::new(repository))
            .list(&ShopId::parse("s").unwrap(), &query)
            .await
            .unwrap();
        assert_eq!(page.items.len(), 2);
        let position = order_cursor_position(page.next_cursor.as_deref().unwrap()).unwrap();
        assert_eq!(
            position,
            (Timestamp::from_millis(20), OrderId::parse("o2").unwrap())
        );
    }
}
