//! Reading products: the list page, one product, and the stored versions an import compares
//! against. All three go through [`CatalogueQueries::load_products`], which costs exactly two
//! queries whatever the number of products: one for the products (with category and brand
//! names by LEFT JOIN), one for all their variants. No N+1. A search (`q`) of three characters
//! or more costs up to three more on SQLite: where its bounded walk ends, then, if that walk did
//! not fill the page, the search index's matches and a second read of the page (see [`search`]).

pub(crate) mod search;

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::catalogue::{Product, ProductListQuery, Variant};
use shop_domain::id::{ProductId, ShopId};
use shop_ports::StoreError;
use shop_ports::port::CatalogueRepository;

use crate::database::{Database, impl_for_each_backend, with_conn};
use crate::error::DbError;
use crate::one_of::one_of;
use crate::rows::{ProductRow, VariantRow};
use crate::schema::{brands, categories, products, variants};
use search::{ProductSearchIndex, SearchPath};

/// Which products to load.
#[derive(Clone, Copy)]
pub(crate) enum Selection<'a> {
    /// A list page: the query's filters, after its keyset position, at most `limit + 1`.
    Page(&'a ProductListQuery),
    /// These ids (missing ones are skipped), by ascending id.
    Ids(&'a [String]),
}

/// Queries shared by the catalogue and the import, implemented for both backends' connections
/// so that the import can run them inside its transaction.
pub(crate) trait CatalogueQueries {
    /// The shop's selected products, by ascending id, each with all its variants (active or
    /// not) in display order.
    fn load_products(
        &mut self,
        shop: &ShopId,
        selection: Selection<'_>,
    ) -> impl Future<Output = Result<Vec<Product>, DbError>> + Send;
}

type ProductWithNames = (ProductRow, Option<String>, Option<String>);

impl_for_each_backend! {
    impl CatalogueQueries {
        async fn load_products(
            &mut self,
            shop: &ShopId,
            selection: Selection<'_>,
        ) -> Result<Vec<Product>, DbError> {
            // A search may take a second read of the page, along another path (see [`search`]).
            let search = match selection {
                Selection::Page(page) => page.search.as_ref().map(|term| (term, page)),
                Selection::Ids(_) => None,
            };
            let mut path = match search {
                Some((term, page)) => {
                    let after = page.after.as_ref().map(|id| id.as_str());
                    self.first_path(shop, term, after, page.limit.get()).await?
                }
                None => SearchPath::Walk,
            };
            let rows = loop {
                let mut query = products::table
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
                    .filter(products::shop_id.eq(shop.as_str()))
                    .select((
                        ProductRow::as_select(),
                        categories::name.nullable(),
                        brands::name.nullable(),
                    ))
                    .order(products::id.asc())
                    .into_boxed();
                match selection {
                    Selection::Page(page) => {
                        if let Some(after) = &page.after {
                            query = query.filter(products::id.gt(after.as_str()));
                        }
                        if let Some(term) = &page.search {
                            query = query.filter(
                                products::search_text
                                    .like(contains_pattern(term.as_str()))
                                    .escape('\\'),
                            );
                            match &path {
                                SearchPath::Walk => {}
                                SearchPath::WalkThrough(last) => {
                                    query = query.filter(products::id.le(last.as_str()));
                                }
                                SearchPath::Candidates(ids) if ids.is_empty() => {
                                    return Ok(Vec::new());
                                }
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
                            query = query
                                .filter(products::product_type.eq(product_type.as_str()));
                        }
                        if let Some(active) = page.active.product_active() {
                            query = query.filter(products::active.eq(active));
                        }
                        if let Some(since) = page.updated_since {
                            query = query.filter(products::updated_at_ms.ge(since.millis()));
                        }
                        let overfetch =
                            i64::try_from(page.limit.get() + 1).unwrap_or(i64::MAX);
                        query = query.limit(overfetch);
                    }
                    Selection::Ids(ids) => {
                        query = query.filter(one_of(products::id, ids));
                    }
                }
                let rows: Vec<ProductWithNames> = query.load(&mut *self).await?;
                match (&path, search) {
                    (SearchPath::WalkThrough(_), Some((term, page)))
                        if rows.len() <= page.limit.get() =>
                    {
                        path = self.past_window(shop, term, page.limit.get()).await?;
                    }
                    _ => break rows,
                }
            };
            if rows.is_empty() {
                return Ok(Vec::new());
            }
            let ids: Vec<&str> = rows.iter().map(|(row, _, _)| row.id.as_str()).collect();
            let variant_rows: Vec<VariantRow> = variants::table
                .filter(variants::shop_id.eq(shop.as_str()))
                .filter(one_of(variants::product_id, &ids))
                .order((
                    variants::product_id.asc(),
                    variants::position.asc(),
                    variants::id.asc(),
                ))
                .select(VariantRow::as_select())
                .load(&mut *self)
                .await?;
            assemble(rows, variant_rows)
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

/// Attaches the variants (ordered by product, then display order) to their products.
fn assemble(
    rows: Vec<ProductWithNames>,
    variant_rows: Vec<VariantRow>,
) -> Result<Vec<Product>, DbError> {
    let mut by_product: HashMap<String, Vec<Variant>> = HashMap::with_capacity(rows.len());
    for row in variant_rows {
        let product_id = row.product_id.clone();
        by_product
            .entry(product_id)
            .or_default()
            .push(row.into_domain()?);
    }
    rows.into_iter()
        .map(|(row, category_name, brand_name)| {
            let variants = by_product.remove(&row.id).unwrap_or_default();
            row.into_domain(category_name, brand_name, variants)
        })
        .collect()
}

#[async_trait]
impl CatalogueRepository for Database {
    async fn list_products(
        &self,
        shop: &ShopId,
        query: &ProductListQuery,
    ) -> Result<Vec<Product>, StoreError> {
        Ok(with_conn!(self, |conn| conn
            .load_products(shop, Selection::Page(query))
            .await)?)
    }

    async fn find_product(
        &self,
        shop: &ShopId,
        id: &ProductId,
    ) -> Result<Option<Product>, StoreError> {
        let ids = [id.as_str().to_owned()];
        let mut found = with_conn!(self, |conn| conn
            .load_products(shop, Selection::Ids(&ids))
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
