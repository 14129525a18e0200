//! How an orders page, or one order, is read on SQLite: one statement, the page's orders joined
//! with their items, the page's orders chosen by a subquery so that its `LIMIT` counts orders,
//! not items. Run where the connection runs its statements (the calling thread, for a reader:
//! `database/calling_thread.rs`), with diesel's synchronous connection: each value is decoded
//! once, straight from SQLite, an order's only on its first row, and the orders are assembled
//! there (`sql/by_parent.rs`). There the join costs less than the parents-then-children form,
//! whose first branch SQLite runs as a co-routine and copies out (docs/performance-log.md,
//! "Parents, then their children").
//!
//! The page's filters and order are [`order_page`]'s, shared with PostgreSQL.

use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::id::ShopId;
use shop_domain::order::{Order, OrderListQuery};

use super::{OrderQueries, OrderSelection, order_page};
use crate::database::{SqliteOn, SqliteRunner};
use crate::error::DbError;
use crate::rows::{SelectedOrder, SelectedOrderItem};
use crate::schema::{order_items, orders};
use crate::sql::by_parent::by_parent_on_sqlite;
use crate::sql::first_rows::{first_rows, in_first_rows};
use crate::sql::one_of::one_of;
use crate::sql::selection::OwnedSelection;

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
                    let ids = page_of(&shop, page).select(orders::id);
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

/// The shop's orders as `page` asks ([`order_page`]), boxed for this backend.
fn page_of<'a>(shop: &'a ShopId, page: &'a OrderListQuery) -> orders::BoxedQuery<'a, Sqlite> {
    let query = orders::table
        .filter(orders::shop_id.eq(shop.as_str()))
        .into_boxed();
    order_page(query, page)
}
