//! How a products page, or one product, is read on PostgreSQL: one statement, the page's
//! products with their category's and brand's names, then their variants, found by the page's
//! ids (`sql/parents_then_children.rs`), each variant then attached to its product by id
//! ([`assemble`]). A join repeated a product's columns on each variant's row and sorted them
//! all, which cost PostgreSQL more than the two statements it replaced (docs/performance-log.md,
//! "Parents, then their children").
//!
//! The page's filters are [`product_page`]'s, shared with SQLite. Which database answers (a
//! replica or the primary) is decided before this runs (`database/read.rs`).

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::ShopId;

use super::search::SearchPath;
use super::{ProductReads, Selection, product_page, products_with_names};
use crate::error::DbError;
use crate::rows::{ProductWithNames, VariantRow};
use crate::schema::{products, variants};
use crate::sql::first_rows::{FirstRows, first_rows, in_first_rows};
use crate::sql::one_of::one_of;
use crate::sql::parents_then_children::{assemble, nulls, parents_then_children};

impl ProductReads for AsyncPgConnection {
    async fn products_with_variants(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
        path: &SearchPath,
    ) -> Result<Vec<Product>, DbError> {
        let products = products_with_names(shop.as_str())
            .select((
                <ProductWithNames as Selectable<Pg>>::construct_selection().nullable(),
                nulls::<VariantRow, Pg>(),
            ))
            .into_boxed();
        let variants = variants::table
            .filter(variants::shop_id.eq(shop.as_str()))
            .select((
                nulls::<ProductWithNames, Pg>(),
                <VariantRow as Selectable<Pg>>::construct_selection().nullable(),
            ))
            .into_boxed();
        let query = match selection {
            Selection::Page(page) => product_page(products, page, path)
                .zip(page_ids(shop, page, path))
                .map(|(products, ids)| {
                    parents_then_children(
                        products,
                        variants.filter(in_first_rows(variants::product_id, ids)),
                    )
                }),
            // A limit that cannot cut (one row per id): the branch then has the page's type.
            Selection::Ids(ids) => Some(parents_then_children(
                first_rows(
                    products
                        .filter(one_of(products::id, ids))
                        .order(products::id.asc()),
                    ids.len(),
                ),
                variants.filter(one_of(variants::product_id, ids)),
            )),
        };
        let Some(query) = query else {
            return Ok(Vec::new());
        };
        let rows: Vec<(Option<ProductWithNames>, Option<VariantRow>)> = query.load(self).await?;
        assemble(
            rows,
            ProductWithNames::id,
            VariantRow::into_domain,
            ProductWithNames::into_domain,
        )
    }
}

/// The page's product ids, as the variants' subquery. `None` when `path` already knows there
/// are none.
fn page_ids<'a>(
    shop: &'a ShopId,
    page: &'a ProductListQuery,
    path: &'a SearchPath,
) -> Option<FirstRows<products::BoxedQuery<'a, Pg, Text>>> {
    let ids = products::table
        .select(products::id)
        .filter(products::shop_id.eq(shop.as_str()))
        .into_boxed();
    product_page(ids, page, path)
}
