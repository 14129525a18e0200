//! Writing a whole product (its category, brand, row and variants), as the import and API v2's
//! product writes both do: the rows of a `Product` value, upserted within the writer's shop.
//!
//! **Only the rows that differ.** A write of a stored product upserts only the rows whose
//! values differ from the stored ones: a price change writes the product's row alone. An
//! unchanged category or brand row is not upserted, which also spares the write its row lock,
//! on which every write of a product of that category would otherwise wait until the commit
//! (docs/performance-log.md, "The API v2 writes: what the request did that its ceiling did not").

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::catalogue::Product;
use shop_domain::id::ShopId;
use shop_domain::stock::stock_entry_changed;

use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::{BrandRow, CategoryRow, NewVariantRow, ProductRow, VariantRow};
use crate::schema::{brands, categories, products, variants};
use crate::sql::kept_prepared::KeptPrepared;
use crate::sql::shop_upsert::{check_written, only_in_shop};

/// The rows one product write upserts: each `None` (or a variant's `write: false`) is a row
/// that already holds these values.
pub(crate) struct ProductWrite {
    category: Option<CategoryRow>,
    brand: Option<BrandRow>,
    product: Option<ProductRow>,
    pub variants: Vec<VariantWrite>,
}

/// A variant's row, and whether its stock entry changed (its `updatedAt` then moves to the
/// write's time; otherwise it keeps the stored one). One per variant of the product, in its
/// order, written or not.
pub(crate) struct VariantWrite {
    row: NewVariantRow,
    write: bool,
    pub entry_changed: bool,
}

impl ProductWrite {
    /// `stored`: the product as it was before this write, if it existed.
    pub fn new(
        shop: &ShopId,
        product: &Product,
        stored: Option<&Product>,
        now: Timestamp,
    ) -> Result<Self, DbError> {
        let stored_row = stored
            .map(|stored| ProductRow::from_domain(shop, stored))
            .transpose()?;
        let stored_category = stored.and_then(|stored| stored.category.as_ref());
        let stored_brand = stored.and_then(|stored| stored.brand.as_ref());
        Ok(Self {
            category: unless_stored(product.category.as_ref(), stored_category).map(|category| {
                CategoryRow {
                    id: category.id.as_str().to_owned(),
                    shop_id: shop.as_str().to_owned(),
                    name: category.name.clone(),
                }
            }),
            brand: unless_stored(product.brand.as_ref(), stored_brand).map(|brand| BrandRow {
                id: brand.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: brand.name.clone(),
            }),
            product: unless_stored(Some(ProductRow::from_domain(shop, product)?), stored_row),
            // Every variant, the kept ones included (`decide_product_import` adds the stored
            // variants the file does not mention): each row's search text repeats the
            // product's name and codes, so a renamed product rewrites all of them.
            variants: product
                .variants
                .iter()
                .map(|variant| {
                    let before = stored.and_then(|stored| {
                        let old = stored.variants.iter().find(|old| old.id == variant.id)?;
                        Some((stored, old))
                    });
                    let row = VariantRow::from_domain(shop, product, variant);
                    let entry_changed = stock_entry_changed(before, (product, variant));
                    let write = entry_changed
                        || before.is_none_or(|(stored, old)| {
                            VariantRow::from_domain(shop, stored, old) != row
                        });
                    VariantWrite {
                        row: NewVariantRow {
                            row,
                            stock_updated_at_ms: now.millis(),
                        },
                        write,
                        entry_changed,
                    }
                })
                .collect(),
        })
    }
}

/// `new`, unless the stored value is the same.
fn unless_stored<T: PartialEq>(new: Option<T>, stored: Option<T>) -> Option<T> {
    new.filter(|new| stored.as_ref() != Some(new))
}

/// The statements of a product's write, implemented for both backends' connections.
pub(crate) trait ProductWrites {
    /// Upserts the product's category, brand, row and variants that differ, in that order
    /// (foreign keys).
    fn write_product(
        &mut self,
        shop: &ShopId,
        rows: &ProductWrite,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl ProductWrites {
        async fn write_product(
            &mut self,
            shop: &ShopId,
            rows: &ProductWrite,
        ) -> Result<(), DbError> {
            if let Some(category) = &rows.category {
                let upsert = diesel::insert_into(categories::table)
                    .values(category)
                    .on_conflict(categories::id)
                    .do_update()
                    .set(category);
                let in_shop = only_in_shop(upsert, categories::shop_id.eq(shop.as_str()));
                let written = KeptPrepared(in_shop).execute(&mut *self).await?;
                check_written(written, "category", &category.id)?;
            }
            if let Some(brand) = &rows.brand {
                let upsert = diesel::insert_into(brands::table)
                    .values(brand)
                    .on_conflict(brands::id)
                    .do_update()
                    .set(brand);
                let in_shop = only_in_shop(upsert, brands::shop_id.eq(shop.as_str()));
                let written = KeptPrepared(in_shop).execute(&mut *self).await?;
                check_written(written, "brand", &brand.id)?;
            }
            if let Some(product) = &rows.product {
                let upsert = diesel::insert_into(products::table)
                    .values(product)
                    .on_conflict(products::id)
                    .do_update()
                    .set(product);
                let in_shop = only_in_shop(upsert, products::shop_id.eq(shop.as_str()));
                let written = KeptPrepared(in_shop).execute(&mut *self).await?;
                check_written(written, "product", &product.id)?;
            }
            for variant in rows.variants.iter().filter(|variant| variant.write) {
                let new = &variant.row;
                let insert = diesel::insert_into(variants::table).values(new);
                let same_owner = variants::shop_id
                    .eq(shop.as_str())
                    .and(variants::product_id.eq(&new.row.product_id));
                let written = if variant.entry_changed {
                    let stamped = (
                        &new.row,
                        variants::stock_updated_at_ms.eq(new.stock_updated_at_ms),
                    );
                    let upsert = insert.on_conflict(variants::id).do_update().set(stamped);
                    KeptPrepared(only_in_shop(upsert, same_owner)).execute(&mut *self).await?
                } else {
                    let upsert = insert.on_conflict(variants::id).do_update().set(&new.row);
                    KeptPrepared(only_in_shop(upsert, same_owner)).execute(&mut *self).await?
                };
                check_written(written, "variant", &new.row.id)?;
            }
            Ok(())
        }

    }
}
