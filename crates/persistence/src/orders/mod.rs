//! Reading orders: the list page (newest first, or changed since a time by `updatedAt`) and
//! one order. Both go through [`OrderQueries::load_orders`], which costs one statement
//! whatever the number of orders and items, in the form each database runs best:
//! `postgres.rs`, the page's orders, then their items, found by the page's ids; `sqlite.rs`,
//! the page's orders joined with their items. One statement rather than two saves PostgreSQL a
//! round of parse, bind and snapshot, and SQLite's reader a step (see docs/PERFORMANCE.md).
//! Both filter and order a page as [`order_page`] does.
//!
//! Only [`SelectedOrder`](crate::rows::SelectedOrder)'s columns are selected: the confidential ones (signatures, internal
//! note, payment intent) never leave the database on this path.

mod postgres;
mod sqlite;

use async_trait::async_trait;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_dsl::methods;
use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery};
use shop_ports::StoreError;
use shop_ports::port::{OrderRepository, ReadFrom};

use crate::database::{Database, with_read_conn};
use crate::error::DbError;
use crate::schema::orders;

/// Which orders to load; either way newest first, by `(created_at, id)` descending.
pub(crate) type OrderSelection<'a> = crate::sql::selection::Selection<'a, OrderListQuery, OrderId>;

/// Queries shared by the API's reads and the import, implemented for both backends'
/// connections (`postgres.rs`, `sqlite.rs`) so that the import can run them inside its
/// transaction.
pub(crate) trait OrderQueries {
    /// The shop's selected orders, each with all its items in list order.
    fn load_orders(
        &mut self,
        shop: &ShopId,
        selection: OrderSelection<'_>,
    ) -> impl Future<Output = Result<Vec<Order>, DbError>> + Send;
}

/// A list page's orders in list order: `query` (a boxed select from `orders`, already scoped to
/// the shop) filtered and ordered as `page` asks, but not yet limited, nor selected: the
/// caller selects their columns, or their ids for a subquery. Written once for both backends
/// (`postgres.rs`, `sqlite.rs`).
///
/// Generic over the query, which must take each filter and order and give back its own type:
/// a boxed select statement does, whatever its backend.
pub(crate) fn order_page<'a, Q>(mut query: Q, page: &'a OrderListQuery) -> Q
where
    Q: methods::FilterDsl<dsl::LtEq<orders::created_at_ms, i64>, Output = Q>
        + methods::FilterDsl<CreatedBefore<'a>, Output = Q>
        + methods::OrderDsl<(dsl::Desc<orders::created_at_ms>, dsl::Desc<orders::id>), Output = Q>
        + methods::FilterDsl<dsl::GtEq<orders::updated_at_ms, i64>, Output = Q>
        + methods::FilterDsl<UpdatedAfter<'a>, Output = Q>
        + methods::OrderDsl<(dsl::Asc<orders::updated_at_ms>, dsl::Asc<orders::id>), Output = Q>
        + methods::FilterDsl<dsl::Eq<orders::status, &'static str>, Output = Q>
        + methods::FilterDsl<dsl::Eq<orders::payment_status, &'static str>, Output = Q>
        + methods::FilterDsl<dsl::Eq<orders::source, &'static str>, Output = Q>
        + methods::FilterDsl<dsl::Eq<orders::client_id, &'a str>, Output = Q>
        + methods::FilterDsl<dsl::GtEq<orders::created_at_ms, i64>, Output = Q>,
{
    query = match &page.changed {
        None => {
            if let Some((at, id)) = &page.before {
                // Strictly after the cursor's row in list order. The first bound is
                // implied by the second, but only it is an index range: PostgreSQL does
                // not turn the OR into one and would read every row newer than the
                // cursor (500,000 index entries for a page 500,000 rows deep).
                query = query.filter(orders::created_at_ms.le(at.millis())).filter(
                    orders::created_at_ms
                        .lt(at.millis())
                        .or(orders::created_at_ms
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

/// `created_at < t OR (created_at = t AND id < cursor id)`: after a cursor, newest first.
type CreatedBefore<'a> = dsl::Or<
    dsl::Lt<orders::created_at_ms, i64>,
    dsl::And<dsl::Eq<orders::created_at_ms, i64>, dsl::Lt<orders::id, &'a str>>,
>;

/// `updated_at > t OR id > cursor id` (beside `updated_at >= t`): after a cursor of a walk by
/// changes.
type UpdatedAfter<'a> = dsl::Or<dsl::Gt<orders::updated_at_ms, i64>, dsl::Gt<orders::id, &'a str>>;

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
