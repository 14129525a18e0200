//! Reading orders: the list page (newest first, or changed since a time by `updatedAt`) and
//! one order. Both go through [`OrderQueries::load_orders`], which costs one statement
//! whatever the number of orders and items: the page's orders, then their items, found by the
//! page's ids (`parents_then_children.rs`). One statement rather than two saves PostgreSQL a
//! round of parse, bind and snapshot, and SQLite's reader a step (see docs/PERFORMANCE.md).
//!
//! Only [`SelectedOrder`]'s columns are selected: the confidential ones (signatures, internal
//! note, payment intent) never leave the database on this path.

use async_trait::async_trait;
use diesel::connection::DefaultLoadingMode;
use diesel::prelude::*;
use diesel_async::{AsyncConnectionCore, AsyncPgConnection, RunQueryDsl};
use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery};
use shop_ports::StoreError;
use shop_ports::port::OrderRepository;

use crate::database::{
    BackendOf, Database, SqliteConn, SqliteOn, SqliteRunner, impl_for_each_backend, with_read_conn,
};
use crate::error::DbError;
use crate::first_rows::{first_rows, in_first_rows};
use crate::one_of::one_of;
use crate::parents_then_children::{assemble, nulls, parents_then_children};
use crate::rows::{SelectedOrder, SelectedOrderItem};
use crate::schema::{order_items, orders};
use crate::selection::OwnedSelection;

/// Which orders to load; either way newest first, by `(created_at, id)` descending.
pub(crate) type OrderSelection<'a> = crate::selection::Selection<'a, OrderListQuery, OrderId>;

/// Queries shared by the API's reads and the import, implemented for both backends'
/// connections so that the import can run them inside its transaction.
pub(crate) trait OrderQueries: OrderPage {
    /// The shop's selected orders, each with all its items in list order.
    fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> impl Future<Output = Result<Vec<Order>, DbError>> + Send;
}

/// The one statement of [`OrderQueries::load_orders`], boxed for the backend of connection type
/// `$conn`: written once, expanded where each backend runs it. The orders, in list order, then
/// their items (`parents_then_children.rs`).
macro_rules! orders_then_items {
    ($conn:ty, $shop:expr, $selection:expr) => {{
        let shop: &ShopId = $shop;
        let orders_columns = (
            <SelectedOrder as Selectable<BackendOf<$conn>>>::construct_selection().nullable(),
            nulls::<SelectedOrderItem, BackendOf<$conn>>(),
        );
        let items = order_items::table
            .filter(order_items::shop_id.eq(shop.as_str()))
            .select((
                nulls::<SelectedOrder, BackendOf<$conn>>(),
                <SelectedOrderItem as Selectable<BackendOf<$conn>>>::construct_selection()
                    .nullable(),
            ))
            .into_boxed();
        match $selection {
            OrderSelection::Page(page) => {
                let count = page.limit.get() + 1;
                let orders = <$conn as OrderPage>::page(shop, page).select(orders_columns);
                let ids = <$conn as OrderPage>::page(shop, page).select(orders::id);
                parents_then_children(
                    first_rows(orders, count),
                    items.filter(in_first_rows(order_items::order_id, first_rows(ids, count))),
                )
            }
            OrderSelection::Ids(ids) => {
                let orders = orders::table
                    .filter(orders::shop_id.eq(shop.as_str()))
                    .filter(one_of(orders::id, ids))
                    .order((orders::created_at_ms.desc(), orders::id.desc()))
                    .select(orders_columns)
                    .into_boxed();
                parents_then_children(
                    first_rows(orders, ids.len()),
                    items.filter(one_of(order_items::order_id, ids)),
                )
            }
        }
    }};
}

impl OrderQueries for AsyncPgConnection {
    async fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> Result<Vec<Order>, DbError> {
        let query = orders_then_items!(Self, shop, selection);
        let rows: Vec<OrderOrItem> = query.load(self).await?;
        assemble(
            rows.into_iter().map(Ok),
            |order: &SelectedOrder| &order.id,
            SelectedOrderItem::into_domain,
            SelectedOrder::into_domain,
        )
    }
}

impl<R: SqliteRunner> OrderQueries for SqliteOn<R> {
    /// Where the connection runs its statements (the calling thread, for a reader), with diesel's
    /// synchronous connection: each value is decoded once, straight from SQLite, and the orders
    /// are assembled there. Through the async wrapper's `load`, every value was copied into an
    /// owned row on that thread, then decoded again on the worker (docs/PERFORMANCE.md,
    /// "SQLite's list pages against their own database").
    async fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> Result<Vec<Order>, DbError> {
        let shop = shop.clone();
        let selection = OwnedSelection::from(selection);
        self.spawn_blocking(move |conn| {
            let query = orders_then_items!(SqliteConn, &shop, selection.borrowed());
            Ok(assemble(
                diesel::RunQueryDsl::load_iter::<OrderOrItem, DefaultLoadingMode>(query, conn)?,
                |order: &SelectedOrder| &order.id,
                SelectedOrderItem::into_domain,
                SelectedOrder::into_domain,
            ))
        })
        .await?
    }
}

/// A list page's orders in list order, filtered and ordered but not yet limited, nor selected:
/// the statement's first branch selects their columns, its second their ids. Built per
/// backend: a boxed query names its backend.
pub(crate) trait OrderPage: AsyncConnectionCore {
    fn page<'a>(
        shop: &'a ShopId,
        page: &'a OrderListQuery,
    ) -> orders::BoxedQuery<'a, <Self as AsyncConnectionCore>::Backend>;
}

impl_for_each_backend! {
    impl OrderPage {
        fn page<'a>(
            shop: &'a ShopId,
            page: &'a OrderListQuery,
        ) -> orders::BoxedQuery<'a, <Self as AsyncConnectionCore>::Backend> {
            let mut query = orders::table
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
            query
        }
    }
}

/// A row of [`OrderQueries::load_orders`]'s statement: an order or an item.
type OrderOrItem = (Option<SelectedOrder>, Option<SelectedOrderItem>);

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
