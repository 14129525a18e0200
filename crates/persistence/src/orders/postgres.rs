//! How an orders page, or one order, is read on PostgreSQL: one statement, the page's orders,
//! then their items, found by the page's ids (`sql/parents_then_children.rs`), each item then
//! attached to its order by id. A join repeated an order's columns on each item's row and
//! sorted them all, which cost PostgreSQL more than the two statements it replaced
//! (docs/performance-log.md, "Parents, then their children").
//!
//! The page's filters and order are [`order_page`]'s, shared with SQLite. Which database
//! answers (a replica or the primary) is decided before this runs (`database/read.rs`).

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shop_domain::id::ShopId;
use shop_domain::order::{Order, OrderListQuery};

use super::{OrderQueries, OrderSelection, order_page};
use crate::error::DbError;
use crate::rows::{ItemOfOrder, SelectedOrder};
use crate::schema::{order_items, orders};
use crate::sql::first_rows::{first_rows, in_first_rows};
use crate::sql::one_of::one_of;
use crate::sql::parents_then_children::{assemble, nulls, parents_then_children};

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
                let orders = page_of(shop, page).select(orders_columns);
                let ids = page_of(shop, page).select(orders::id);
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

/// The shop's orders as `page` asks ([`order_page`]), boxed for this backend.
fn page_of<'a>(shop: &'a ShopId, page: &'a OrderListQuery) -> orders::BoxedQuery<'a, Pg> {
    let query = orders::table
        .filter(orders::shop_id.eq(shop.as_str()))
        .into_boxed();
    order_page(query, page)
}
