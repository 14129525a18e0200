//! How a products page, or one product, is read on SQLite: one statement, the page's products
//! joined with their names and variants, the page's products chosen by a subquery so that its
//! `LIMIT` counts products, not variants. Run where the connection runs its statements (the
//! calling thread, for a reader: `database/calling_thread.rs`), with diesel's synchronous
//! connection: each value is decoded once, straight from SQLite, a product's only on its first
//! row, and the products are assembled there (`sql/by_parent.rs`). There the join costs less
//! than the parents-then-children form, whose first branch SQLite runs as a co-routine and
//! copies out (docs/performance-log.md, "Parents, then their children").
//!
//! The page's filters are [`product_page`]'s, shared with PostgreSQL.

use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::ShopId;

use super::search::SearchPath;
use super::{ProductReads, Selection, product_page, products_with_names};
use crate::database::{SqliteOn, SqliteRunner};
use crate::error::DbError;
use crate::rows::{ProductWithNames, VariantRow};
use crate::schema::{products, variants};
use crate::sql::by_parent::by_parent_on_sqlite;
use crate::sql::first_rows::{FirstRows, in_first_rows};
use crate::sql::one_of::one_of;
use crate::sql::selection::OwnedSelection;

impl<R: SqliteRunner> ProductReads for SqliteOn<R> {
    async fn products_with_variants(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
        path: &SearchPath,
    ) -> Result<Vec<Product>, DbError> {
        let shop = shop.clone();
        let selection = OwnedSelection::from(selection);
        let path = path.clone();
        self.spawn_blocking(move |conn| {
            let query = products_with_names(shop.as_str())
                .left_join(
                    variants::table.on(variants::product_id
                        .eq(products::id)
                        .and(variants::shop_id.eq(products::shop_id))),
                )
                .select((
                    <ProductWithNames as Selectable<Sqlite>>::construct_selection(),
                    <VariantRow as Selectable<Sqlite>>::construct_selection().nullable(),
                ))
                .order((
                    products::id.asc(),
                    variants::position.asc(),
                    variants::id.asc(),
                ))
                .into_boxed();
            let query = match selection.borrowed() {
                Selection::Page(page) => page_ids(&shop, page, &path)
                    .map(|ids| query.filter(in_first_rows(products::id, ids))),
                Selection::Ids(ids) => Some(query.filter(one_of(products::id, ids))),
            };
            let Some(query) = query else {
                return Ok(Ok(Vec::new()));
            };
            Ok(by_parent_on_sqlite(
                conn,
                query,
                ProductWithNames::id,
                VariantRow::into_domain,
                ProductWithNames::into_domain,
            ))
        })
        .await?
    }
}

/// The page's product ids, as the subquery that chooses the joined rows. `None` when `path`
/// already knows there are none.
fn page_ids<'a>(
    shop: &'a ShopId,
    page: &'a ProductListQuery,
    path: &'a SearchPath,
) -> Option<FirstRows<products::BoxedQuery<'a, Sqlite, Text>>> {
    let ids = products::table
        .select(products::id)
        .filter(products::shop_id.eq(shop.as_str()))
        .into_boxed();
    product_page(ids, page, path)
}
