//! Reading products: the list page, one product, and the stored versions an import compares
//! against. All three go through [`CatalogueQueries::load_products`], which costs one statement
//! whatever the number of products, in the form each database runs best: `postgres.rs`, the
//! products with their category's and brand's names, then their variants, found by the page's
//! ids; `sqlite.rs`, the products joined with their names and variants. No N+1, and one
//! statement rather than two (see docs/PERFORMANCE.md). Both filter a page as
//! [`product_page`] does. A search (`q`) of three characters or more costs one or two more: a
//! probe of the search index, then, for a rare term, its entries, which tell the page which
//! products to test (see [`search`]).
//!
//! `write.rs`: a whole product's rows, upserted (the import's and API v2's product writes);
//! `product_writer.rs`: API v2's writes of products (`ProductWriter`), with the checks of
//! `write_checks.rs` (codes held elsewhere, categories and brands named).

mod postgres;
mod product_writer;
pub(crate) mod search;
mod sqlite;
pub(crate) mod write;
mod write_checks;

use async_trait::async_trait;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_dsl::methods;
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::{ProductId, ShopId};
use shop_ports::StoreError;
use shop_ports::port::{CatalogueRepository, ReadFrom};

use crate::database::{Database, impl_for_each_backend, with_read_conn};
use crate::error::DbError;
use crate::schema::{brands, categories, products};
use crate::sql::first_rows::{FirstRows, first_rows};
use crate::sql::one_of::{OneOf, one_of};
use search::{ProductSearchIndex, SearchPath};

/// Which products to load; either way by ascending id.
pub(crate) type Selection<'a> = crate::sql::selection::Selection<'a, ProductListQuery, ProductId>;

/// Queries shared by the catalogue and the import, implemented for both backends' connections
/// so that the import can run them inside its transaction.
pub(crate) trait CatalogueQueries: ProductReads {
    /// The shop's selected products, by ascending id, each with all its variants (active or
    /// not) in display order.
    fn load_products(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
    ) -> impl Future<Output = Result<Vec<Product>, DbError>> + Send;
}

impl_for_each_backend! {
    impl CatalogueQueries {
        async fn load_products(
            &mut self,
            shop: &ShopId,
            selection: Selection<'_>,
        ) -> Result<Vec<Product>, DbError> {
            let path = match selection {
                Selection::Page(ProductListQuery {
                    search: Some(term),
                    limit,
                    ..
                }) => self.search_path(shop, term, limit.get()).await?,
                _ => SearchPath::Walk,
            };
            self.products_with_variants(shop, selection, &path).await
        }
    }
}

/// One read of the selected products along `path`: the step of
/// [`CatalogueQueries::load_products`] that each backend runs its own way, `postgres.rs` and
/// `sqlite.rs`.
pub(crate) trait ProductReads {
    fn products_with_variants(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
        path: &SearchPath,
    ) -> impl Future<Output = Result<Vec<Product>, DbError>> + Send;
}

/// A list page's products: `query` (a boxed select from `products`, or from
/// [`products_with_names()`]) filtered as `page` asks, by ascending id, `limit + 1` of them or a
/// few more (`sql/first_rows.rs`). Used for the page's ids on both backends and, on PostgreSQL,
/// for the page's products. `None` when `path` already knows there are none.
///
/// Generic over the query, which must take each filter and give back its own type: a boxed
/// select statement does, whatever its columns, source and backend.
pub(crate) fn product_page<'a, Q>(
    query: Q,
    page: &'a ProductListQuery,
    path: &'a SearchPath,
) -> Option<FirstRows<Q>>
where
    Q: methods::OrderDsl<dsl::Asc<products::id>, Output = Q>
        + methods::FilterDsl<dsl::Gt<products::id, &'a str>, Output = Q>
        + methods::FilterDsl<dsl::Escape<dsl::Like<products::search_text, String>>, Output = Q>
        + methods::FilterDsl<OneOf<'a, products::id>, Output = Q>
        + methods::FilterDsl<dsl::Eq<products::category_id, &'a str>, Output = Q>
        + methods::FilterDsl<dsl::Eq<products::brand_id, &'a str>, Output = Q>
        + methods::FilterDsl<dsl::Eq<products::product_type, &'a str>, Output = Q>
        + methods::FilterDsl<dsl::Eq<products::active, bool>, Output = Q>
        + methods::FilterDsl<dsl::GtEq<products::updated_at_ms, i64>, Output = Q>,
{
    let mut query = query.order(products::id.asc());
    if let Some(after) = &page.after {
        query = query.filter(products::id.gt(after.as_str()));
    }
    if let Some(term) = &page.search {
        let like = products::search_text
            .like(contains_pattern(term.as_str()))
            .escape('\\');
        query = query.filter(like);
        match path {
            SearchPath::Walk => {}
            SearchPath::Candidates(ids) if ids.is_empty() => return None,
            SearchPath::Candidates(ids) => {
                query = query.filter(one_of(products::id, ids));
            }
        }
    }
    if let Some(category) = &page.category {
        query = query.filter(products::category_id.eq(category.as_str()));
    }
    if let Some(brand) = &page.brand {
        query = query.filter(products::brand_id.eq(brand.as_str()));
    }
    if let Some(product_type) = &page.product_type {
        query = query.filter(products::product_type.eq(product_type.as_str()));
    }
    if let Some(active) = page.active.product_active() {
        query = query.filter(products::active.eq(active));
    }
    if let Some(since) = page.updated_since {
        query = query.filter(products::updated_at_ms.ge(since.millis()));
    }
    Some(first_rows(query, page.limit.get() + 1))
}

/// The shop's products with their category's and brand's names: the LEFT JOINs of both
/// backends' reads.
#[dsl::auto_type]
pub(crate) fn products_with_names<'a>(shop: &'a str) -> _ {
    products::table
        .left_join(
            categories::table.on(categories::id
                .nullable()
                .eq(products::category_id)
                .and(categories::shop_id.eq(products::shop_id))),
        )
        .left_join(
            brands::table.on(brands::id
                .nullable()
                .eq(products::brand_id)
                .and(brands::shop_id.eq(products::shop_id))),
        )
        .filter(products::shop_id.eq(shop))
}

/// `%term%` for LIKE, with LIKE's own wildcards and the escape character escaped, so that a
/// search for `50%` matches the text "50%" and not everything starting with "50".
pub(crate) fn contains_pattern(term: &str) -> String {
    let mut pattern = String::with_capacity(term.len() + 2);
    pattern.push('%');
    for ch in term.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(ch);
    }
    pattern.push('%');
    pattern
}

#[async_trait]
impl CatalogueRepository for Database {
    async fn list_products(
        &self,
        shop: &ShopId,
        query: &ProductListQuery,
        from: ReadFrom,
    ) -> Result<Vec<Product>, StoreError> {
        let mut products = with_read_conn!(self, from, |conn| conn
            .load_products(shop, Selection::Page(query))
            .await)?;
        // The statement may read a few more than asked for (first_rows.rs).
        products.truncate(query.limit.get() + 1);
        Ok(products)
    }

    async fn find_product(
        &self,
        shop: &ShopId,
        id: &ProductId,
        from: ReadFrom,
    ) -> Result<Option<Product>, StoreError> {
        let mut found = with_read_conn!(self, from, |conn| conn
            .load_products(shop, Selection::Ids(std::slice::from_ref(id)))
            .await)?;
        Ok(found.pop())
    }
}

#[cfg(test)]
mod tests {
    use super::contains_pattern;

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(contains_pattern("50%"), "%50\\%%");
        assert_eq!(contains_pattern("a_b"), "%a\\_b%");
        assert_eq!(contains_pattern("c:\\x"), "%c:\\\\x%");
        assert_eq!(contains_pattern("plain"), "%plain%");
    }
}
