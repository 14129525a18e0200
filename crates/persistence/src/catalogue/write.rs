//! Writing a whole product (its category, brand, row and variants), as the import and API v2's
//! product writes both do: the rows of a `Product` value, upserted within the writer's shop.

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
use crate::sql::shop_upsert::{check_written, only_in_shop};

/// Every row one product write touches.
pub(crate) struct ProductWrite {
    category: Option<CategoryRow>,
    brand: Option<BrandRow>,
    product: ProductRow,
    pub variants: Vec<VariantWrite>,
}

/// A variant's row, and whether its stock entry changed (its `updatedAt` then moves to the
/// import's time; otherwise it keeps the stored one).
pub(crate) struct VariantWrite {
    row: NewVariantRow,
    pub entry_changed: bool,
}

impl ProductWrite {
    /// `stored`: the product as it was before this import, if it existed.
    pub fn new(
        shop: &ShopId,
        product: &Product,
        stored: Option<&Product>,
        now: Timestamp,
    ) -> Result<Self, DbError> {
        Ok(Self {
            category: product.category.as_ref().map(|category| CategoryRow {
                id: category.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: category.name.clone(),
            }),
            brand: product.brand.as_ref().map(|brand| BrandRow {
                id: brand.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: brand.name.clone(),
            }),
            product: ProductRow::from_domain(shop, product)?,
            // Every variant, the kept ones included (`decide_product_import` adds the stored
            // variants the file does not mention): each row's search text repeats the
            // product's name and codes, so a renamed product must refresh all of them.
            variants: product
                .variants
                .iter()
                .map(|variant| {
                    let before = stored.and_then(|stored| {
                        let old = stored.variants.iter().find(|old| old.id == variant.id)?;
                        Some((stored, old))
                    });
                    VariantWrite {
                        row: NewVariantRow {
                            row: VariantRow::from_domain(shop, product, variant),
                            stock_updated_at_ms: now.millis(),
                        },
                        entry_changed: stock_entry_changed(before, (product, variant)),
                    }
                })
                .collect(),
        })
    }
}

/// The statements of a product's write, implemented for both backends' connections.
pub(crate) trait ProductWrites {
    /// Upserts the product's category, brand, row and variants, in that order (foreign keys).
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
                let written = only_in_shop(upsert, categories::shop_id.eq(shop.as_str()))
                    .execute(&mut *self)
                    .await?;
                check_written(written, "category", &category.id)?;
            }
            if let Some(brand) = &rows.brand {
                let upsert = diesel::insert_into(brands::table)
                    .values(brand)
                    .on_conflict(brands::id)
                    .do_update()
                    .set(brand);
                let written = only_in_shop(upsert, brands::shop_id.eq(shop.as_str()))
                    .execute(&mut *self)
                    .await?;
                check_written(written, "brand", &brand.id)?;
            }
            let upsert = diesel::insert_into(products::table)
                .values(&rows.product)
                .on_conflict(products::id)
                .do_update()
                .set(&rows.product);
            let written = only_in_shop(upsert, products::shop_id.eq(shop.as_str()))
                .execute(&mut *self)
                .await?;
            check_written(written, "product", &rows.product.id)?;
            for variant in &rows.variants {
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
                    only_in_shop(upsert, same_owner).execute(&mut *self).await?
                } else {
                    let upsert = insert.on_conflict(variants::id).do_update().set(&new.row);
                    only_in_shop(upsert, same_owner).execute(&mut *self).await?
                };
                check_written(written, "variant", &new.row.id)?;
            }
            Ok(())
        }

    }
}
