//! Reading orders: the list page (newest first, or changed since a time by `updatedAt`) and
//! one order. Both go through [`OrderQueries::load_orders`], which costs one statement
//! whatever the number of orders and items, in the form each database runs best: on
//! PostgreSQL the page's orders, then their items, found by the page's ids
//! (`parents_then_children.rs`); on SQLite the page's orders joined with their items. One
//! statement rather than two saves PostgreSQL a round of parse, bind and snapshot, and SQLite's
//! reader a step (see docs/PERFORMANCE.md).
//!
//! Only [`SelectedOrder`]'s columns are selected: the confidential ones (signatures, internal
//! note, payment intent) never leave the database on this path.

use async_trait::async_trait;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use diesel_async::{AsyncConnectionCore, AsyncPgConnection, RunQueryDsl};
use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery};
use shop_ports::StoreError;
use shop_ports::port::{OrderRepository, ReadFrom};

use crate::database::{Database, SqliteOn, SqliteRunner, impl_for_each_backend, with_read_conn};
use crate::error::DbError;
use crate::rows::{ItemOfOrder, SelectedOrder, SelectedOrderItem};
use crate::schema::{order_items, orders};
use crate::sql::by_parent::by_parent_on_sqlite;
use crate::sql::first_rows::{first_rows, in_first_rows};
use crate::sql::one_of::one_of;
use crate::sql::parents_then_children::{assemble, nulls, parents_then_children};
use crate::sql::selection::OwnedSelection;

/// Which orders to load; either way newest first, by `(created_at, id)` descending.
pub(crate) type OrderSelection<'a> = crate::sql::selection::Selection<'a, OrderListQuery, OrderId>;

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

/// On PostgreSQL: the page's orders, then their items (`parents_then_children.rs`). A join
/// repeated an order's columns on each item's row and sorted them all, which cost PostgreSQL
/// more than the two statements it replaced (docs/performance-log.md, "Parents, then their
/// children").
impl OrderQueries for AsyncPgConnection {
    async fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> Result<Vec<Order>, DbError> {
        let orders_columns = (
            <SelectedOrder as Selectable<Pg>>::construct_selection().nullable(),
            nulls::<ItemOfOrder, Pg>(),
        );
        let items = order_items::table
            .filter(order_items::shop_id.eq(shop.as_str()))
            .select((
                nulls::<SelectedOrder, Pg>(),
                <ItemOfOrder as Selectable<Pg>>::construct_selection().nullable(),
            ))
            .into_boxed();
        let query = match selection {
            OrderSelection::Page(page) => {
                let count = page.limit.get() + 1;
                let orders = Self::page(shop, page).select(orders_columns);
                let ids = Self::page(shop, page).select(orders::id);
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
                // A limit that cannot cut (at most one order per id): the branch then
                // has the page's type.
                parents_then_children(
                    first_rows(orders, ids.len()),
                    items.filter(one_of(order_items::order_id, ids)),
                )
            }
        };
        let rows: Vec<(Option<SelectedOrder>, Option<ItemOfOrder>)> = query.load(self).await?;
        assemble(
            rows,
            |order: &SelectedOrder| &order.id,
            ItemOfOrder::into_domain,
            SelectedOrder::into_domain,
        )
    }
}

/// On SQLite: the page's orders joined with their items, the page's orders chosen by a
/// subquery so that its `LIMIT` counts orders, not items. Run where the connection runs its
/// statements (the calling thread, for a reader), with diesel's synchronous connection: each
/// value is decoded once, straight from SQLite, an order's only on its first row, and the
/// orders are assembled there. There the join costs less than the parents-then-children form,
/// whose first branch SQLite runs as a co-routine and copies out (docs/performance-log.md,
/// "Parents, then their children").
impl<R: SqliteRunner> OrderQueries for SqliteOn<R> {
    async fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> Result<Vec<Order>, DbError> {
        let shop = shop.clone();
        let selection = OwnedSelection::from(selection);
        self.spawn_blocking(move |conn| {
            let query = orders::table
                .left_join(
                    order_items::table.on(order_items::order_id
                        .eq(orders::id)
                        .and(order_items::shop_id.eq(orders::shop_id))),
                )
                .filter(orders::shop_id.eq(shop.as_str()))
                .select((
                    <SelectedOrder as Selectable<Sqlite>>::construct_selection(),
                    <SelectedOrderItem as Selectable<Sqlite>>::construct_selection().nullable(),
                ))
                .order((
                    orders::created_at_ms.desc(),
                    orders::id.desc(),
                    order_items::position.asc(),
                ))
                .into_boxed();
            let query = match selection.borrowed() {
                OrderSelection::Page(page) => {
                    let ids = Self::page(&shop, page).select(orders::id);
                    let query = query.filter(in_first_rows(
                        orders::id,
                        first_rows(ids, page.limit.get() + 1),
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
            };
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

/// A list page's orders in list order, filtered and ordered but not yet limited, nor selected:
/// their columns, or their ids for a subquery. Built per backend: a boxed query names its
/// backend.
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

#[async_trait]
impl OrderRepository for Database {
    async fn list_orders(
        &self,
        shop: &ShopId,
        query: &OrderListQuery,
        from: ReadFrom,
    ) -> Result<Vec<Order>, StoreError> {
        let mut orders = with_read_conn!(self, from, |conn| conn
            .load_orders(shop, OrderSelection::Page(query))
            .await)?;
        // The statement may read a few more than asked for (first_rows.rs).
        orders.truncate(query.limit.get() + 1);
        Ok(orders)
    }

    async fn find_order(
        &self,
        shop: &ShopId,
        id: &OrderId,
        from: ReadFrom,
    ) -> Result<Option<Order>, StoreError> {
        let mut found = with_read_conn!(self, from, |conn| conn
            .load_orders(shop, OrderSelection::Ids(std::slice::from_ref(id)))
            .await)?;
        Ok(found.pop())
    }
}
