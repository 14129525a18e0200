//! Reading orders: the list page (newest first, or changed since a time by `updatedAt`) and
//! one order. Both go through
//! [`OrderQueries::load_orders`], which costs one statement whatever the number of orders and
//! items: the orders with their items by LEFT JOIN, the page's orders chosen by a subquery so
//! that its `LIMIT` counts orders, not items. One statement rather than two halves the
//! database's per-statement work (parse, bind, snapshot, executor start) on PostgreSQL and
//! the hops to SQLite's thread (see docs/PERFORMANCE.md).
//!
//! Only [`SelectedOrder`]'s columns are selected: the confidential ones (signatures, internal
//! note, payment intent) never leave the database on this path.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_async::{AsyncConnectionCore, AsyncPgConnection, RunQueryDsl};
use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery};
use shop_ports::StoreError;
use shop_ports::port::OrderRepository;

use crate::by_parent::{by_parent, by_parent_on_sqlite};
use crate::database::{
    BackendOf, Database, SqliteConn, SqliteOn, SqliteRunner, impl_for_each_backend, with_read_conn,
};
use crate::error::DbError;
use crate::first_rows::{FirstRows, first_rows, in_first_rows};
use crate::one_of::one_of;
use crate::rows::{SelectedOrder, SelectedOrderItem};
use crate::schema::{order_items, orders};
use crate::selection::OwnedSelection;

/// Which orders to load; either way newest first, by `(created_at, id)` descending.
pub(crate) type OrderSelection<'a> = crate::selection::Selection<'a, OrderListQuery, OrderId>;

/// Queries shared by the API's reads and the import, implemented for both backends'
/// connections so that the import can run them inside its transaction.
pub(crate) trait OrderQueries: OrderPageIds {
    /// The shop's selected orders, each with all its items in list order.
    fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> impl Future<Output = Result<Vec<Order>, DbError>> + Send;
}

/// The one statement of [`OrderQueries::load_orders`], boxed for the backend of connection type
/// `$conn`: written once, expanded where each backend runs it.
macro_rules! orders_with_items {
    ($conn:ty, $shop:expr, $selection:expr) => {{
        let shop: &ShopId = $shop;
        let query = orders::table
            .left_join(
                order_items::table.on(order_items::order_id
                    .eq(orders::id)
                    .and(order_items::shop_id.eq(orders::shop_id))),
            )
            .filter(orders::shop_id.eq(shop.as_str()))
            .select((
                <SelectedOrder as Selectable<BackendOf<$conn>>>::construct_selection(),
                <SelectedOrderItem as Selectable<BackendOf<$conn>>>::construct_selection()
                    .nullable(),
            ))
            .order((
                orders::created_at_ms.desc(),
                orders::id.desc(),
                order_items::position.asc(),
            ))
            .into_boxed();
        match $selection {
            OrderSelection::Page(page) => {
                let query = query.filter(in_first_rows(
                    orders::id,
                    <$conn as OrderPageIds>::page_ids(shop, page),
                ));
                if page.changed.is_some() {
                    query.order((
                        orders::updated_at_ms.asc(),
                        orders::id.asc(),
                        order_items::position.asc(),
                    ))
                } else {
                    query
                }
            }
            OrderSelection::Ids(ids) => query.filter(one_of(orders::id, ids)),
        }
    }};
}

impl OrderQueries for AsyncPgConnection {
    async fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> Result<Vec<Order>, DbError> {
        let query = orders_with_items!(Self, shop, selection);
        let rows: Vec<OrderWithItem> = query.load(self).await?;
        by_parent(
            rows.into_iter().map(Ok),
            |order: &SelectedOrder| &order.id,
            SelectedOrderItem::into_domain,
            SelectedOrder::into_domain,
        )
    }
}

impl<R: SqliteRunner> OrderQueries for SqliteOn<R> {
    /// Where the connection runs its statements (the calling thread, for a reader), with diesel's
    /// synchronous connection: each value is decoded once, straight from SQLite, an order's only
    /// on its first row, and the orders are assembled there. Through the async wrapper's
    /// `load`, every value was copied into an owned row on that thread, then decoded again on
    /// the worker (docs/PERFORMANCE.md, "SQLite's list pages against their own database").
    async fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> Result<Vec<Order>, DbError> {
        let shop = shop.clone();
        let selection = OwnedSelection::from(selection);
        self.spawn_blocking(move |conn| {
            let query = orders_with_items!(SqliteConn, &shop, selection.borrowed());
            Ok(by_parent_on_sqlite(
                conn,
                query,
                |order: &SelectedOrder| &order.id,
                SelectedOrderItem::into_domain,
                SelectedOrder::into_domain,
            ))
        })
        .await?
    }
}

/// A list page's order ids, newest first, `limit + 1` of them or a few more (`first_rows.rs`),
/// as the subquery of the one statement that reads them with their items. Built per backend: a
/// boxed query names its backend.
pub(crate) trait OrderPageIds: AsyncConnectionCore {
    fn page_ids<'a>(
        shop: &'a ShopId,
        page: &'a OrderListQuery,
    ) -> OrderPageOfIds<'a, <Self as AsyncConnectionCore>::Backend>;
}

type OrderPageOfIds<'a, DB> = FirstRows<orders::BoxedQuery<'a, DB, Text>>;

impl_for_each_backend! {
    impl OrderPageIds {
        fn page_ids<'a>(
            shop: &'a ShopId,
            page: &'a OrderListQuery,
        ) -> OrderPageOfIds<'a, <Self as AsyncConnectionCore>::Backend> {
            let mut query = orders::table
                .select(orders::id)
                .filter(orders::shop_id.eq(shop.as_str()))
                .into_boxed();
            query = match &page.changed {
                None => {
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
                    query.order((orders::created_at_ms.desc(), orders::id.desc()))
                }
                // `updatedSince`: the walk is (shop_id, updated_at_ms, id), in order.
                Some(changed) => {
                    query = query.filter(orders::updated_at_ms.ge(changed.since.millis()));
                    if let Some((at, id)) = &changed.after {
                        query = query.filter(orders::updated_at_ms.ge(at.millis())).filter(
                            orders::updated_at_ms
                                .gt(at.millis())
                                .or(orders::id.gt(id.as_str())),
                        );
                    }
                    query.order((orders::updated_at_ms.asc(), orders::id.asc()))
                }
            };
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
            first_rows(query, page.limit.get() + 1)
        }
    }
}

/// An order, and one of its items if it has any.
type OrderWithItem = (SelectedOrder, Option<SelectedOrderItem>);

#[async_trait]
impl OrderRepository for Database {
    async fn list_orders(
        &self,
        shop: &ShopId,
        query: &OrderListQuery,
    ) -> Result<Vec<Order>, StoreError> {
        let mut orders = with_read_conn!(self, |conn| conn
            .load_orders(shop, OrderSelection::Page(query))
            .await)?;
        // The statement may read a few more than asked for (first_rows.rs).
        orders.truncate(query.limit.get() + 1);
        Ok(orders)
    }

    async fn find_order(&self, shop: &ShopId, id: &OrderId) -> Result<Option<Order>, StoreError> {
        let mut found = with_read_conn!(self, |conn| conn
            .load_orders(shop, OrderSelection::Ids(std::slice::from_ref(id)))
            .await)?;
        Ok(found.pop())
    }
}
