//! `GET /orders` and `GET /orders/:id`.

use std::sync::Arc;

use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery, order_cursor};
use shop_domain::pagination::{CursorKind, Page};
use shop_domain::sync::changed_cursor;

use super::ReadError;
use crate::port::{Clock, OrderRepository, ReadFrom};

pub struct OrderHistory {
    repository: Arc<dyn OrderRepository>,
    clock: Arc<dyn Clock>,
}

impl OrderHistory {
    pub fn new(repository: Arc<dyn OrderRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { repository, clock }
    }

    /// One page of the shop's orders, read `from` the database named.
    pub async fn list(
        &self,
        shop: &ShopId,
        query: &OrderListQuery,
        from: ReadFrom,
    ) -> Result<Page<Order>, ReadError> {
        let read_started = self.clock.now();
        let rows = self.repository.list_orders(shop, query, from).await?;
        let changed = query.changed.is_some();
        Ok(Page::from_overfetch(rows, query.limit, |order| {
            if changed {
                changed_cursor(
                    CursorKind::OrdersChanged,
                    order.updated_at,
                    order.id.as_str(),
                )
            } else {
                order_cursor(order.created_at, &order.id)
            }
        })
        .read_at(read_started))
    }

    /// One order, read `from` the database named.
    pub async fn get(
        &self,
        shop: &ShopId,
        id: &OrderId,
        from: ReadFrom,
    ) -> Result<Order, ReadError> {
        self.repository
            .find_order(shop, id, from)
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

    const READ_AT: Timestamp = Timestamp::from_millis(1_732_181_400_000);
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
            .returning(|_, _, _| Ok(vec![order("o3", 30), order("o2", 20), order("o1", 10)]));
        let query = OrderListQuery {
            limit: PageLimit::new(2).unwrap(),
            ..OrderListQuery::default()
        };
        let page = OrderHistory::new(
            Arc::new(repository),
            crate::usecase::test_clock::at(READ_AT),
        )
        .list(&ShopId::parse("s").unwrap(), &query, ReadFrom::Primary)
        .await
        .unwrap();
        assert_eq!(page.items.len(), 2);
        let position = order_cursor_position(page.next_cursor.as_deref().unwrap()).unwrap();
        assert_eq!(
            position,
            (Timestamp::from_millis(20), OrderId::parse("o2").unwrap())
        );
    }

    #[tokio::test]
    async fn a_changed_walk_pages_by_update_time_and_every_page_carries_its_checkpoint() {
        let mut repository = MockOrderRepository::new();
        let mut changed = order("o1", 10);
        changed.updated_at = Timestamp::from_millis(500);
        let newer = order("o0", 5);
        repository
            .expect_list_orders()
            .returning(move |_, _, _| Ok(vec![changed.clone(), newer.clone()]));
        let query = OrderListQuery {
            changed: Some(shop_domain::sync::ChangedSince::new(
                Timestamp::from_millis(1),
            )),
            limit: PageLimit::new(1).unwrap(),
            ..OrderListQuery::default()
        };
        let page = OrderHistory::new(
            Arc::new(repository),
            crate::usecase::test_clock::at(READ_AT),
        )
        .list(&ShopId::parse("s").unwrap(), &query, ReadFrom::Primary)
        .await
        .unwrap();
        let cursor = page.next_cursor.as_deref().unwrap();
        assert!(
            order_cursor_position(cursor).is_err(),
            "not a newest-first cursor"
        );
        assert_eq!(
            shop_domain::sync::changed_cursor_position(
                cursor,
                shop_domain::pagination::CursorKind::OrdersChanged,
                |id| OrderId::parse(id).ok()
            ),
            Ok((Timestamp::from_millis(500), OrderId::parse("o1").unwrap()))
        );
        assert_eq!(
            page.synced_at,
            Some(READ_AT.plus_millis(-shop_domain::sync::CHECKPOINT_OVERLAP_MS))
        );
    }
}
