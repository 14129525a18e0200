//! Reading orders: the list page and one order. Both go through
//! [`OrderQueries::load_orders`], which costs exactly two queries whatever the number of orders
//! and items: one for the orders, one for the items of all of them. No N+1.
//!
//! Only [`SelectedOrder`]'s columns are selected: the confidential ones (signatures, internal
//! note, payment intent) never leave the database on this path.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderItem, OrderListQuery};
use shop_ports::StoreError;
use shop_ports::port::OrderRepository;

use crate::database::{Database, impl_for_each_backend, with_conn};
use crate::error::DbError;
use crate::one_of::one_of;
use crate::rows::{SelectedOrder, SelectedOrderItem};
use crate::schema::{order_items, orders};

/// Which orders to load; either way newest first, by `(created_at, id)` descending.
#[derive(Clone, Copy)]
pub(crate) enum OrderSelection<'a> {
    /// A list page: the query's filters, after its keyset position, at most `limit + 1`.
    Page(&'a OrderListQuery),
    /// These ids (missing ones are skipped).
    Ids(&'a [String]),
}

/// Queries shared by the API's reads and the import, implemented for both backends'
/// connections so that the import can run them inside its transaction.
pub(crate) trait OrderQueries {
    /// The shop's selected orders, each with all its items in list order.
    fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> impl Future<Output = Result<Vec<Order>, DbError>> + Send;
}

impl_for_each_backend! {
    impl OrderQueries {
        async fn load_orders(
            &mut self,
            shop: &ShopId,
            selection: OrderSelection<'_>,
        ) -> Result<Vec<Order>, DbError> {
            let mut query = orders::table
                .filter(orders::shop_id.eq(shop.as_str()))
                .select(SelectedOrder::as_select())
                .order((orders::created_at_ms.desc(), orders::id.desc()))
                .into_boxed();
            match selection {
                OrderSelection::Page(page) => {
                    if let Some(status) = page.status {
                        query = query.filter(orders::status.eq(status.as_str()));
                    }
                    if let Some(payment_status) = page.payment_status {
                        query = query.filter(orders::payment_status.eq(payment_status.as_str()));
                    }
                    if let Some(source) = page.source {
                        query = query.filter(orders::source.eq(source.as_str()));
                    }
                    if let Some(client) = &page.client_id {
                        query = query.filter(orders::client_id.eq(client.as_str()));
                    }
                    if let Some(from) = page.created_from {
                        query = query.filter(orders::created_at_ms.ge(from.millis()));
                    }
                    if let Some(to) = page.created_to {
                        query = query.filter(orders::created_at_ms.le(to.millis()));
                    }
                    if let Some((at, id)) = &page.before {
                        // Strictly after the cursor's row in list order. The first bound is
                        // implied by the second, but only it is an index range: PostgreSQL does
                        // not turn the OR into one and would read every row newer than the
                        // cursor (500,000 index entries for a page 500,000 rows deep).
                        query = query.filter(orders::created_at_ms.le(at.millis())).filter(
                            orders::created_at_ms.lt(at.millis()).or(orders::created_at_ms
                                .eq(at.millis())
                                .and(orders::id.lt(id.as_str()))),
                        );
                    }
                    let overfetch = i64::try_from(page.limit.get() + 1).unwrap_or(i64::MAX);
                    query = query.limit(overfetch);
                }
                OrderSelection::Ids(ids) => {
                    query = query.filter(one_of(orders::id, ids));
                }
            }
            let rows: Vec<SelectedOrder> = query.load(&mut *self).await?;
            if rows.is_empty() {
                return Ok(Vec::new());
            }
            let ids: Vec<&str> = rows.iter().map(|row| row.id.as_str()).collect();
            let item_rows: Vec<SelectedOrderItem> = order_items::table
                .filter(order_items::shop_id.eq(shop.as_str()))
                .filter(one_of(order_items::order_id, &ids))
                .order((order_items::order_id.asc(), order_items::position.asc()))
                .select(SelectedOrderItem::as_select())
                .load(&mut *self)
                .await?;
            assemble(rows, item_rows)
        }
    }
}

/// Attaches the items to their orders, keeping the orders' own order. The query returns each
/// order's items together, in list order; the groups themselves come in the database's
/// collation, which need not be Rust's byte order, so they are sorted here before the
/// lookups. A page has at most 101 orders: a sorted `Vec` needs neither a hash nor a copy of
/// each item's order id, as a map did.
fn assemble(
    rows: Vec<SelectedOrder>,
    item_rows: Vec<SelectedOrderItem>,
) -> Result<Vec<Order>, DbError> {
    let mut groups: Vec<(String, Vec<OrderItem>)> = Vec::with_capacity(rows.len());
    for mut row in item_rows {
        match groups.last_mut() {
            Some((order_id, items)) if *order_id == row.order_id => items.push(row.into_domain()?),
            _ => {
                let order_id = std::mem::take(&mut row.order_id);
                groups.push((order_id, vec![row.into_domain()?]));
            }
        }
    }
    groups.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
    rows.into_iter()
        .map(|row| {
            let items = groups
                .binary_search_by(|(order_id, _)| order_id.as_str().cmp(&row.id))
                .map(|found| std::mem::take(&mut groups[found].1))
                .unwrap_or_default();
            row.into_domain(items)
        })
        .collect()
}

#[async_trait]
impl OrderRepository for Database {
    async fn list_orders(
        &self,
        shop: &ShopId,
        query: &OrderListQuery,
    ) -> Result<Vec<Order>, StoreError> {
        Ok(with_conn!(self, |conn| conn
            .load_orders(shop, OrderSelection::Page(query))
            .await)?)
    }

    async fn find_order(&self, shop: &ShopId, id: &OrderId) -> Result<Option<Order>, StoreError> {
        let ids = [id.as_str().to_owned()];
        let mut found = with_conn!(self, |conn| conn
            .load_orders(shop, OrderSelection::Ids(&ids))
            .await)?;
        Ok(found.pop())
    }
}
