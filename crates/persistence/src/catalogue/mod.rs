//! Reading products: the list page, one product, and the stored versions an import compares
//! against. All three go through [`CatalogueQueries::load_products`], which costs one statement
//! whatever the number of products, in the form each database runs best: on PostgreSQL the
//! products with their category's and brand's names, then their variants, found by the page's
//! ids (`parents_then_children.rs`); on SQLite the products joined with their names and
//! variants. No N+1, and one statement rather than two (see docs/PERFORMANCE.md). A search
//! (`q`) of three characters or more costs one or two more: a probe of the search index, then,
//! for a rare term, its entries, which tell the page which products to test (see [`search`]).

pub(crate) mod search;

use async_trait::async_trait;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;
use diesel_async::{AsyncConnectionCore, AsyncPgConnection, RunQueryDsl};
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::{ProductId, ShopId};
use shop_ports::StoreError;
use shop_ports::port::{CatalogueRepository, ReadFrom};

use crate::database::{Database, SqliteOn, SqliteRunner, impl_for_each_backend, with_read_conn};
use crate::error::DbError;
use crate::rows::{ProductWithNames, VariantRow};
use crate::schema::{brands, categories, products, variants};
use crate::sql::by_parent::by_parent_on_sqlite;
use crate::sql::first_rows::{FirstRows, first_rows, in_first_rows};
use crate::sql::one_of::one_of;
use crate::sql::parents_then_children::{assemble, nulls, parents_then_children};
use crate::sql::selection::OwnedSelection;
use search::{ProductSearchIndex, SearchPath};

/// Which products to load; either way by ascending id.
pub(crate) type Selection<'a> = crate::sql::selection::Selection<'a, ProductListQuery, ProductId>;

/// Queries shared by the catalogue and the import, implemented for both backends' connections
/// so that the import can run them inside its transaction.
pub(crate) trait CatalogueQueries: PageIds + ProductReads {
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

/// A list page's products: `$query` (a boxed select from `products`, or from `products` with
/// its names) filtered as `$page` asks, by ascending id, `limit + 1` of them or a few more
/// (`first_rows.rs`). Written once for the page's ids and, on PostgreSQL, for the page's
/// products. `None` when `$path` already knows there are none.
macro_rules! product_page {
    ($query:expr, $page:expr, $path:expr) => {
        'page: {
            let page: &ProductListQuery = $page;
            let path: &SearchPath = $path;
            let mut query = $query.order(products::id.asc());
            if let Some(after) = &page.after {
                query = query.filter(products::id.gt(after.as_str()));
            }
            if let Some(term) = &page.search {
                query = query.filter(
                    products::search_text
                        .like(contains_pattern(term.as_str()))
                        .escape('\\'),
                );
                match path {
                    SearchPath::Walk => {}
                    SearchPath::Candidates(ids) if ids.is_empty() => break 'page None,
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
    };
}

/// One read of the selected products along `path`: the step of
/// [`CatalogueQueries::load_products`] that runs differently on each backend.
pub(crate) trait ProductReads {
    fn products_with_variants(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
        path: &SearchPath,
    ) -> impl Future<Output = Result<Vec<Product>, DbError>> + Send;
}

/// A product with its category's and brand's names: the LEFT JOINs of both backends' reads.
macro_rules! products_with_names {
    ($shop:expr) => {
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
            .filter(products::shop_id.eq($shop.as_str()))
    };
}

/// On PostgreSQL: the page's products by ascending id, then their variants
/// (`parents_then_children.rs`). A join repeated a product's columns on each variant's row and
/// sorted them all, which cost PostgreSQL more than the two statements it replaced
/// (docs/performance-log.md, "Parents, then their children").
impl ProductReads for AsyncPgConnection {
    async fn products_with_variants(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
        path: &SearchPath,
    ) -> Result<Vec<Product>, DbError> {
        let products = products_with_names!(shop)
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
            Selection::Page(page) => product_page!(products, page, path)
                .zip(Self::page_ids(shop, page, path))
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

/// On SQLite: the page's products joined with their names and variants, the page's products
/// chosen by a subquery so that its `LIMIT` counts products, not variants. Run where the
/// connection runs its statements (the calling thread, for a reader), with diesel's synchronous
/// connection: each value is decoded once, straight from SQLite, a product's only on its first
/// row, and the products are assembled there. There the join costs less than the
/// parents-then-children form, whose first branch SQLite runs as a co-routine and copies out
/// (docs/performance-log.md, "Parents, then their children").
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
            let query = products_with_names!(shop)
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
                Selection::Page(page) => Self::page_ids(&shop, page, &path)
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

/// A list page's product ids, as a subquery: that of the variants on PostgreSQL, that of the
/// page's rows on SQLite. Built per backend: a boxed query names its backend.
pub(crate) trait PageIds: AsyncConnectionCore {
    fn page_ids<'a>(
        shop: &'a ShopId,
        page: &'a ProductListQuery,
        path: &'a SearchPath,
    ) -> Option<PageOfIds<'a, <Self as AsyncConnectionCore>::Backend>>;
}

type PageOfIds<'a, DB> = FirstRows<products::BoxedQuery<'a, DB, Text>>;

impl_for_each_backend! {
    impl PageIds {
        fn page_ids<'a>(
            shop: &'a ShopId,
            page: &'a ProductListQuery,
            path: &'a SearchPath,
        ) -> Option<PageOfIds<'a, <Self as AsyncConnectionCore>::Backend>> {
            let ids = products::table
                .select(products::id)
                .filter(products::shop_id.eq(shop.as_str()))
                .into_boxed();
            product_page!(ids, page, path)
        }
    }
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
